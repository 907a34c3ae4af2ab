import { describe, expect, it } from "vitest";
import { and, asc, eq } from "drizzle-orm";
import { getAddress, isAddress } from "viem";
import { db } from "@/db";
import { chainTransfers, depositAddresses, events, onchainOrders } from "@/db/schema";
import { encodeStaticBrCode } from "@/lib/pix/brcode";
import { deriveDepositAddress } from "@/lib/chain/hd";
import { SANDBOX_DEPOSIT_XPUB } from "@/lib/chain/sandbox-keys";
import { api, seedMerchant, specOf } from "./helpers";
import { balanceMatchesLedger } from "./support/ledger";

const DEPOSIT = "/api/v1/onchain/deposit";
const SUPPORTED = ["eth", "bsc", "polygon"];

// Independent copy of the token table (the issuers' published contracts): the test must not trust the code's own table.
const TOKEN = {
  "eth/USDT": "0xdAC17F958D2ee523a2206206994597C13D831ec7",
  "eth/DAI": "0x6B175474E89094C44Da98b954EedeAC495271d0F",
  "bsc/USDT": "0x55d398326f99059fF775485246999027B3197955",
  "bsc/USDC": "0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d",
  "bsc/BUSD": "0xe9e7CEA3DedcA5984780Bafc599bD69ADd087D56",
  "polygon/USDC": "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359",
  "polygon/DAI": "0x8f3Cf7ad23Cd3CaDbD9735AFf958023239c6A063",
} as const;

const hash = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;
let hashSeq = Math.floor(Math.random() * 1e9) * 1000;
const freshHash = () => hash(++hashSeq);

async function deposit(apiKey: string, body: unknown, authHeader?: "authorization" | "bearer") {
  return api("POST", DEPOSIT, { apiKey, body, authHeader });
}

async function newDeposit(apiKey: string, body: { value: number; network: string; asset: string }) {
  const res = await deposit(apiKey, body);
  expect(res.status).toBe(201);
  return res.body.order as { address: string; paymentLinkId: string; network: string; asset: string; amount: number };
}

const lookup = (apiKey: string | undefined, id: string) =>
  api("GET", `/api/v1/onchain/order/${encodeURIComponent(id)}`, { apiKey });

const transfer = (apiKey: string, paymentLinkId: string, body: Record<string, unknown>) =>
  api("POST", `/api/v1/sandbox/onchain/${paymentLinkId}/transfer`, { apiKey, body });

async function balance(apiKey: string): Promise<number> {
  const res = await api("GET", "/api/v1/account", { apiKey });
  expect(res.status).toBe(200);
  return res.body.merchant.balance;
}

async function orderRow(paymentLinkId: string) {
  const [row] = await db().select().from(onchainOrders).where(eq(onchainOrders.paymentLinkId, paymentLinkId));
  return row;
}

async function statusEvents(orderId: string) {
  return db()
    .select()
    .from(events)
    .where(and(eq(events.subjectId, orderId), eq(events.type, "onchain.deposit.status_changed")))
    .orderBy(asc(events.seq));
}

async function expireNow(paymentLinkId: string) {
  await db()
    .update(onchainOrders)
    .set({ expiresAt: new Date(Date.now() - 1000) })
    .where(eq(onchainOrders.paymentLinkId, paymentLinkId));
}

describe("POST /api/v1/onchain/deposit", () => {
  it.each([
    ["eth", "USDT", 100, 18.518519], // 18.5185185… rounded up
    ["eth", "DAI", 54, 10], // exactly the eth minimum
    ["bsc", "USDC", 10, 1.851852],
    ["bsc", "BUSD", 5.4, 1], // exactly the bsc minimum
    ["bsc", "USDT", 1234.56, 228.622223], // 228.6222222… ↑
    ["polygon", "USDC", 33.33, 6.172223],
    ["polygon", "DAI", 27, 5],
  ] as const)("%s/%s value %s → 201 with amount %s at 5.40 BRL", async (network, asset, value, amount) => {
    const { merchant, apiKey } = await seedMerchant();
    const res = await deposit(apiKey, { value, network, asset });
    expect(res.status).toBe(201);
    const o = res.body.order;
    expect(o).toMatchObject({ network, asset, amount });
    expect(typeof o.paymentLinkId).toBe("string");
    expect(o.paymentLinkId).toMatch(/^[A-Za-z0-9_-]{16,}$/);
    // EIP-55: the exact checksummed form, valid in strict mode.
    expect(isAddress(o.address, { strict: true })).toBe(true);
    expect(o.address).toBe(getAddress(o.address));
    expect(o.address).not.toBe(o.address.toLowerCase());
    expect(o.tokenAddress).toBe(TOKEN[`${network}/${asset}` as keyof typeof TOKEN]);

    const row = await orderRow(o.paymentLinkId);
    expect(row.merchantId).toBe(merchant.id);
    expect(row.valueCentavos).toBe(Math.round(value * 100));
    expect(Number(row.rate)).toBe(5.4);
    expect(row.tokenAddress).toBe(TOKEN[`${network}/${asset}` as keyof typeof TOKEN]);
    // The address is the HD child at the order's wallet index (a real derivation, not a placeholder).
    expect(o.address).toBe(deriveDepositAddress(SANDBOX_DEPOSIT_XPUB, row.walletIndex));
    // 24 h expiry.
    expect(row.expiresAt.getTime() - row.createdAt.getTime()).toBeGreaterThan(24 * 3600_000 - 5_000);
    expect(row.expiresAt.getTime() - row.createdAt.getTime()).toBeLessThan(24 * 3600_000 + 5_000);
  });

  it("accepts the documented `Bearer: <key>` header form and the Authorization form", async () => {
    const { apiKey } = await seedMerchant();
    const a = await deposit(apiKey, { value: 100, network: "bsc", asset: "USDT" }, "bearer");
    expect(a.status).toBe(201);
    const b = await deposit(apiKey, { value: 100, network: "bsc", asset: "USDT" }, "authorization");
    expect(b.status).toBe(201);
    expect(a.body.order.amount).toBe(18.518519);
    expect(a.body.order.address).not.toBe(b.body.order.address);
    expect(a.body.order.paymentLinkId).not.toBe(b.body.order.paymentLinkId);
  });

  it.each([
    ["an unknown network", { value: 100, network: "tron", asset: "USDT" }],
    ["an upper-case network", { value: 100, network: "ETH", asset: "USDT" }],
    ["a missing network", { value: 100, asset: "USDT" }],
    ["a non-string network", { value: 100, network: 56, asset: "USDT" }],
  ])("→ 400 { message, supportedNetworks } for %s", async (_label, body) => {
    const { apiKey } = await seedMerchant();
    const res = await deposit(apiKey, body);
    expect(res.status).toBe(400);
    expect(specOf(res.body)).toEqual({
      message: expect.stringContaining("Network not supported"),
      supportedNetworks: SUPPORTED,
    });
  });

  it.each([
    ["an unknown asset", { value: 100, network: "eth", asset: "BTC" }],
    ["a missing asset", { value: 100, network: "bsc" }],
    ["BUSD on polygon (no contract)", { value: 100, network: "polygon", asset: "BUSD" }],
  ])("→ 400 { message } (token not supported) for %s", async (_label, body) => {
    const { apiKey } = await seedMerchant();
    const res = await deposit(apiKey, body);
    expect(res.status).toBe(400);
    expect(specOf(res.body)).toEqual({ message: expect.stringContaining("Token not supported") });
    if ((body as { network: string }).network === "polygon") expect(res.body.message).toContain("polygon");
  });

  it.each([
    ["value 5 on eth (0.925926 < 10 USDT)", { value: 5, network: "eth", asset: "USDT" }],
    ["value 53.99 on eth (9.998149 < 10)", { value: 53.99, network: "eth", asset: "USDC" }],
    ["value 5.39 on bsc (0.998149 < 1)", { value: 5.39, network: "bsc", asset: "USDT" }],
    ["value 0.01 on polygon", { value: 0.01, network: "polygon", asset: "USDT" }],
  ])("→ 400 { message } (computed crypto value invalid) for %s", async (_label, body) => {
    const { apiKey } = await seedMerchant();
    const res = await deposit(apiKey, body);
    expect(res.status).toBe(400);
    expect(specOf(res.body)).toEqual({ message: expect.stringContaining("Computed crypto value is invalid") });
  });

  it.each([
    ["a string", "100"],
    ["null", null],
    ["zero", 0],
    ["negative", -10],
    ["3 decimals", 100.001],
    ["over the maximum", 1_000_000.01],
    ["missing", undefined],
  ])("→ 400 { message } when value is %s", async (_label, value) => {
    const { apiKey } = await seedMerchant();
    const res = await deposit(apiKey, { value, network: "bsc", asset: "USDT" });
    expect(res.status).toBe(400);
    expect(specOf(res.body)).toEqual({ message: expect.stringContaining("value") });
  });

  it("→ 400 { message } on malformed JSON and on a non-object body", async () => {
    const { apiKey } = await seedMerchant();
    const { call } = await import("./helpers");
    const { createDepositEndpoint } = await import("@/lib/onchain/endpoints");
    const bad = await call(createDepositEndpoint, { path: DEPOSIT, apiKey, rawBody: "{value:" });
    expect(bad.status).toBe(400);
    expect(specOf(bad.body)).toEqual({ message: "Malformed JSON body" });
    const arr = await deposit(apiKey, [1, 2]);
    expect(arr.status).toBe(400);
    expect(specOf(arr.body)).toEqual({ message: expect.any(String) });
  });

  it("→ 401 { message } without a key, with an unknown key, and with a live key in sandbox", async () => {
    const body = { value: 100, network: "bsc", asset: "USDT" };
    const none = await api("POST", DEPOSIT, { body });
    expect(none.status).toBe(401);
    expect(specOf(none.body)).toEqual({ message: expect.stringContaining("Missing API key") });
    for (const authHeader of ["authorization", "bearer"] as const) {
      const wrong = await deposit("sk_test_wrongwrongwrongwrongwrongwrongwrongwrong", body, authHeader);
      expect(wrong.status).toBe(401);
      expect(specOf(wrong.body)).toEqual({ message: "Invalid API key" });
    }
    const live = await deposit("sk_live_0123456789abcdefghijABCDEFGHIJ0123456789", body);
    expect(live.status).toBe(401);
    expect(specOf(live.body)).toEqual({ message: expect.any(String) });
  });

  it("never hands out an address twice across 30 concurrent deposits and concurrent Crypto-PIX payments", async () => {
    const { apiKey } = await seedMerchant();
    const networks = ["eth", "bsc", "polygon"] as const;
    const qrcode = encodeStaticBrCode({
      pixKey: "loja@example.com",
      merchantName: "Loja",
      merchantCity: "Recife",
      amountCentavos: 10_000,
    });
    const [deposits, pixes] = await Promise.all([
      Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          deposit(apiKey, { value: 100 + i, network: networks[i % 3], asset: i % 3 === 2 ? "USDC" : "USDT" }),
        ),
      ),
      Promise.all(
        Array.from({ length: 10 }, () =>
          api("POST", "/api/v1/crypto-pix/onchain/pay", { apiKey, body: { qrcode, network: "bsc" } }),
        ),
      ),
    ]);
    expect(deposits.map((d) => d.status)).toEqual(Array(30).fill(201));
    expect(pixes.map((d) => d.status)).toEqual(Array(10).fill(201));
    const addresses = [...deposits.map((d) => d.body.order.address), ...pixes.map((p) => p.body.data.address)];
    expect(addresses.every((a) => typeof a === "string" && isAddress(a, { strict: true }))).toBe(true);
    expect(new Set(addresses.map((a: string) => a.toLowerCase())).size).toBe(40);
    expect(new Set(deposits.map((d) => d.body.order.paymentLinkId)).size).toBe(30);
    // Each address is recorded once in the shared index table, with the right owner kind.
    const rows = await db().select().from(depositAddresses);
    for (const a of addresses) expect(rows.filter((r) => r.address.toLowerCase() === a.toLowerCase())).toHaveLength(1);
    // And over the whole database, no two deposit orders share an address.
    const all = await db().select({ address: onchainOrders.address }).from(onchainOrders);
    expect(new Set(all.map((r) => r.address.toLowerCase())).size).toBe(all.length);
  });
});

describe("GET /api/v1/onchain/order/{paymentLinkId}", () => {
  it("→ 200 { order } with every field of the deposit view", async () => {
    const { apiKey } = await seedMerchant();
    const created = await newDeposit(apiKey, { value: 250.5, network: "polygon", asset: "USDC" });
    const row = await orderRow(created.paymentLinkId);
    const res = await lookup(apiKey, created.paymentLinkId);
    expect(res.status).toBe(200);
    const o = res.body.order;
    expect(o).toMatchObject({
      network: "polygon",
      value: 250.5,
      cryptoValue: 46.388889, // 46.3888…↑
      address: created.address,
      asset: "USDC",
      status: "PENDING",
      metadata: {
        orderId: row.id,
        tokenAddress: TOKEN["polygon/USDC"],
        network: "polygon",
        walletIndex: row.walletIndex,
      },
      paymentLinkId: created.paymentLinkId,
      createdAt: row.createdAt.toISOString(),
    });
    expect(typeof o.metadata.walletIndex).toBe("number");
    expect(Number.isInteger(o.metadata.walletIndex)).toBe(true);
    expect(new Date(o.createdAt).toISOString()).toBe(o.createdAt);
    expect(created.amount).toBe(o.cryptoValue);
  });

  it("→ 400 { success: false, error } for an unknown id and another merchant's id, with identical bodies", async () => {
    const a = await seedMerchant();
    const b = await seedMerchant();
    const created = await newDeposit(a.apiKey, { value: 100, network: "bsc", asset: "USDT" });
    const unknown = await lookup(a.apiKey, "doesNotExist1234567890");
    const foreign = await lookup(b.apiKey, created.paymentLinkId);
    const weird = await lookup(a.apiKey, "\u0000abc");
    const long = await lookup(a.apiKey, "x".repeat(5000));
    expect(unknown.status).toBe(400);
    expect(specOf(unknown.body)).toEqual({ success: false, error: expect.any(String) });
    for (const res of [foreign, weird, long]) {
      expect(res.status).toBe(400);
      expect(res.body).toEqual(unknown.body);
    }
  });

  it("→ 401 { success: false, error } without a key", async () => {
    const res = await lookup(undefined, "whatever");
    expect(res.status).toBe(401);
    expect(specOf(res.body)).toEqual({ success: false, error: expect.any(String) });
  });
});

describe("sandbox transfers to a deposit", () => {
  it("full amount → COMPLETED; balance grows by exactly the value; one event carrying the deposit view", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const before = await balance(apiKey);
    const created = await newDeposit(apiKey, { value: 100, network: "bsc", asset: "USDT" });
    const txHash = freshHash();
    const res = await transfer(apiKey, created.paymentLinkId, { amount: "18.518519", txHash });
    expect(res.status).toBe(200);
    expect(res.body.order).toMatchObject({
      status: "COMPLETED",
      receivedValue: 18.518519,
      remaining: 0,
      unappliedValue: 0,
      creditedValue: 100,
    });
    expect(res.body.transfer).toMatchObject({ txHash, duplicate: false, applied: 18.518519, unapplied: 0 });
    expect(await balance(apiKey)).toBe(before + 10_000);
    expect(await balanceMatchesLedger(merchant.id)).toBe(before + 10_000);

    const look = await lookup(apiKey, created.paymentLinkId);
    expect(look.body.order.status).toBe("COMPLETED");

    const evs = await statusEvents(look.body.order.metadata.orderId);
    expect(evs).toHaveLength(1);
    expect(evs[0].merchantId).toBe(merchant.id);
    const { previousStatus, ...view } = evs[0].data as Record<string, unknown>;
    expect(previousStatus).toBe("PENDING");
    expect(view).toEqual(look.body.order);
  });

  it("partial → PARTIAL_ORDER (nothing credited), then the rest → COMPLETED, credited once", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const created = await newDeposit(apiKey, { value: 100, network: "eth", asset: "USDT" });
    const first = await transfer(apiKey, created.paymentLinkId, { amount: 10 });
    expect(first.status).toBe(200);
    expect(first.body.order).toMatchObject({
      status: "PARTIAL_ORDER",
      receivedValue: 10,
      remaining: 8.518519,
      creditedValue: 0,
    });
    expect(await balance(apiKey)).toBe(0);
    expect((await lookup(apiKey, created.paymentLinkId)).body.order.status).toBe("PARTIAL_ORDER");

    const second = await transfer(apiKey, created.paymentLinkId, { amount: "8.518519" });
    expect(second.body.order).toMatchObject({
      status: "COMPLETED",
      receivedValue: 18.518519,
      remaining: 0,
      unappliedValue: 0,
    });
    expect(await balance(apiKey)).toBe(10_000);
    expect(await balanceMatchesLedger(merchant.id)).toBe(10_000);

    const evs = await statusEvents(first.body.order.id);
    expect(evs.map((e) => [e.data.previousStatus, e.data.status])).toEqual([
      ["PENDING", "PARTIAL_ORDER"],
      ["PARTIAL_ORDER", "COMPLETED"],
    ]);
    expect(evs[0].data).toMatchObject({
      receivedValue: 10,
      paymentLinkId: created.paymentLinkId,
      metadata: { orderId: first.body.order.id },
    });
  });

  it("overpayment → COMPLETED with unappliedValue; credited only the value", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const created = await newDeposit(apiKey, { value: 100, network: "polygon", asset: "DAI" });
    const res = await transfer(apiKey, created.paymentLinkId, { amount: "20" });
    expect(res.body.order).toMatchObject({
      status: "COMPLETED",
      receivedValue: 18.518519,
      unappliedValue: 1.481481,
      creditedValue: 100,
    });
    expect(res.body.transfer).toMatchObject({ applied: 18.518519, unapplied: 1.481481 });
    expect(await balance(apiKey)).toBe(10_000);
    expect(await balanceMatchesLedger(merchant.id)).toBe(10_000);
    const unapplied = await db()
      .select()
      .from(events)
      .where(and(eq(events.subjectId, res.body.order.id), eq(events.type, "onchain.deposit.funds_unapplied")));
    expect(unapplied).toHaveLength(1);
    expect(unapplied[0].data).toMatchObject({ unappliedAmount: 1.481481, reason: "overpayment" });
    expect(await statusEvents(res.body.order.id)).toHaveLength(1);
  });

  it("the same txHash twice counts once (duplicate: true), whatever its letter case", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const created = await newDeposit(apiKey, { value: 100, network: "bsc", asset: "USDT" });
    const txHash = `0x${"ab".repeat(31)}${(hashSeq++ % 256).toString(16).padStart(2, "0")}`;
    const a = await transfer(apiKey, created.paymentLinkId, { amount: 10, txHash });
    const b = await transfer(apiKey, created.paymentLinkId, { amount: 10, txHash });
    const c = await transfer(apiKey, created.paymentLinkId, {
      amount: 10,
      txHash: txHash.toUpperCase().replace("0X", "0x"),
    });
    expect(a.body.transfer.duplicate).toBe(false);
    expect(b.body.transfer.duplicate).toBe(true);
    expect(c.body.transfer.duplicate).toBe(true);
    expect(c.body.order).toMatchObject({ status: "PARTIAL_ORDER", receivedValue: 10 });
    const rows = await db().select().from(chainTransfers).where(eq(chainTransfers.ownerId, a.body.order.id));
    expect(rows).toHaveLength(1);
    // Completing with a duplicated final transfer still credits once.
    const d = await transfer(apiKey, created.paymentLinkId, { amount: "8.518519", txHash: freshHash() });
    expect(d.body.order.status).toBe("COMPLETED");
    const e = await transfer(apiKey, created.paymentLinkId, { amount: "8.518519", txHash: d.body.transfer.txHash });
    expect(e.body.transfer.duplicate).toBe(true);
    expect(e.body.order.unappliedValue).toBe(0);
    expect(await balance(apiKey)).toBe(10_000);
    expect(await balanceMatchesLedger(merchant.id)).toBe(10_000);
  });

  it("concurrent transfers apply once each under a lock: exactly one credit, the excess unapplied", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const created = await newDeposit(apiKey, { value: 54, network: "bsc", asset: "USDC" }); // 10 USDC due
    const results = await Promise.all(
      Array.from({ length: 6 }, () => transfer(apiKey, created.paymentLinkId, { amount: "3" })),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    const look = await lookup(apiKey, created.paymentLinkId);
    expect(look.body.order).toMatchObject({ status: "COMPLETED", receivedValue: 10, unappliedValue: 8 });
    expect(await balance(apiKey)).toBe(5_400);
    expect(await balanceMatchesLedger(merchant.id)).toBe(5_400);
    const evs = await statusEvents(look.body.order.metadata.orderId);
    expect(evs.filter((e) => e.data.status === "COMPLETED")).toHaveLength(1);
  });

  it("a transfer after COMPLETED is unapplied: no extra credit, COMPLETED unchanged, no status event", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const created = await newDeposit(apiKey, { value: 100, network: "bsc", asset: "USDT" });
    await transfer(apiKey, created.paymentLinkId, { amount: "18.518519" });
    const completedAt = (await orderRow(created.paymentLinkId)).completedAt;
    const late = await transfer(apiKey, created.paymentLinkId, { amount: "5" });
    expect(late.status).toBe(200);
    expect(late.body.order).toMatchObject({
      status: "COMPLETED",
      receivedValue: 18.518519,
      unappliedValue: 5,
      creditedValue: 100,
    });
    expect(late.body.transfer).toMatchObject({ applied: 0, unapplied: 5, duplicate: false });
    expect((await orderRow(created.paymentLinkId)).completedAt).toEqual(completedAt);
    expect(await balance(apiKey)).toBe(10_000);
    expect(await balanceMatchesLedger(merchant.id)).toBe(10_000);
    expect(await statusEvents(late.body.order.id)).toHaveLength(1);
    const unapplied = await db()
      .select()
      .from(events)
      .where(and(eq(events.subjectId, late.body.order.id), eq(events.type, "onchain.deposit.funds_unapplied")));
    expect(unapplied.map((e) => e.data.reason)).toEqual(["after_final"]);
  });

  it("refuses amounts finer than the token's decimals, non-positive and absurdly large amounts with 400 { message }", async () => {
    const { apiKey } = await seedMerchant();
    const created = await newDeposit(apiKey, { value: 100, network: "eth", asset: "USDT" }); // 6 decimals
    for (const amount of ["1.0000001", "0", "-1", "abc", 1e-7, "1" + "0".repeat(21), "1" + "0".repeat(40)]) {
      const res = await transfer(apiKey, created.paymentLinkId, { amount });
      expect(res.status).toBe(400);
      expect(specOf(res.body)).toEqual({ message: expect.any(String) });
    }
    expect((await lookup(apiKey, created.paymentLinkId)).body.order).toMatchObject({
      status: "PENDING",
      receivedValue: 0,
    });
  });

  it("→ 404 { message } for a transfer to another merchant's deposit", async () => {
    const a = await seedMerchant();
    const b = await seedMerchant();
    const created = await newDeposit(a.apiKey, { value: 100, network: "bsc", asset: "USDT" });
    const res = await transfer(b.apiKey, created.paymentLinkId, { amount: "18.518519" });
    expect(res.status).toBe(404);
    expect(specOf(res.body)).toEqual({ message: expect.any(String) });
    expect((await lookup(a.apiKey, created.paymentLinkId)).body.order.status).toBe("PENDING");
  });
});

describe("deposit expiry", () => {
  it("PENDING past expiry with nothing received → FAILED on lookup, one event, nothing credited; later money is unapplied", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const created = await newDeposit(apiKey, { value: 100, network: "bsc", asset: "USDT" });
    await expireNow(created.paymentLinkId);
    const res = await lookup(apiKey, created.paymentLinkId);
    expect(res.status).toBe(200);
    expect(res.body.order.status).toBe("FAILED");
    expect((await lookup(apiKey, created.paymentLinkId)).body.order.status).toBe("FAILED");
    const evs = await statusEvents(res.body.order.metadata.orderId);
    expect(evs).toHaveLength(1);
    expect(evs[0].data).toMatchObject({
      status: "FAILED",
      previousStatus: "PENDING",
      paymentLinkId: created.paymentLinkId,
    });

    const late = await transfer(apiKey, created.paymentLinkId, { amount: "18.518519" });
    expect(late.body.order).toMatchObject({ status: "FAILED", receivedValue: 0, unappliedValue: 18.518519 });
    expect(await balance(apiKey)).toBe(0);
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);
    expect(await statusEvents(res.body.order.metadata.orderId)).toHaveLength(1);
  });

  it("a transfer that arrives after expiry (before any lookup) does not complete the order", async () => {
    const { apiKey } = await seedMerchant();
    const created = await newDeposit(apiKey, { value: 100, network: "bsc", asset: "USDT" });
    await expireNow(created.paymentLinkId);
    const late = await transfer(apiKey, created.paymentLinkId, { amount: "18.518519" });
    expect(late.status).toBe(200);
    expect(late.body.order).toMatchObject({ status: "FAILED", unappliedValue: 18.518519 });
    expect(await balance(apiKey)).toBe(0);
  });

  it("PARTIAL_ORDER past expiry stays PARTIAL_ORDER, becomes final, and is credited floor(received × rate) once", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 1_00 });
    const created = await newDeposit(apiKey, { value: 100, network: "bsc", asset: "USDT" });
    const part = await transfer(apiKey, created.paymentLinkId, { amount: "10.123457" });
    expect(part.body.order.status).toBe("PARTIAL_ORDER");
    expect(await balance(apiKey)).toBe(1_00);
    await expireNow(created.paymentLinkId);

    const res = await lookup(apiKey, created.paymentLinkId);
    // 10.123457 × 5.40 = 54.6666678 BRL → 5466 centavos (rounded down).
    expect(res.body.order).toMatchObject({
      status: "PARTIAL_ORDER",
      receivedValue: 10.123457,
      creditedValue: 54.66,
      final: true,
    });
    expect(await balance(apiKey)).toBe(1_00 + 5_466);
    // Looking again does not credit again.
    await lookup(apiKey, created.paymentLinkId);
    expect(await balance(apiKey)).toBe(1_00 + 5_466);

    const late = await transfer(apiKey, created.paymentLinkId, { amount: "8.395062" });
    expect(late.body.order).toMatchObject({
      status: "PARTIAL_ORDER",
      receivedValue: 10.123457,
      unappliedValue: 8.395062,
      creditedValue: 54.66,
    });
    expect(late.body.transfer).toMatchObject({ applied: 0, unapplied: 8.395062 });
    expect(await balance(apiKey)).toBe(1_00 + 5_466);
    expect(await balanceMatchesLedger(merchant.id)).toBe(1_00 + 5_466);

    const evs = await statusEvents(part.body.order.id);
    expect(evs.map((e) => [e.data.previousStatus, e.data.status, e.data.final])).toEqual([
      ["PENDING", "PARTIAL_ORDER", false],
      ["PARTIAL_ORDER", "PARTIAL_ORDER", true],
    ]);
    const { previousStatus: _p, ...closedView } = evs[1].data as Record<string, unknown>;
    expect(closedView).toEqual(res.body.order);
  });
});
