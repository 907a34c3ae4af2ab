import { describe, expect, it } from "vitest";
import bolt11 from "bolt11";
import { hasError, isStaticPix, parsePix } from "pix-utils";
import {
  createExchangeOrderEndpoint,
  createLightningOrderEndpoint,
  createPixOrderEndpoint,
  getOrderEndpoint,
} from "@/lib/orders/endpoints";
import { nodePublicKey, SANDBOX_LN_NODE_KEY } from "@/lib/providers/lightning/bolt11-sign";
import { createPixOrderResponse } from "@/lib/orders/schemas";
import { call, seedMerchant, specOf } from "./helpers";
import { json } from "./support/json";

const PIX = "/api/v1/order/create/pix";

describe("POST /api/v1/order/create/pix", () => {
  it("→ 200 with pixOrder and a valid BR Code paying the service's key for the exact value", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const res = await call(createPixOrderEndpoint, {
      path: PIX,
      apiKey,
      body: { value: 123.45, orderId: "A-1", cpf: "529.982.247-25" },
    });
    const body = json(createPixOrderResponse, res);
    expect(body.message).toEqual(expect.any(String));
    const o = body.pixOrder;
    expect(o).toMatchObject({
      merchant: merchant.id,
      value: 123.45,
      status: "PENDING",
      currency: "BRL",
      removedAt: null,
      splits: [],
      __v: 0,
    });
    for (const f of ["provider", "hash", "universalUrl", "_id", "paymentLinkId", "createdAt", "updatedAt"] as const)
      expect(typeof o[f]).toBe("string");
    expect(o.universalUrl).toBe(`http://localhost:3000/pay/${o.paymentLinkId}`);

    const pix = parsePix(body.qrCode);
    if (hasError(pix) || !isStaticPix(pix)) throw new Error("pix-utils refused the code");
    expect(pix.pixKey).toBe("7d9f0335-8dcc-4054-9bf9-0dbd61d36906");
    expect(pix.transactionAmount).toBe(123.45);
    expect(pix.txid).toMatch(/^[A-Za-z0-9]{25}$/);
  });

  it("→ 200 with the Bearer: header form too", async () => {
    const { apiKey } = await seedMerchant();
    const res = await call(createPixOrderEndpoint, { path: PIX, apiKey, authHeader: "bearer", body: { value: 1 } });
    expect(res.status).toBe(200);
  });

  it("gives every order its own txid", async () => {
    const { apiKey } = await seedMerchant();
    const codes = await Promise.all(
      [1, 2, 3, 4, 5].map(() => call(createPixOrderEndpoint, { path: PIX, apiKey, body: { value: 10 } })),
    );
    const txids = codes.map((c) => {
      const p = parsePix(c.body.qrCode);
      if (hasError(p) || !isStaticPix(p)) throw new Error("bad code");
      return p.txid;
    });
    expect(new Set(txids).size).toBe(5);
  });

  it("→ 400 { message, details: { pixKey, identifier } } when the merchant has no PIX key", async () => {
    const { merchant, apiKey } = await seedMerchant({ pixKey: null });
    const res = await call(createPixOrderEndpoint, { path: PIX, apiKey, body: { value: 10 } });
    expect(res.status).toBe(400);
    expect(specOf(res.body)).toEqual({
      message: expect.any(String),
      details: { pixKey: null, identifier: merchant.id },
    });
  });

  it("→ 401 { message } without an authorization header", async () => {
    const res = await call(createPixOrderEndpoint, { path: PIX, body: { value: 10 } });
    expect(res.status).toBe(401);
    expect(specOf(res.body)).toEqual({ message: expect.stringContaining("Missing API key") });
  });

  it.each([
    ["a string", "10"],
    ["null", null],
    ["zero", 0],
    ["negative", -5],
    ["3 decimals", 10.001],
    ["over the maximum", 1_000_000.01],
  ])("→ 400 { message } when value is %s", async (_label, value) => {
    const { apiKey } = await seedMerchant();
    const res = await call(createPixOrderEndpoint, { path: PIX, apiKey, body: { value } });
    expect(res.status).toBe(400);
    expect(specOf(res.body)).toEqual({ message: expect.stringContaining("value") });
  });

  it("→ 400 on an invalid CPF, and on malformed JSON", async () => {
    const { apiKey } = await seedMerchant();
    const bad = await call(createPixOrderEndpoint, { path: PIX, apiKey, body: { value: 10, cpf: "12345678900" } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain("cpf");
    const malformed = await call(createPixOrderEndpoint, { path: PIX, apiKey, rawBody: "{value: 10" });
    expect(malformed.status).toBe(400);
    expect(specOf(malformed.body)).toEqual({ message: "Malformed JSON body" });
  });

  it("→ 413 on a body over 64 KiB", async () => {
    const { apiKey } = await seedMerchant();
    const res = await call(createPixOrderEndpoint, {
      path: PIX,
      apiKey,
      body: { value: 10, name: "x".repeat(70_000) },
    });
    expect(res.status).toBe(413);
    expect(res.body.message).toContain("larger than");
  });
});

describe("POST /api/v1/order/create (exchange wallet)", () => {
  it("→ 201 with the order fields of the creation view", async () => {
    const { apiKey } = await seedMerchant();
    const res = await call(createExchangeOrderEndpoint, {
      path: "/api/v1/order/create",
      apiKey,
      body: { value: 50, payerId: "p1", merchant: { subMerchantId: "s1" } },
    });
    expect(res.status).toBe(201);
    const o = res.body.order;
    expect(o).toMatchObject({ value: 50, status: "PENDING" });
    expect(o.qrCodeLink).toBe(`http://localhost:3000/api/v1/public/payments/${o.paymentLinkId}/qr.png`);
    expect(o.link).toBe(`http://localhost:3000/pay/${o.paymentLinkId}`);
    expect(o.invoice).toBeUndefined();
    expect(new Date(o.expiresAt).getTime() - new Date(o.createdAt).getTime()).toBeCloseTo(30 * 60 * 1000, -3);
  });

  it("→ 400 { success: false, error } on an invalid value, 401 likewise without a key", async () => {
    const { apiKey } = await seedMerchant();
    const bad = await call(createExchangeOrderEndpoint, {
      path: "/api/v1/order/create",
      apiKey,
      body: { value: "abc" },
    });
    expect(bad.status).toBe(400);
    expect(specOf(bad.body)).toEqual({ success: false, error: expect.stringContaining("value") });
    const unauth = await call(createExchangeOrderEndpoint, {
      path: "/api/v1/order/create",
      apiKey: "sk_test_wrongwrongwrongwrongwrongwrongwrongwrong",
      body: { value: 1 },
    });
    expect(unauth.status).toBe(401);
    expect(specOf(unauth.body)).toEqual({ success: false, error: "Invalid API key" });
  });
});

describe("POST /api/v1/order/create/lightning", () => {
  it("→ 201 with a signed BOLT11 invoice for ceil(value / BTC_BRL × 1e8) satoshis, 900 s expiry", async () => {
    const { apiKey } = await seedMerchant();
    const res = await call(createLightningOrderEndpoint, {
      path: "/api/v1/order/create/lightning",
      apiKey,
      body: { value: 10, email: "a@b.com", name: "Ana" },
    });
    expect(res.status).toBe(201);
    const o = res.body.order;
    expect(o.value).toBe(10);
    expect(o.satoshis).toBe(1819); // 10 / 550000 × 1e8 = 1818.18… ↑
    const decoded = bolt11.decode(o.invoice);
    expect(decoded.satoshis).toBe(1819);
    expect(decoded.payeeNodeKey).toBe(nodePublicKey(SANDBOX_LN_NODE_KEY));
    expect(decoded.tags.find((t) => t.tagName === "expire_time")?.data).toBe(900);
    expect(new Date(o.expiresAt).getTime()).toBe((decoded.timeExpireDate ?? 0) * 1000);
    expect(o.qrCodeLink).toBeUndefined();
  });

  it("→ 400 { success: false, error } on a bad e-mail", async () => {
    const { apiKey } = await seedMerchant();
    const res = await call(createLightningOrderEndpoint, {
      path: "/api/v1/order/create/lightning",
      apiKey,
      body: { value: 10, email: "nope" },
    });
    expect(res.status).toBe(400);
    expect(specOf(res.body)).toEqual({ success: false, error: expect.stringContaining("email") });
  });
});

describe("GET /api/v1/order/{id}", () => {
  it("finds an order by id and by payment link id, with providerDetails only for Lightning", async () => {
    const { apiKey } = await seedMerchant();
    const pix = await call(createPixOrderEndpoint, { path: PIX, apiKey, body: { value: 7.5 } });
    for (const id of [pix.body.pixOrder._id, pix.body.pixOrder.paymentLinkId]) {
      const res = await call(getOrderEndpoint, { apiKey, params: { id } });
      expect(res.status).toBe(200);
      expect(res.body.order).toMatchObject({
        id: pix.body.pixOrder._id,
        value: 7.5,
        status: "PENDING",
        brcode: pix.body.qrCode,
      });
      expect(res.body.providerDetails).toBeUndefined();
      expect(res.body.order.invoice).toBeUndefined();
    }
    const ln = await call(createLightningOrderEndpoint, {
      path: "/api/v1/order/create/lightning",
      apiKey,
      body: { value: 20 },
    });
    const res = await call(getOrderEndpoint, { apiKey, params: { id: ln.body.order.id } });
    expect(res.body.order.invoice).toBe(ln.body.order.invoice);
    expect(res.body.providerDetails.success).toBe(true);
    expect(res.body.providerDetails.data).toMatchObject({
      status: "unpaid",
      amount: ln.body.order.satoshis,
      fiat_value: 20,
      currency: "BRL",
    });
  });

  it("→ 404 { success: false, error } for an unknown id and for another merchant's order", async () => {
    const a = await seedMerchant();
    const b = await seedMerchant();
    const pix = await call(createPixOrderEndpoint, { path: PIX, apiKey: a.apiKey, body: { value: 1 } });
    const unknown = await call(getOrderEndpoint, { apiKey: a.apiKey, params: { id: "nope" } });
    const foreign = await call(getOrderEndpoint, { apiKey: b.apiKey, params: { id: pix.body.pixOrder._id } });
    expect(unknown.status).toBe(404);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(unknown.body);
    expect(specOf(unknown.body)).toEqual({ success: false, error: "Order not found" });
  });
});

describe("creates and lookups arriving together (batched into shared statements)", () => {
  it("give every create its own order, each found by its merchant alone", async () => {
    const a = await seedMerchant();
    const b = await seedMerchant();
    const creates = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        call(createPixOrderEndpoint, {
          path: PIX,
          apiKey: i % 2 ? a.apiKey : b.apiKey,
          body: { value: i + 1, orderId: `c-${i}` },
        }),
      ),
    );
    expect(creates.map((r) => r.status)).toEqual(creates.map(() => 200));
    expect(new Set(creates.map((r) => r.body.pixOrder._id)).size).toBe(60);
    // Every merchant's lookups at once, of its own orders and of the other's.
    const lookups = await Promise.all(
      creates.flatMap((r, i) => [
        call(getOrderEndpoint, { apiKey: i % 2 ? a.apiKey : b.apiKey, params: { id: r.body.pixOrder._id } }),
        call(getOrderEndpoint, { apiKey: i % 2 ? b.apiKey : a.apiKey, params: { id: r.body.pixOrder._id } }),
      ]),
    );
    creates.forEach((r, i) => {
      const own = lookups[2 * i];
      const foreign = lookups[2 * i + 1];
      expect(own.status).toBe(200);
      expect(own.body.order).toMatchObject({ id: r.body.pixOrder._id, value: i + 1, brcode: r.body.qrCode });
      expect(foreign.status).toBe(404);
    });
  });

  it("answers a create whose batch failed on its own: the bad one fails, the others are written once", async () => {
    const { createPixOrder } = await import("@/lib/orders/service");
    const { db } = await import("@/db");
    const { orders } = await import("@/db/schema");
    const { inArray } = await import("drizzle-orm");
    const { merchant } = await seedMerchant();
    // A value over the column's CHECK cannot come through the API; here it makes one row of a batch fail.
    const results = await Promise.allSettled(
      [100, 200, -5, 300, 400, 500].map((value) => createPixOrder(merchant, { value } as never)),
    );
    expect(results.map((r) => r.status)).toEqual([
      "fulfilled",
      "fulfilled",
      "rejected",
      "fulfilled",
      "fulfilled",
      "fulfilled",
    ]);
    const ids = results.flatMap((r) => (r.status === "fulfilled" ? [r.value.id] : []));
    const stored = await db()
      .select({ id: orders.id })
      .from(orders)
      .where(inArray(orders.merchantId, [merchant.id]));
    expect(stored.map((o) => o.id).sort()).toEqual(ids.sort());
  });
});

describe("the order a create returns", () => {
  it("is the row as stored, field for field, for every kind (the INSERT returns only what PostgreSQL decides)", async () => {
    const { createExchangeOrder, createLightningOrder, createPixOrder } = await import("@/lib/orders/service");
    const { db } = await import("@/db");
    const { orders } = await import("@/db/schema");
    const { eq } = await import("drizzle-orm");
    const { merchant } = await seedMerchant();
    const created = [
      await createPixOrder(merchant, { value: 12345, orderId: "A-1", name: "Zé", expiresIn: 600 } as never),
      await createPixOrder(merchant, { value: 1 } as never),
      await createExchangeOrder(merchant, { value: 999, payerId: "p-1", merchant: { subMerchantId: "s-1" } } as never),
      await createLightningOrder(merchant, { value: 2599, email: "a@b.co", name: "Ana" } as never),
    ];
    for (const order of created) {
      const [stored] = await db().select().from(orders).where(eq(orders.id, order.id));
      expect(order).toStrictEqual(stored);
      expect(Object.keys(order)).toEqual(Object.keys(stored));
    }
    // The numeric column's own rounding, not the quote's text, is what a create hands back.
    expect(created[3].rate).toMatch(/^\d+\.\d{18}$/);
  });
});
