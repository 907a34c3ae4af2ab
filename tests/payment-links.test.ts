import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "@/db";
import { ledgerEntries, onchainOrders, orders, paymentLinkSales } from "@/db/schema";
import { applyReceivedPix } from "@/lib/orders/pix-receipts";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/client-address";
import { api, seedMerchant } from "./helpers";

// Reusable payment links (docs/api.md#payment-links) against the real handlers and PostgreSQL: made,
// read, edited, paused; sold through their public page as orders of the rail the payer chose, within
// their amount bounds and their N-payment limit, under concurrency.

let addressSeq = 0;
/** Each call its own client address unless one is given: the per-address limit is tested on its own. */
const from = (address?: string) => ({ [CLIENT_ADDRESS_HEADER]: address ?? `198.51.100.${++addressSeq % 250}` });

async function createLink(apiKey: string, body: Record<string, unknown>, headers?: Record<string, string>) {
  const res = await api("POST", "/api/v1/payment-links", {
    apiKey,
    body: { title: "Bolo", rails: ["pix"], ...body },
    headers,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.paymentLink;
}

const slugOf = (link: { url: string }) => link.url.split("/").at(-1)!;

const sell = (link: { url: string }, body: Record<string, unknown>, address?: string) =>
  api("POST", `/api/v1/public/payment-links/${slugOf(link)}/orders`, {
    body: { rail: "pix", ...body },
    headers: from(address),
  });

const pay = (apiKey: string, paymentLinkId: string) =>
  api("POST", `/api/v1/sandbox/orders/${paymentLinkId}/pay`, { apiKey, body: {} });

const linkOrders = (linkId: string) =>
  db()
    .select()
    .from(orders)
    .where(sql`${orders.reference}->>'linkId' = ${linkId}`);

describe("POST /api/v1/payment-links", () => {
  it("→ 201 with its page, QR image and terms; an Idempotency-Key repeat answers the same link", async () => {
    const { apiKey } = await seedMerchant();
    const headers = { "idempotency-key": `pl-${Date.now()}` };
    const body = {
      title: "Bolo de cenoura",
      price: 45,
      maxQuantity: 5,
      rails: ["pix", "lightning", "onchain"],
      onchain: [{ network: "polygon", asset: "USDC" }],
      payerFields: ["name", "phone"],
      maxPayments: 30,
      reference: "bolos-dez",
      metadata: { loja: "centro" },
    };
    const link = await createLink(apiKey, body, headers);
    expect(link).toMatchObject({
      status: "ACTIVE",
      available: true,
      price: 45,
      minAmount: null,
      maxQuantity: 5,
      rails: ["pix", "lightning", "onchain"],
      onchain: [{ network: "polygon", asset: "USDC" }],
      payments: { paid: 0, pending: 0 },
      reference: "bolos-dez",
      metadata: { loja: "centro" },
      version: 1,
    });
    expect(link.url).toMatch(/\/pay\/link\/[A-Za-z0-9]{22}$/);
    const again = await api("POST", "/api/v1/payment-links", {
      apiKey,
      body,
      headers,
    });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.paymentLink.id).toBe(link.id);

    const qr = await api("GET", `/api/v1/public/payment-links/${slugOf(link)}/qr.png`);
    expect(qr.status).toBe(200);
    expect(qr.headers.get("content-type")).toBe("image/png");
  });

  it("→ 400 for terms that cannot sell", async () => {
    const { apiKey } = await seedMerchant();
    const refused = async (body: Record<string, unknown>, message: RegExp) => {
      const res = await api("POST", "/api/v1/payment-links", { apiKey, body: { title: "X", rails: ["pix"], ...body } });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.message).toMatch(message);
    };
    await refused({ price: 10, minAmount: 5 }, /without a price/);
    await refused({ minAmount: 50, maxAmount: 10 }, /minAmount must not be greater/);
    await refused({ rails: ["onchain"] }, /at least one \{ network, asset \}/);
    await refused({ rails: ["onchain"], onchain: [{ network: "polygon", asset: "BUSD" }] }, /token not supported/);
    await refused({ rails: [] }, /at least one rail/);
    await refused({ maxQuantity: 3 }, /needs a fixed price/);
    await refused({ price: 10.123 }, /2 decimal places/);
    await refused({ availableUntil: "2020-01-01T00:00:00.000Z" }, /future/);
  });
});

describe("the public page", () => {
  it("GET /api/v1/public/payment-links/{slug} → what is sold, nothing private; no order is made by opening it", async () => {
    const { apiKey, merchant } = await seedMerchant({ companyName: "Doceria da Ana" });
    const link = await createLink(apiKey, { price: 20, reference: "segredo", metadata: { a: "b" } });
    const res = await api("GET", `/api/v1/public/payment-links/${slugOf(link)}`);
    expect(res.status).toBe(200);
    expect(res.body.paymentLink).toMatchObject({
      merchantName: "Doceria da Ana",
      title: "Bolo",
      price: 20,
      available: true,
    });
    expect(JSON.stringify(res.body)).not.toContain("segredo");
    expect((await db().select().from(orders).where(eq(orders.merchantId, merchant.id))).length).toBe(0);
    expect((await api("GET", "/api/v1/public/payment-links/nope0000000000000000")).status).toBe(404);
  });

  it("a sale is the payer's own order of the chosen rail, carrying the link's id and reference and what the payer gave", async () => {
    const { apiKey } = await seedMerchant();
    const link = await createLink(apiKey, {
      price: 45,
      maxQuantity: 3,
      rails: ["pix", "lightning", "onchain"],
      onchain: [{ network: "polygon", asset: "USDC" }],
      payerFields: ["name", "phone"],
      reference: "bolos-dez",
      metadata: { loja: "centro" },
    });
    const missing = await sell(link, { payer: { name: "Maria" } });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toMatch(/payer.phone is required/);
    const tooMany = await sell(link, { quantity: 4, payer: { name: "Maria", phone: "11987654321" } });
    expect(tooMany.status).toBe(400);

    const res = await sell(link, { quantity: 2, payer: { name: "Maria Souza", phone: "(11) 98765-4321" } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.order).toMatchObject({ type: "pix", value: 90 });
    const order = await api("GET", `/api/v1/order/${res.body.order.paymentLinkId}`, { apiKey });
    expect(order.body.order).toMatchObject({ type: "pix", value: 90, status: "PENDING", metadata: { loja: "centro" } });
    expect(order.body.order.expiresAt).toBeDefined();
    const [row] = await linkOrders(link.id);
    expect(row.reference).toMatchObject({
      linkId: link.id,
      linkReference: "bolos-dez",
      name: "Maria Souza",
      phone: "11987654321",
    });

    const ln = await sell(link, { rail: "lightning", payer: { name: "João", phone: "11987654321" } });
    expect(ln.status, JSON.stringify(ln.body)).toBe(201);
    expect(ln.body.order.type).toBe("lightning");

    const wrongToken = await sell(link, {
      rail: "onchain",
      network: "eth",
      asset: "USDT",
      payer: { name: "J", phone: "11987654321" },
    });
    expect(wrongToken.status).toBe(400);
    const chain = await sell(link, {
      rail: "onchain",
      network: "polygon",
      asset: "USDC",
      payer: { name: "J", phone: "11987654321" },
    });
    expect(chain.status, JSON.stringify(chain.body)).toBe(201);
    const [deposit] = await db()
      .select()
      .from(onchainOrders)
      .where(eq(onchainOrders.paymentLinkId, chain.body.order.paymentLinkId));
    expect(deposit.valueCentavos).toBe(4500);
    const sales = await db().select().from(paymentLinkSales).where(eq(paymentLinkSales.linkId, link.id));
    expect(sales.map((s) => s.orderType).sort()).toEqual(["lightning", "onchain", "pix"]);

    const exchange = await sell(link, { rail: "exchange", payer: { name: "J", phone: "11987654321" } });
    expect(exchange.status).toBe(400);
    expect(exchange.body.message).toMatch(/does not offer exchange/);
  });

  it("a payer-chosen amount outside its bounds is refused (400); within them it is the order's value", async () => {
    const { apiKey } = await seedMerchant();
    const link = await createLink(apiKey, { minAmount: 10, maxAmount: 500 });
    for (const amount of [9.99, 500.01, 0]) {
      const res = await sell(link, { amount });
      expect(res.status, `${amount}: ${JSON.stringify(res.body)}`).toBe(400);
    }
    expect((await sell(link, {})).status).toBe(400);
    expect((await sell(link, { amount: 9.99 })).body.message).toMatch(/at least 10/);
    expect((await sell(link, { amount: 500.01 })).body.message).toMatch(/at most 500/);
    expect((await linkOrders(link.id)).length).toBe(0);
    const ok = await sell(link, { amount: 123.45 });
    expect(ok.status).toBe(201);
    expect(ok.body.order.value).toBe(123.45);
    const fixed = await createLink(apiKey, { price: 10 });
    expect((await sell(fixed, { amount: 12 })).status).toBe(400);
  });

  it("creations are limited per link and client address (429)", async () => {
    const { apiKey } = await seedMerchant();
    const link = await createLink(apiKey, { price: 5 });
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await sell(link, {}, "203.0.113.9")).status);
    expect(statuses.slice(0, 10).every((s) => s === 201)).toBe(true);
    expect(statuses[10]).toBe(429);
    expect((await sell(link, {}, "203.0.113.10")).status).toBe(201);
  });
});

describe("the N-payment limit", () => {
  it("a link sold 50 times concurrently up to its limit of 30: exactly 30 orders, 30 paid, the rest 409", async () => {
    const { apiKey } = await seedMerchant();
    const link = await createLink(apiKey, { price: 12.5, maxPayments: 30 });
    const results = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const res = await sell(link, {});
        if (res.status !== 201) return res.status;
        const paid = await pay(apiKey, res.body.order.paymentLinkId);
        expect(paid.status, JSON.stringify(paid.body)).toBe(200);
        return 201;
      }),
    );
    expect(results.filter((s) => s === 201).length).toBe(30);
    expect(results.filter((s) => s === 409).length).toBe(20);
    const made = await linkOrders(link.id);
    expect(made.length).toBe(30);
    expect(made.filter((o) => o.status === "COMPLETED").length).toBe(30);
    const after = await api("GET", `/api/v1/payment-links/${link.id}`, { apiKey });
    expect(after.body.paymentLink).toMatchObject({
      payments: { paid: 30, pending: 0 },
      available: false,
      unavailableReason: "sold_out",
    });
    const late = await sell(link, {});
    expect(late.status).toBe(409);
    expect(late.body.message).toMatch(/reached its number of payments/);
  }, 120_000);

  it("pending orders hold their place; one cancelled at its expiry frees it", async () => {
    const { apiKey } = await seedMerchant();
    const link = await createLink(apiKey, { price: 3, maxPayments: 2 });
    const a = await sell(link, {});
    const b = await sell(link, {});
    expect([a.status, b.status]).toEqual([201, 201]);
    expect((await sell(link, {})).status).toBe(409);
    await db()
      .update(orders)
      .set({ status: "CANCELLED" })
      .where(and(eq(orders.paymentLinkId, a.body.order.paymentLinkId)));
    expect((await sell(link, {})).status).toBe(201);
  });
});

describe("a payment that arrives once the limit is reached", () => {
  it("is accepted: an order cancelled at its expiry but paid in time completes, the link counts it and sells no more", async () => {
    const { apiKey, merchant } = await seedMerchant();
    const link = await createLink(apiKey, { price: 7, maxPayments: 1 });
    const first = await sell(link, {});
    expect(first.status).toBe(201);
    const [order] = await linkOrders(link.id);
    // Its expiry passes and the sweep cancels it: its place is free, and another payer takes it and pays.
    const paidAt = new Date(Date.now() - 60_000);
    await db()
      .update(orders)
      .set({ status: "CANCELLED", expiresAt: new Date(Date.now() - 30_000) })
      .where(eq(orders.id, order.id));
    const second = await sell(link, {});
    expect(second.status).toBe(201);
    expect((await pay(apiKey, second.body.order.paymentLinkId)).status).toBe(200);
    // Then the PSP reports the first order's PIX, made before its expiry: it is applied, never refused.
    const outcome = await applyReceivedPix(
      { endToEndId: `E2E${Date.now()}`, txid: order.txid, valueCentavos: 700, paidAt, chave: null },
      "poll",
    );
    expect(outcome).toMatchObject({ applied: true });
    const after = await api("GET", `/api/v1/payment-links/${link.id}`, { apiKey });
    expect(after.body.paymentLink).toMatchObject({ payments: { paid: 2, pending: 0 }, unavailableReason: "sold_out" });
    expect((await sell(link, {})).status).toBe(409);
    const credited = await db()
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.merchantId, merchant.id), eq(ledgerEntries.kind, "order_credit")));
    expect(credited.map((e) => e.amountCentavos)).toEqual([700, 700]);
  });
});

describe("pause, resume, edit, sales", () => {
  it("a paused link refuses new orders while orders it made are paid and complete", async () => {
    const { apiKey } = await seedMerchant();
    const link = await createLink(apiKey, { price: 30 });
    const first = await sell(link, {});
    expect(first.status).toBe(201);
    const paused = await api("POST", `/api/v1/payment-links/${link.id}/pause`, { apiKey, body: {} });
    expect(paused.status).toBe(200);
    expect(paused.body.paymentLink).toMatchObject({ status: "PAUSED", available: false, unavailableReason: "paused" });
    const refused = await sell(link, {});
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/paused/);
    const page = await api("GET", `/api/v1/public/payment-links/${slugOf(link)}`);
    expect(page.body.paymentLink).toMatchObject({ available: false, unavailableReason: "paused" });
    const paid = await pay(apiKey, first.body.order.paymentLinkId);
    expect(paid.status).toBe(200);
    expect(paid.body.order.status).toBe("COMPLETED");
    const after = await api("GET", `/api/v1/payment-links/${link.id}`, { apiKey });
    expect(after.body.paymentLink.payments).toEqual({ paid: 1, pending: 0 });
    const resumed = await api("POST", `/api/v1/payment-links/${link.id}/resume`, { apiKey, body: {} });
    expect(resumed.body.paymentLink.status).toBe("ACTIVE");
    expect((await sell(link, {})).status).toBe(201);
  });

  it("an edit changes what later payers pay, never what was sold; sales list each at its own price and version", async () => {
    const { apiKey } = await seedMerchant();
    const link = await createLink(apiKey, { price: 45 });
    const before = await sell(link, {});
    const edited = await api("PATCH", `/api/v1/payment-links/${link.id}`, {
      apiKey,
      body: { price: 50, title: "Bolo grande" },
    });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect(edited.body.paymentLink).toMatchObject({ price: 50, title: "Bolo grande", version: 2 });
    const after = await sell(link, {});
    expect(after.body.order.value).toBe(50);
    const old = await api("GET", `/api/v1/order/${before.body.order.paymentLinkId}`, { apiKey });
    expect(old.body.order.value).toBe(45);
    await pay(apiKey, before.body.order.paymentLinkId);

    const open = await api("PATCH", `/api/v1/payment-links/${link.id}`, {
      apiKey,
      body: { price: null, minAmount: 5 },
    });
    expect(open.body.paymentLink).toMatchObject({ price: null, minAmount: 5, maxAmount: null, version: 3 });
    const bad = await api("PATCH", `/api/v1/payment-links/${link.id}`, {
      apiKey,
      body: { minAmount: 10, maxAmount: 1 },
    });
    expect(bad.status).toBe(400);

    const page1 = await api("GET", `/api/v1/payment-links/${link.id}/sales?limit=1`, { apiKey });
    expect(page1.status).toBe(200);
    expect(page1.body.sales).toHaveLength(1);
    expect(page1.body.sales[0]).toMatchObject({ value: 50, linkVersion: 2, status: "PENDING", paidAt: null });
    const page2 = await api("GET", `/api/v1/payment-links/${link.id}/sales?limit=1&cursor=${page1.body.nextCursor}`, {
      apiKey,
    });
    expect(page2.body.sales[0]).toMatchObject({ value: 45, linkVersion: 1, status: "COMPLETED" });
    expect(page2.body.nextCursor).toBeNull();
  });

  it("lists the merchant's links only; another merchant's id answers 404", async () => {
    const a = await seedMerchant();
    const b = await seedMerchant();
    const mine = await createLink(a.apiKey, { price: 1, reference: "ref-a" });
    await createLink(a.apiKey, { price: 2 });
    const list = await api("GET", "/api/v1/payment-links?limit=1", { apiKey: a.apiKey });
    expect(list.body.paymentLinks).toHaveLength(1);
    expect(list.body.nextCursor).not.toBeNull();
    const byRef = await api("GET", "/api/v1/payment-links?reference=ref-a", { apiKey: a.apiKey });
    expect(byRef.body.paymentLinks.map((l: { id: string }) => l.id)).toEqual([mine.id]);
    expect((await api("GET", `/api/v1/payment-links/${mine.id}`, { apiKey: b.apiKey })).status).toBe(404);
    expect((await api("POST", `/api/v1/payment-links/${mine.id}/pause`, { apiKey: b.apiKey, body: {} })).status).toBe(
      404,
    );
    expect((await api("GET", "/api/v1/payment-links", { apiKey: b.apiKey })).body.paymentLinks).toEqual([]);
  });
});
