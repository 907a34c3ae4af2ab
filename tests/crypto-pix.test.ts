import { describe, expect, it } from "vitest";
import { and, asc, eq, sql } from "drizzle-orm";
import { isAddress } from "viem";
import bolt11 from "bolt11";
import { createDynamicPix, hasError, parsePix } from "pix-utils";
import { db } from "@/db";
import { chainTxs, cryptoPixInvoices, cryptoPixPayments, events, ledgerEntries } from "@/db/schema";
import { balanceOf } from "@/lib/ledger/ledger";
import { encodeStaticBrCode } from "@/lib/pix/brcode";
import { crc16Ccitt } from "@/lib/pix/crc16";
import { encodeTlv } from "@/lib/pix/emv";
import { getCryptoPixEndpoint } from "@/lib/crypto-pix/endpoints";
import { runSweep } from "@/lib/worker";
import { UpstreamUnavailable } from "@/lib/errors";
import { overrideProvidersForTests, providers } from "@/lib/providers";
import { api, call, seedMerchant, specOf } from "./helpers";

const PAY = "/api/v1/crypto-pix/onchain/pay";
const RECIPIENT_KEY = "padaria@example.com";
const BSC_USDT = "0x55d398326f99059fF775485246999027B3197955";
const ETH_DAI = "0x6B175474E89094C44Da98b954EedeAC495271d0F";

const staticCode = (amountCentavos?: number, pixKey = RECIPIENT_KEY) =>
  encodeStaticBrCode({
    pixKey,
    merchantName: "Padaria Pao Quente",
    merchantCity: "Sao Paulo",
    amountCentavos,
    txid: "PEDIDO123",
  });

/** A well-formed dynamic BR Code (field 26.25 carries a location URL instead of a key), CRC included. */
function dynamicCode(): string {
  const account =
    encodeTlv("00", "br.gov.bcb.pix") + encodeTlv("25", "pix.example.com/qr/v2/cobv/9d36b84fc70b478fb95c12729b90ca25");
  const body =
    encodeTlv("00", "01") +
    encodeTlv("01", "12") +
    encodeTlv("26", account) +
    encodeTlv("52", "0000") +
    encodeTlv("53", "986") +
    encodeTlv("58", "BR") +
    encodeTlv("59", "Loja Dinamica") +
    encodeTlv("60", "Curitiba") +
    encodeTlv("62", encodeTlv("05", "***")) +
    "6304";
  return body + crc16Ccitt(body);
}

const pay = (apiKey: string | undefined, body: unknown, authHeader?: "authorization" | "bearer") =>
  api("POST", PAY, { apiKey, body, authHeader });

async function newPayment(apiKey: string, body: Record<string, unknown>) {
  const res = await pay(apiKey, body);
  expect(res.status).toBe(201);
  return res.body.data as {
    pixKey: string;
    payCryptoPixId: string;
    value: number;
    address: string;
    cryptoValue: number;
  };
}

const lookup = (apiKey: string | undefined, id: string, headers?: Record<string, string>) =>
  api("GET", `/api/v1/crypto-pix/order/${encodeURIComponent(id)}`, { apiKey, headers });

const transfer = (apiKey: string, id: string, body: Record<string, unknown>) =>
  api("POST", `/api/v1/sandbox/crypto-pix/${id}/transfer`, { apiKey, body });

const internalId = (payCryptoPixId: string) => Buffer.from(payCryptoPixId, "base64url").toString("utf8");

async function row(payCryptoPixId: string) {
  const [r] = await db()
    .select()
    .from(cryptoPixPayments)
    .where(eq(cryptoPixPayments.id, internalId(payCryptoPixId)));
  return r;
}

async function expireNow(payCryptoPixId: string) {
  await db()
    .update(cryptoPixPayments)
    .set({ expiresAt: new Date(Date.now() - 1000) })
    .where(eq(cryptoPixPayments.id, internalId(payCryptoPixId)));
}

async function statusEvents(payCryptoPixId: string) {
  return db()
    .select()
    .from(events)
    .where(and(eq(events.subjectId, internalId(payCryptoPixId)), eq(events.type, "crypto_pix.status_changed")))
    .orderBy(asc(events.seq));
}

async function expectBalanceUntouched(merchantId: string, centavos = 0) {
  expect(await balanceOf(db(), merchantId)).toBe(centavos);
  const entries = await db().select().from(ledgerEntries).where(eq(ledgerEntries.merchantId, merchantId));
  expect(entries.filter((e) => e.kind !== "adjustment")).toEqual([]);
}

describe("POST /api/v1/crypto-pix/onchain/pay", () => {
  it("→ 201 { data: { pixKey, payCryptoPixId, value } } for a static code with an amount", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const res = await pay(apiKey, { qrcode: staticCode(10_000), network: "bsc" });
    expect(res.status).toBe(201);
    const d = res.body.data;
    expect(d).toMatchObject({
      pixKey: RECIPIENT_KEY,
      value: 100,
      cryptoValue: 18.518519,
      network: "bsc",
      asset: "USDT",
      tokenAddress: BSC_USDT,
    });
    // base64url without padding of the internal UUID.
    expect(d.payCryptoPixId).toMatch(/^[A-Za-z0-9_-]+$/);
    const id = internalId(d.payCryptoPixId);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(Buffer.from(id).toString("base64url")).toBe(d.payCryptoPixId);
    expect(isAddress(d.address, { strict: true })).toBe(true);
    const r = await row(d.payCryptoPixId);
    expect(r).toMatchObject({
      merchantId: merchant.id,
      status: "PENDING",
      valueCentavos: 10_000,
      pixKey: RECIPIENT_KEY,
      pixTxid: "PEDIDO123",
      address: d.address,
    });
    expect(r.expiresAt.getTime() - r.createdAt.getTime()).toBeGreaterThan(3600_000 - 5_000);
    expect(r.expiresAt.getTime() - r.createdAt.getTime()).toBeLessThan(3600_000 + 5_000);
  });

  it("→ 201 with the Bearer: header form, and on eth with another asset", async () => {
    const { apiKey } = await seedMerchant();
    const res = await pay(apiKey, { qrcode: staticCode(54_00), network: "eth", asset: "DAI" }, "bearer");
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      value: 54,
      cryptoValue: 10,
      network: "eth",
      asset: "DAI",
      tokenAddress: ETH_DAI,
    });
  });

  it("→ 201 for a static code without an amount plus `value`; also when `value` equals the code's amount", async () => {
    const { apiKey } = await seedMerchant();
    const a = await pay(apiKey, { qrcode: staticCode(), network: "bsc", value: 54.32 });
    expect(a.status).toBe(201);
    expect(a.body.data).toMatchObject({ pixKey: RECIPIENT_KEY, value: 54.32, cryptoValue: 10.05926 }); // 10.05925925…↑
    const b = await pay(apiKey, { qrcode: staticCode(12_345), network: "bsc", value: 123.45 });
    expect(b.status).toBe(201);
    expect(b.body.data.value).toBe(123.45);
  });

  it("→ 400 { message } for a code without an amount and no value", async () => {
    const { apiKey } = await seedMerchant();
    const res = await pay(apiKey, { qrcode: staticCode(), network: "bsc" });
    expect(res.status).toBe(400);
    expect(specOf(res.body)).toEqual({ message: expect.stringContaining("value") });
  });

  it("→ 400 { message } when value contradicts the code's amount", async () => {
    const { apiKey } = await seedMerchant();
    const res = await pay(apiKey, { qrcode: staticCode(10_000), network: "bsc", value: 99.99 });
    expect(res.status).toBe(400);
    expect(specOf(res.body)).toEqual({ message: expect.stringContaining("contradicts") });
  });

  it.each([
    ["garbage", "hello world"],
    ["a broken CRC", staticCode(10_000).slice(0, -1) + (staticCode(10_000).endsWith("0") ? "1" : "0")],
    ["a tampered amount (CRC no longer matches)", staticCode(10_000).replace("5406100.00", "5406001.00")],
    ["an empty string", ""],
    ["only spaces", "    "],
    ["a number", 12345],
    ["a missing qrcode", undefined],
    ["a code without CRC", staticCode(10_000).slice(0, -8)],
  ])("→ 400 { message } for %s", async (_label, qrcode) => {
    const { apiKey } = await seedMerchant();
    const res = await pay(apiKey, { qrcode, network: "bsc" });
    expect(res.status).toBe(400);
    expect(specOf(res.body)).toEqual({ message: expect.any(String) });
    expect(res.body.message).toMatch(/qrcode|PIX QR code/i);
  });

  it("→ 400 { message } for a dynamic code in sandbox (hand-built, and from pix-utils)", async () => {
    const { apiKey } = await seedMerchant();
    const hand = dynamicCode();
    expect(hasError(parsePix(hand))).toBe(false);
    const dyn = createDynamicPix({
      merchantName: "Loja",
      merchantCity: "Curitiba",
      url: "pix.example.com/qr/v2/abc123def456",
    });
    if (hasError(dyn)) throw new Error("pix-utils could not build a dynamic code");
    const fromLib = dyn.toBRCode();
    for (const qrcode of [hand, fromLib]) {
      const res = await pay(apiKey, { qrcode, network: "bsc", value: 100 });
      expect(res.status).toBe(400);
      expect(specOf(res.body)).toEqual({ message: expect.stringContaining("Dynamic") });
    }
  });

  it.each([
    ["polygon", { network: "polygon" }],
    ["tron", { network: "tron" }],
    ["missing", {}],
  ])("→ 400 { message } for network %s (Crypto-PIX takes bsc and eth)", async (_label, extra) => {
    const { apiKey } = await seedMerchant();
    const res = await pay(apiKey, { qrcode: staticCode(10_000), ...extra });
    expect(res.status).toBe(400);
    expect(specOf(res.body)).toEqual({ message: expect.stringContaining("Network not supported") });
  });

  it("→ 400 { message } for an unsupported asset and for an amount below the network minimum", async () => {
    const { apiKey } = await seedMerchant();
    const asset = await pay(apiKey, { qrcode: staticCode(10_000), network: "bsc", asset: "BTC" });
    expect(asset.status).toBe(400);
    expect(specOf(asset.body)).toEqual({ message: expect.stringContaining("Token not supported") });
    const small = await pay(apiKey, { qrcode: staticCode(50_00), network: "eth" }); // 9.259260 < 10
    expect(small.status).toBe(400);
    expect(specOf(small.body)).toEqual({ message: expect.stringContaining("Computed crypto value is invalid") });
  });

  it("→ 401 { message } without a key and with an unknown key", async () => {
    const none = await pay(undefined, { qrcode: staticCode(10_000), network: "bsc" });
    expect(none.status).toBe(401);
    expect(specOf(none.body)).toEqual({ message: expect.any(String) });
    const wrong = await pay("sk_test_wrongwrongwrongwrongwrongwrongwrongwrong", {
      qrcode: staticCode(10_000),
      network: "bsc",
    });
    expect(wrong.status).toBe(401);
    expect(specOf(wrong.body)).toEqual({ message: "Invalid API key" });
  });
});

describe("GET /api/v1/crypto-pix/order/{id}", () => {
  it("→ 200 with every field of the payment at the top level (no wrapper, no satoshis, btcQuote 0)", async () => {
    const { apiKey } = await seedMerchant();
    const created = await newPayment(apiKey, { qrcode: staticCode(10_000), network: "bsc" });
    const r = await row(created.payCryptoPixId);
    const res = await lookup(apiKey, created.payCryptoPixId);
    expect(res.status).toBe(200);
    const b = res.body;
    expect(b.order).toBeUndefined();
    expect(b.data).toBeUndefined();
    expect(b).toMatchObject({
      value: 100,
      cryptoValue: 18.518519,
      updatedAt: r.updatedAt.toISOString(),
      status: "PENDING",
      network: "bsc",
      address: created.address,
      receivedValue: 0,
      originalCryptoValue: 18.518519,
      partialUpdatedAt: null,
      partialBrlValue: null,
      isPartial: false,
      remaining: 18.518519,
      btcQuote: 0,
    });
    expect(typeof b.hash).toBe("string");
    expect("satoshis" in b).toBe(false);
  });

  it("finds the payment by base64url id, by standard base64 (with padding), and by the `id` header", async () => {
    const { apiKey } = await seedMerchant();
    const created = await newPayment(apiKey, { qrcode: staticCode(10_000), network: "bsc" });
    const uuid = internalId(created.payCryptoPixId);
    const standard = Buffer.from(uuid).toString("base64");
    const padded = standard.endsWith("=") ? standard : `${standard}`;
    for (const id of [created.payCryptoPixId, standard, padded]) {
      const res = await lookup(apiKey, id);
      expect(res.status).toBe(200);
      expect(res.body.address).toBe(created.address);
    }
    // The id header alone (the generated sample's form)...
    const viaHeader = await call(getCryptoPixEndpoint, { apiKey, headers: { id: created.payCryptoPixId } });
    expect(viaHeader.status).toBe(200);
    expect(viaHeader.body.address).toBe(created.address);
    // ...and with the path left as the sample's unfilled placeholder.
    const placeholder = await api("GET", "/api/v1/crypto-pix/order/%7Bid%7D", {
      apiKey,
      headers: { id: created.payCryptoPixId },
    });
    expect(placeholder.status).toBe(200);
    expect(placeholder.body.address).toBe(created.address);
  });

  it("→ 404 { message } for an unknown id, a non-base64 id, and another merchant's payment, all identical", async () => {
    const a = await seedMerchant();
    const b = await seedMerchant();
    const created = await newPayment(a.apiKey, { qrcode: staticCode(10_000), network: "bsc" });
    const unknown = await lookup(a.apiKey, Buffer.from("00000000-0000-4000-8000-000000000000").toString("base64url"));
    const garbage = await lookup(a.apiKey, "!!not-base64!!");
    const foreign = await lookup(b.apiKey, created.payCryptoPixId);
    for (const res of [unknown, garbage, foreign]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual(unknown.body);
    }
    expect(specOf(unknown.body)).toEqual({ message: expect.any(String) });
    const unauth = await lookup(undefined, created.payCryptoPixId);
    expect(unauth.status).toBe(401);
    expect(specOf(unauth.body)).toEqual({ message: expect.any(String) });
  });
});

describe("Crypto-PIX life cycle (sandbox transfers)", () => {
  it("partial → PARTIAL_ORDER with the partial fields; the rest → COMPLETED (PIX paid); balance untouched", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const created = await newPayment(apiKey, { qrcode: staticCode(10_000), network: "bsc" });
    const txHash = `0x${"1f".repeat(32)}`.replace(
      /^0x1f1f/,
      `0x${Math.floor(Math.random() * 0xffff)
        .toString(16)
        .padStart(4, "0")}`,
    );
    const first = await transfer(apiKey, created.payCryptoPixId, { amount: "10", txHash });
    expect(first.status).toBe(200);

    const p = (await lookup(apiKey, created.payCryptoPixId)).body;
    expect(p).toMatchObject({
      status: "PARTIAL_ORDER",
      isPartial: true,
      receivedValue: 10,
      partialBrlValue: 54, // 10 × 5.40
      remaining: 8.518519,
      originalCryptoValue: 18.518519,
      hash: txHash.toLowerCase(),
    });
    expect(typeof p.partialUpdatedAt).toBe("string");
    expect(new Date(p.partialUpdatedAt).toISOString()).toBe(p.partialUpdatedAt);

    const second = await transfer(apiKey, created.payCryptoPixId, { amount: "8.518519" });
    expect(second.status).toBe(200);
    const done = (await lookup(apiKey, created.payCryptoPixId)).body;
    expect(done).toMatchObject({ status: "COMPLETED", isPartial: false, receivedValue: 18.518519, remaining: 0 });
    expect((await row(created.payCryptoPixId)).pixPayoutId).toMatch(/^E/);

    const evs = await statusEvents(created.payCryptoPixId);
    expect(evs.map((e) => [e.data.previousStatus, e.data.status])).toEqual([
      ["PENDING", "PARTIAL_ORDER"],
      ["PARTIAL_ORDER", "COMPLETED"],
    ]);
    await expectBalanceUntouched(merchant.id);
  });

  it("the full amount in one transfer → COMPLETED; the same txHash again counts once", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 700 });
    const created = await newPayment(apiKey, { qrcode: staticCode(), network: "eth", value: 100 });
    const res = await transfer(apiKey, created.payCryptoPixId, { amount: "18.518519" });
    expect(res.body.payment).toMatchObject({ status: "COMPLETED", receivedValue: 18.518519 });
    const again = await transfer(apiKey, created.payCryptoPixId, {
      amount: "18.518519",
      txHash: res.body.transfer.txHash,
    });
    expect(again.body.transfer.duplicate).toBe(true);
    expect(again.body.payment.status).toBe("COMPLETED");
    expect(await statusEvents(created.payCryptoPixId)).toHaveLength(1);
    await expectBalanceUntouched(merchant.id, 700);
  });

  it("failPix: true → REFUNDED with a refund transaction hash (0x + 64 hex, distinct per refund)", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const refunds: string[] = [];
    const incoming: string[] = [];
    for (let i = 0; i < 2; i++) {
      const created = await newPayment(apiKey, { qrcode: staticCode(10_000), network: "bsc" });
      const res = await transfer(apiKey, created.payCryptoPixId, { amount: "18.518519", failPix: true });
      expect(res.status).toBe(200);
      const p = (await lookup(apiKey, created.payCryptoPixId)).body;
      expect(p.status).toBe("REFUNDED");
      expect(p.refundHash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(p.refundHash).not.toBe(p.hash);
      refunds.push(p.refundHash);
      incoming.push(p.hash);
      const evs = await statusEvents(created.payCryptoPixId);
      expect(evs.map((e) => [e.data.previousStatus, e.data.status])).toEqual([["PENDING", "REFUNDED"]]);
    }
    expect(new Set([...refunds, ...incoming]).size).toBe(4);
    await expectBalanceUntouched(merchant.id);
  });

  it("PENDING past expiry → FAILED (no refund); PARTIAL_ORDER past expiry → REFUNDED with a refund hash", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const idle = await newPayment(apiKey, { qrcode: staticCode(10_000), network: "bsc" });
    await expireNow(idle.payCryptoPixId);
    const failed = (await lookup(apiKey, idle.payCryptoPixId)).body;
    expect(failed.status).toBe("FAILED");
    expect(failed.refundHash).toBeUndefined();
    expect((await statusEvents(idle.payCryptoPixId)).map((e) => [e.data.previousStatus, e.data.status])).toEqual([
      ["PENDING", "FAILED"],
    ]);

    const partial = await newPayment(apiKey, { qrcode: staticCode(10_000), network: "bsc" });
    await transfer(apiKey, partial.payCryptoPixId, { amount: "5" });
    await expireNow(partial.payCryptoPixId);
    // Expiry decides the refund; the payment is REFUNDED once the refund's transaction is mined, not before.
    const deciding = (await lookup(apiKey, partial.payCryptoPixId)).body;
    expect(deciding).toMatchObject({ status: "PARTIAL_ORDER", refundStatus: "PENDING", receivedValue: 5 });
    expect(deciding.refundHash).toBeUndefined();
    await runSweep();
    const refunded = (await lookup(apiKey, partial.payCryptoPixId)).body;
    expect(refunded).toMatchObject({ status: "REFUNDED", refundStatus: "COMPLETED", receivedValue: 5 });
    expect(refunded.refundHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await statusEvents(partial.payCryptoPixId)).map((e) => [e.data.previousStatus, e.data.status])).toEqual([
      ["PENDING", "PARTIAL_ORDER"],
      ["PARTIAL_ORDER", "REFUNDED"],
    ]);
    // A transfer after the payment is final does not reopen it: it is sent back to its sender.
    const late = await transfer(apiKey, partial.payCryptoPixId, { amount: "13.518519" });
    expect(late.body.payment.status).toBe("REFUNDED");
    expect((await row(partial.payCryptoPixId)).unappliedAmount).toBe("13.518519000000000000");
    const [lateRefund] = await db()
      .select()
      .from(chainTxs)
      .where(
        and(eq(chainTxs.ownerId, (await row(partial.payCryptoPixId)).id), sql`${chainTxs.transferId} is not null`),
      );
    expect(lateRefund).toMatchObject({ purpose: "refund", status: "confirmed", amount: "13.518519000000000000" });
    await expectBalanceUntouched(merchant.id);
  });

  it("a refund that cannot be sent (the eth node fails) holds back nothing else: other payments expire and refund, the sweep goes on, and it is sent once the node answers", async () => {
    const { apiKey } = await seedMerchant();
    const onEth = await newPayment(apiKey, { qrcode: staticCode(10_000), network: "eth", asset: "DAI" });
    const onBsc = await newPayment(apiKey, { qrcode: staticCode(10_000), network: "bsc" });
    const idle = await newPayment(apiKey, { qrcode: staticCode(10_000), network: "bsc" });
    await transfer(apiKey, onEth.payCryptoPixId, { amount: "5" });
    await transfer(apiKey, onBsc.payCryptoPixId, { amount: "5" });
    for (const p of [onEth, onBsc, idle]) await expireNow(p.payCryptoPixId);

    const chain = providers().chain;
    overrideProvidersForTests({
      chain: {
        ...chain,
        fees: async (network, opts) => {
          if (network === "eth") throw new UpstreamUnavailable("EVM node for eth failed to estimate fees: timeout");
          return chain.fees(network, opts);
        },
      },
    });
    try {
      await runSweep();
    } finally {
      overrideProvidersForTests(undefined);
    }
    // Each payment closed in its own transaction; the eth refund is decided but not sent, the others went on.
    expect(await row(onEth.payCryptoPixId)).toMatchObject({ status: "PARTIAL_ORDER", refundStatus: "PENDING" });
    expect(
      await db()
        .select()
        .from(chainTxs)
        .where(eq(chainTxs.ownerId, internalId(onEth.payCryptoPixId))),
    ).toEqual([]);
    expect(await row(onBsc.payCryptoPixId)).toMatchObject({ status: "REFUNDED", refundStatus: "COMPLETED" });
    expect((await row(idle.payCryptoPixId)).status).toBe("FAILED");

    await runSweep();
    expect(await row(onEth.payCryptoPixId)).toMatchObject({ status: "REFUNDED", refundStatus: "COMPLETED" });
    expect(
      await db()
        .select()
        .from(chainTxs)
        .where(eq(chainTxs.ownerId, internalId(onEth.payCryptoPixId))),
    ).toHaveLength(1);
  });

  it("→ 400 { message } for a malformed or absurdly large transfer amount; nothing recorded", async () => {
    const { apiKey } = await seedMerchant();
    const created = await newPayment(apiKey, { qrcode: staticCode(10_000), network: "bsc" });
    for (const body of [{ amount: "1" + "0".repeat(25) }, { amount: "x" }, { amount: "1", failPix: "yes" }, {}]) {
      const res = await transfer(apiKey, created.payCryptoPixId, body);
      expect(res.status).toBe(400);
      expect(specOf(res.body)).toEqual({ message: expect.any(String) });
    }
    expect((await lookup(apiKey, created.payCryptoPixId)).body).toMatchObject({ status: "PENDING", receivedValue: 0 });
  });

  it("→ 404 { message } for a transfer to another merchant's payment", async () => {
    const a = await seedMerchant();
    const b = await seedMerchant();
    const created = await newPayment(a.apiKey, { qrcode: staticCode(10_000), network: "bsc" });
    const res = await transfer(b.apiKey, created.payCryptoPixId, { amount: "18.518519" });
    expect(res.status).toBe(404);
    expect(specOf(res.body)).toEqual({ message: expect.any(String) });
    expect((await lookup(a.apiKey, created.payCryptoPixId)).body.status).toBe("PENDING");
  });
});

describe("Crypto-PIX over Lightning (sandbox)", () => {
  it("→ 201 with a hold invoice for the BRL value at the locked BTC quote; the lookup has btcQuote and satoshis", async () => {
    const { apiKey } = await seedMerchant();
    const res = await pay(apiKey, { qrcode: staticCode(10_000), network: "lightning" });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const data = res.body.data;
    // R$ 100 at R$ 550,000 per BTC: 18,182 sats (rounded up, against the payer's favour never ours).
    expect(data).toMatchObject({
      network: "lightning",
      asset: "BTC",
      value: 100,
      satoshis: "18182",
      cryptoValue: 0.00018182,
      rate: 550000,
    });
    expect(data.tokenAddress).toBeUndefined();
    const decoded = bolt11.decode(data.address);
    expect(decoded.satoshis).toBe(18182);
    const [invoice] = await db()
      .select()
      .from(cryptoPixInvoices)
      .where(eq(cryptoPixInvoices.paymentId, internalId(data.payCryptoPixId)));
    expect(decoded.tags.find((t) => t.tagName === "payment_hash")?.data).toBe(invoice.paymentHash);
    expect(invoice).toMatchObject({ state: "open", satoshis: 18182, action: null });
    const looked = (await lookup(apiKey, data.payCryptoPixId)).body;
    expect(looked).toMatchObject({
      network: "lightning",
      asset: "BTC",
      btcQuote: 550000,
      satoshis: "18182",
      status: "PENDING",
      address: data.address,
    });
  });

  it("paid: the invoice is held, the PIX is sent, and only then the invoice is settled → COMPLETED", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const created = (await pay(apiKey, { qrcode: staticCode(5_400), network: "lightning" })).body.data;
    const paid = await transfer(apiKey, created.payCryptoPixId, { amount: String(created.cryptoValue) });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body.payment).toMatchObject({ status: "COMPLETED", receivedValue: created.cryptoValue });
    const [invoice] = await db()
      .select()
      .from(cryptoPixInvoices)
      .where(eq(cryptoPixInvoices.paymentId, internalId(created.payCryptoPixId)));
    expect(invoice).toMatchObject({ state: "settled", action: null });
    await expectBalanceUntouched(merchant.id);
  });

  it("the PIX not made (failPix): the invoice is cancelled, so the payer's sats go back by themselves → REFUNDED", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const created = (await pay(apiKey, { qrcode: staticCode(5_400), network: "lightning" })).body.data;
    const res = await transfer(apiKey, created.payCryptoPixId, { amount: String(created.cryptoValue), failPix: true });
    expect(res.body.payment).toMatchObject({
      status: "REFUNDED",
      refundStatus: "COMPLETED",
      failureReason: "PIX payout failed (sandbox failPix)",
    });
    expect(res.body.payment.refundHash).toBeUndefined();
    const [invoice] = await db()
      .select()
      .from(cryptoPixInvoices)
      .where(eq(cryptoPixInvoices.paymentId, internalId(created.payCryptoPixId)));
    expect(invoice).toMatchObject({ state: "canceled", action: null });
    expect((await statusEvents(created.payCryptoPixId)).map((e) => e.data.status)).toEqual(["REFUNDED"]);
    await expectBalanceUntouched(merchant.id);
  });

  it("unpaid at expiry: FAILED, and the invoice is cancelled so nobody can pay it later", async () => {
    const { apiKey } = await seedMerchant();
    const created = (await pay(apiKey, { qrcode: staticCode(5_400), network: "lightning" })).body.data;
    await expireNow(created.payCryptoPixId);
    expect((await lookup(apiKey, created.payCryptoPixId)).body.status).toBe("FAILED");
    await runSweep();
    const [invoice] = await db()
      .select()
      .from(cryptoPixInvoices)
      .where(eq(cryptoPixInvoices.paymentId, internalId(created.payCryptoPixId)));
    expect(invoice).toMatchObject({ state: "canceled", action: null });
    const late = await transfer(apiKey, created.payCryptoPixId, { amount: String(created.cryptoValue) });
    expect(late.status).toBe(409);
  });

  it("→ 400 for another asset, a refundAddress, or a partial amount", async () => {
    const { apiKey } = await seedMerchant();
    const usdt = await pay(apiKey, { qrcode: staticCode(5_400), network: "lightning", asset: "USDT" });
    expect(usdt.status).toBe(400);
    expect(usdt.body.message).toBe('Token not supported: "USDT". Over Lightning the asset is BTC');
    const refund = await pay(apiKey, {
      qrcode: staticCode(5_400),
      network: "lightning",
      refundAddress: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    });
    expect(refund.status).toBe(400);
    const created = (await pay(apiKey, { qrcode: staticCode(5_400), network: "lightning" })).body.data;
    const partial = await transfer(apiKey, created.payCryptoPixId, { amount: "0.00000001" });
    expect(partial.status).toBe(400);
    expect(partial.body.message).toMatch(/^A Lightning invoice is paid in full: amount must be /);
  });
});
