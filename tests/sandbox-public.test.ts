import { afterEach, describe, expect, it } from "vitest";
import { and, asc, eq } from "drizzle-orm";
import bolt11 from "bolt11";
import { inflateSync } from "node:zlib";
import { db } from "@/db";
import { events, onchainOrders, orders } from "@/db/schema";
import { resetEnvForTests } from "@/lib/env";
import { apiRouter } from "@/lib/api/endpoints";
import { encodeStaticBrCode } from "@/lib/pix/brcode";
import { SANDBOX_DEPOSIT_XPUB } from "@/lib/chain/sandbox-keys";
import { api, BASE, seedMerchant, specOf } from "./helpers";
import { balanceMatchesLedger } from "./support/ledger";

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

async function createOrder(apiKey: string, kind: "pix" | "exchange" | "lightning", body: Record<string, unknown>) {
  const path = {
    pix: "/api/v1/order/create/pix",
    exchange: "/api/v1/order/create",
    lightning: "/api/v1/order/create/lightning",
  }[kind];
  const res = await api("POST", path, { apiKey, body });
  expect(res.status).toBe(kind === "pix" ? 200 : 201);
  if (kind === "pix")
    return {
      id: res.body.pixOrder._id as string,
      paymentLinkId: res.body.pixOrder.paymentLinkId as string,
      brcode: res.body.qrCode as string,
    };
  return {
    id: res.body.order.id as string,
    paymentLinkId: res.body.order.paymentLinkId as string,
    invoice: res.body.order.invoice as string | undefined,
    satoshis: res.body.order.satoshis as number | undefined,
  };
}

const payOrder = (apiKey: string | undefined, id: string) =>
  api("POST", `/api/v1/sandbox/orders/${encodeURIComponent(id)}/pay`, { apiKey });

async function balance(apiKey: string): Promise<number> {
  const res = await api("GET", "/api/v1/account", { apiKey });
  expect(res.status).toBe(200);
  return res.body.merchant.balance;
}

const orderEvents = (orderId: string) =>
  db()
    .select()
    .from(events)
    .where(and(eq(events.subjectId, orderId), eq(events.type, "order.status_changed")))
    .orderBy(asc(events.seq));

/** Raw bytes of a response (the JSON helper would mangle a PNG). */
async function getRaw(path: string) {
  const res = await apiRouter.handle(new Request(BASE + path));
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

describe("POST /api/v1/sandbox/orders/{id}/pay", () => {
  it.each([
    ["pix", { value: 12.34, orderId: "REF-1" }, 1234],
    ["exchange", { value: 50, payerId: "payer-1" }, 5000],
    ["lightning", { value: 10, email: "cliente@example.com" }, 1000],
  ] as const)(
    "%s order → 200 { order } COMPLETED, balance + value, one event with previousStatus PENDING",
    async (kind, body, centavos) => {
      const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 1_00 });
      const created = await createOrder(apiKey, kind, body);
      const res = await payOrder(apiKey, created.id);
      expect(res.status).toBe(200);
      expect(res.body.order).toMatchObject({
        id: created.id,
        paymentLinkId: created.paymentLinkId,
        status: "COMPLETED",
        value: centavos / 100,
      });
      expect(typeof res.body.order.paidAt).toBe("string");
      expect(await balance(apiKey)).toBe(1_00 + centavos);
      expect(await balanceMatchesLedger(merchant.id)).toBe(1_00 + centavos);

      const look = await api("GET", `/api/v1/order/${created.id}`, { apiKey });
      expect(look.body.order.status).toBe("COMPLETED");

      const evs = await orderEvents(created.id);
      expect(evs).toHaveLength(1);
      expect(evs[0].merchantId).toBe(merchant.id);
      expect(evs[0].data).toMatchObject({
        id: created.id,
        status: "COMPLETED",
        previousStatus: "PENDING",
        value: centavos / 100,
      });
    },
  );

  it("accepts the payment link id too, and the Bearer: header form", async () => {
    const { apiKey } = await seedMerchant();
    const created = await createOrder(apiKey, "exchange", { value: 20 });
    const res = await api("POST", `/api/v1/sandbox/orders/${created.paymentLinkId}/pay`, {
      apiKey,
      authHeader: "bearer",
    });
    expect(res.status).toBe(200);
    expect(res.body.order.status).toBe("COMPLETED");
    expect(await balance(apiKey)).toBe(2000);
  });

  it("paying twice → 409 { message }, no double credit, no second event", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const created = await createOrder(apiKey, "pix", { value: 7.77 });
    expect((await payOrder(apiKey, created.id)).status).toBe(200);
    const again = await payOrder(apiKey, created.id);
    expect(again.status).toBe(409);
    expect(specOf(again.body)).toEqual({ message: expect.stringContaining("COMPLETED") });
    expect(await balance(apiKey)).toBe(777);
    expect(await balanceMatchesLedger(merchant.id)).toBe(777);
    expect(await orderEvents(created.id)).toHaveLength(1);
  });

  it("concurrent pays of one order credit it once", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const created = await createOrder(apiKey, "lightning", { value: 3 });
    const results = await Promise.all(Array.from({ length: 8 }, () => payOrder(apiKey, created.id)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(7);
    expect(await balanceMatchesLedger(merchant.id)).toBe(300);
    expect(await orderEvents(created.id)).toHaveLength(1);
  });

  it("paying an expired order → 409 and the order is CANCELLED, nothing credited", async () => {
    const { merchant, apiKey } = await seedMerchant();
    for (const kind of ["exchange", "lightning", "pix"] as const) {
      const created = await createOrder(apiKey, kind, kind === "pix" ? { value: 5, expiresIn: 60 } : { value: 5 });
      await db()
        .update(orders)
        .set({ expiresAt: new Date(Date.now() - 1000) })
        .where(eq(orders.id, created.id));
      const res = await payOrder(apiKey, created.id);
      expect(res.status).toBe(409);
      expect(specOf(res.body)).toEqual({ message: expect.any(String) });
      const look = await api("GET", `/api/v1/order/${created.id}`, { apiKey });
      expect(look.body.order.status).toBe("CANCELLED");
      const evs = await orderEvents(created.id);
      expect(evs.map((e) => [e.data.previousStatus, e.data.status])).toEqual([["PENDING", "CANCELLED"]]);
    }
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);
  });

  it("→ 404 { message } for another merchant's order and an unknown id, identical bodies; 401 without a key", async () => {
    const a = await seedMerchant();
    const b = await seedMerchant();
    const created = await createOrder(a.apiKey, "pix", { value: 1 });
    const foreign = await payOrder(b.apiKey, created.id);
    const unknown = await payOrder(b.apiKey, "00000000-0000-4000-8000-000000000000");
    const weird = await payOrder(b.apiKey, "\u0000abc");
    expect(foreign.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(weird.status).toBe(404);
    expect(specOf(foreign.body)).toEqual({ message: expect.any(String) });
    expect(foreign.body).toEqual(unknown.body);
    expect(weird.body).toEqual(unknown.body);
    expect(await balance(b.apiKey)).toBe(0);
    expect((await api("GET", `/api/v1/order/${created.id}`, { apiKey: a.apiKey })).body.order.status).toBe("PENDING");
    const unauth = await payOrder(undefined, created.id);
    expect(unauth.status).toBe(401);
    expect(specOf(unauth.body)).toEqual({ message: expect.any(String) });
  });
});

describe("sandbox helpers in live mode", () => {
  const saved = {
    mode: process.env.PAYMENTS_MODE,
    secret: process.env.AUTH_SECRET,
    xpub: process.env.DEPOSIT_XPUB,
    base: process.env.PUBLIC_BASE_URL,
  };
  afterEach(() => {
    for (const [k, v] of [
      ["PAYMENTS_MODE", saved.mode],
      ["AUTH_SECRET", saved.secret],
      ["DEPOSIT_XPUB", saved.xpub],
      ["PUBLIC_BASE_URL", saved.base],
    ] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    resetEnvForTests();
  });

  it("every helper answers 404 { message }, before authentication (they do not exist in live mode)", async () => {
    const { apiKey } = await seedMerchant();
    const created = await createOrder(apiKey, "pix", { value: 1 });
    const dep = await api("POST", "/api/v1/onchain/deposit", {
      apiKey,
      body: { value: 100, network: "bsc", asset: "USDT" },
    });
    const qrcode = encodeStaticBrCode({
      pixKey: "loja@example.com",
      merchantName: "Loja",
      merchantCity: "Natal",
      amountCentavos: 10_000,
    });
    const cp = await api("POST", "/api/v1/crypto-pix/onchain/pay", { apiKey, body: { qrcode, network: "bsc" } });

    process.env.PAYMENTS_MODE = "live";
    process.env.AUTH_SECRET = "x".repeat(40);
    process.env.DEPOSIT_XPUB = SANDBOX_DEPOSIT_XPUB;
    process.env.PUBLIC_BASE_URL = "https://pay.example.com";
    resetEnvForTests();

    const calls = [
      () => payOrder(apiKey, created.id),
      () =>
        api("POST", `/api/v1/sandbox/onchain/${dep.body.order.paymentLinkId}/transfer`, {
          apiKey,
          body: { amount: "18.518519" },
        }),
      () =>
        api("POST", `/api/v1/sandbox/crypto-pix/${cp.body.data.payCryptoPixId}/transfer`, {
          apiKey,
          body: { amount: "18.518519" },
        }),
      () => payOrder(undefined, created.id),
      () => payOrder("sk_live_0123456789abcdefghijABCDEFGHIJ0123456789", created.id),
    ];
    for (const c of calls) {
      const res = await c();
      expect(res.status).toBe(404);
      expect(specOf(res.body)).toEqual({ message: expect.any(String) });
    }
    // A sandbox key on a real endpoint in live mode is a 401 (the key's prefix does not match the mode).
    const account = await api("GET", "/api/v1/account", { apiKey });
    expect(account.status).toBe(401);

    process.env.PAYMENTS_MODE = "sandbox";
    resetEnvForTests();
    expect((await api("GET", `/api/v1/order/${created.id}`, { apiKey })).body.order.status).toBe("PENDING");
    expect(await balance(apiKey)).toBe(0);
  });
});

describe("GET /api/v1/public/payments/{paymentLinkId}", () => {
  function expectNothingPrivate(body: unknown, secrets: string[]) {
    const text = JSON.stringify(body);
    for (const s of secrets) expect(text).not.toContain(s);
    const keys = new Set<string>();
    const walk = (v: unknown) => {
      if (!v || typeof v !== "object") return;
      for (const [k, x] of Object.entries(v)) {
        keys.add(k);
        walk(x);
      }
    };
    walk(body);
    for (const k of [
      "merchantId",
      "merchant",
      "balance",
      "reference",
      "orderId",
      "orderRequest",
      "cpf",
      "cnpj",
      "email",
      "payerId",
      "id",
      "walletIndex",
      "apiKey",
    ]) {
      expect(keys.has(k), `public body has a "${k}" field`).toBe(false);
    }
  }

  it("pix → brcode; no auth; nothing private to the merchant", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 98_765 });
    const created = await createOrder(apiKey, "pix", {
      value: 45.67,
      orderId: "PEDIDO-SECRETO-1",
      cpf: "529.982.247-25",
      orderRequest: "REQ-XYZ-9",
      name: "Fulano Secreto",
    });
    const res = await api("GET", `/api/v1/public/payments/${created.paymentLinkId}`);
    expect(res.status).toBe(200);
    const p = res.body.payment;
    expect(p).toMatchObject({
      paymentLinkId: created.paymentLinkId,
      method: "pix",
      status: "PENDING",
      value: 45.67,
      currency: "BRL",
    });
    expect(p.payment.brcode).toBe(created.brcode);
    expect(p.merchantName).toBe(merchant.companyName);
    expectNothingPrivate(res.body, [
      merchant.id,
      created.id,
      "PEDIDO-SECRETO-1",
      "52998224725",
      "529.982.247-25",
      "REQ-XYZ-9",
      "Fulano Secreto",
      "98765",
      "987.65",
    ]);

    await payOrder(apiKey, created.id);
    const after = await api("GET", `/api/v1/public/payments/${created.paymentLinkId}`);
    expect(after.body.payment.status).toBe("COMPLETED");
    expect(typeof after.body.payment.paidAt).toBe("string");
  });

  it("lightning → invoice + satoshis", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const created = await createOrder(apiKey, "lightning", {
      value: 10,
      email: "segredo@example.com",
      name: "Beltrano",
    });
    const res = await api("GET", `/api/v1/public/payments/${created.paymentLinkId}`);
    expect(res.status).toBe(200);
    const p = res.body.payment;
    expect(p).toMatchObject({
      method: "lightning",
      value: 10,
      status: "PENDING",
      payment: { invoice: created.invoice, satoshis: 1819 },
    });
    expect(bolt11.decode(p.payment.invoice).satoshis).toBe(1819);
    expectNothingPrivate(res.body, [merchant.id, created.id, "segredo@example.com", "Beltrano"]);
  });

  it("exchange → qrCodeLink", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const created = await createOrder(apiKey, "exchange", {
      value: 50,
      payerId: "PAGADOR-77",
      merchant: { subMerchantId: "SUB-88" },
    });
    const res = await api("GET", `/api/v1/public/payments/${created.paymentLinkId}`);
    expect(res.status).toBe(200);
    const p = res.body.payment;
    expect(p).toMatchObject({ method: "exchange", value: 50, status: "PENDING" });
    expect(p.payment.qrCodeLink).toBe(`http://localhost:3000/api/v1/public/payments/${created.paymentLinkId}/qr.png`);
    expectNothingPrivate(res.body, [merchant.id, created.id, "PAGADOR-77", "SUB-88"]);
  });

  it("onchain → address, network, asset, amount; remaining is exact after a partial payment", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const dep = await api("POST", "/api/v1/onchain/deposit", {
      apiKey,
      body: { value: 100, network: "eth", asset: "USDT" },
    });
    expect(dep.status).toBe(201);
    const o = dep.body.order;
    const res = await api("GET", `/api/v1/public/payments/${o.paymentLinkId}`);
    expect(res.status).toBe(200);
    expect(res.body.payment).toMatchObject({
      method: "onchain",
      status: "PENDING",
      value: 100,
      payment: {
        address: o.address,
        network: "eth",
        asset: "USDT",
        amount: 18.518519,
        tokenAddress: "0xdAC17F958D2ee523a2206206994597C13D831ec7",
        remaining: 18.518519,
      },
    });
    // EIP-681 URI for wallets: token contract @ chain id, recipient and base units (6 decimals).
    expect(res.body.payment.payment.qrContent).toBe(
      `ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=${o.address}&uint256=18518519`,
    );
    expectNothingPrivate(res.body, [merchant.id, o.id]);

    await api("POST", `/api/v1/sandbox/onchain/${o.paymentLinkId}/transfer`, { apiKey, body: { amount: "10" } });
    const partial = await api("GET", `/api/v1/public/payments/${o.paymentLinkId}`);
    expect(partial.body.payment).toMatchObject({
      status: "PARTIAL_ORDER",
      payment: { received: 10, remaining: 8.518519 },
    });
    // The wallet is asked for what is still due, not the whole amount again.
    expect(partial.body.payment.payment.qrContent).toBe(
      `ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=${o.address}&uint256=8518519`,
    );
  });

  it("pix: the description for the payer and the bank's recipient name; refunds concluded, as refunded { value, at }", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const created = await createOrder(apiKey, "pix", {
      value: 80,
      orderId: "PEDIDO-PRIVADO-2",
      description: "Bolo de cenoura",
    });
    const open = (await api("GET", `/api/v1/public/payments/${created.paymentLinkId}`)).body.payment;
    expect(open).toMatchObject({ description: "Bolo de cenoura", payment: { recipientName: "PIXCRYPTO PAGAMENTOS" } });
    expect(open.refunded).toBeUndefined();
    expectNothingPrivate({ payment: open }, [merchant.id, created.id, "PEDIDO-PRIVADO-2"]);

    await payOrder(apiKey, created.id);
    expect((await api("POST", `/api/v1/order/${created.id}/refund`, { apiKey, body: { value: 30 } })).status).toBe(201);
    const partly = (await api("GET", `/api/v1/public/payments/${created.paymentLinkId}`)).body.payment;
    expect(partly).toMatchObject({ status: "COMPLETED", refunded: { value: 30, at: expect.any(String) } });
    expect((await api("POST", `/api/v1/order/${created.id}/refund`, { apiKey, body: {} })).status).toBe(201);
    const full = (await api("GET", `/api/v1/public/payments/${created.paymentLinkId}`)).body.payment;
    expect(full).toMatchObject({ status: "REFUND", refunded: { value: 80 } });
    expect(Date.parse(full.refunded.at)).toBeGreaterThanOrEqual(Date.parse(partly.refunded.at));
  });

  it("onchain: a deposit closed at its expiry partly paid is final, and money after it is unapplied", async () => {
    const { apiKey } = await seedMerchant();
    const o = (
      await api("POST", "/api/v1/onchain/deposit", { apiKey, body: { value: 100, network: "eth", asset: "USDT" } })
    ).body.order;
    await api("POST", `/api/v1/sandbox/onchain/${o.paymentLinkId}/transfer`, { apiKey, body: { amount: "10" } });
    const open = (await api("GET", `/api/v1/public/payments/${o.paymentLinkId}`)).body.payment;
    expect(open).toMatchObject({ status: "PARTIAL_ORDER", final: false, payment: { received: 10, unapplied: 0 } });
    await db()
      .update(onchainOrders)
      .set({ expiresAt: new Date(Date.now() - 60_000) })
      .where(eq(onchainOrders.id, o.id));
    await api("POST", `/api/v1/sandbox/onchain/${o.paymentLinkId}/transfer`, { apiKey, body: { amount: "3" } });
    const closed = (await api("GET", `/api/v1/public/payments/${o.paymentLinkId}`)).body.payment;
    expect(closed).toMatchObject({ status: "PARTIAL_ORDER", final: true, payment: { received: 10, unapplied: 3 } });
  });

  it("→ 404 { message } for an unknown or malformed id, for JSON and PNG alike", async () => {
    for (const id of ["unknownPaymentLink12345", "bad$id", "x".repeat(65)]) {
      const res = await api("GET", `/api/v1/public/payments/${encodeURIComponent(id)}`);
      expect(res.status).toBe(404);
      expect(specOf(res.body)).toEqual({ message: expect.any(String) });
      const png = await api("GET", `/api/v1/public/payments/${encodeURIComponent(id)}/qr.png`);
      expect(png.status).toBe(404);
      expect(specOf(png.body)).toEqual({ message: expect.any(String) });
    }
  });

  it("GET …/qr.png → 200 image/png (a decodable PNG) for every kind", async () => {
    const { apiKey } = await seedMerchant();
    const links = [
      (await createOrder(apiKey, "exchange", { value: 50 })).paymentLinkId,
      (await createOrder(apiKey, "pix", { value: 5 })).paymentLinkId,
      (await createOrder(apiKey, "lightning", { value: 5 })).paymentLinkId,
      (await api("POST", "/api/v1/onchain/deposit", { apiKey, body: { value: 100, network: "bsc", asset: "USDT" } }))
        .body.order.paymentLinkId,
    ];
    for (const link of links) {
      const res = await getRaw(`/api/v1/public/payments/${link}/qr.png`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/png");
      expect([...res.bytes.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
      // IHDR first, a square image; its IDAT data inflates (a well-formed PNG, not just a signature).
      expect(res.bytes.subarray(12, 16).toString("latin1")).toBe("IHDR");
      const width = res.bytes.readUInt32BE(16);
      expect(width).toBeGreaterThan(100);
      expect(res.bytes.readUInt32BE(20)).toBe(width);
      const idat: Buffer[] = [];
      for (let pos = 8; pos < res.bytes.length;) {
        const len = res.bytes.readUInt32BE(pos);
        const type = res.bytes.subarray(pos + 4, pos + 8).toString("latin1");
        if (type === "IDAT") idat.push(res.bytes.subarray(pos + 8, pos + 8 + len));
        pos += 12 + len;
      }
      expect(inflateSync(Buffer.concat(idat)).length).toBeGreaterThan(width);
      expect(Number(res.headers.get("content-length"))).toBe(res.bytes.length);
    }
  });
});
