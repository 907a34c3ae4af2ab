import { afterEach, describe, expect, it } from "vitest";
import { and, asc, eq } from "drizzle-orm";
import { db } from "@/db";
import { events, ledgerEntries, orderRefunds, orders, pixReceipts } from "@/db/schema";
import { completeOrder } from "@/lib/orders/service";
import { overrideProvidersForTests } from "@/lib/providers";
import { advanceRefund, providerRefundId } from "@/lib/refunds/machine";
import { runSweep } from "@/lib/worker";
import { faultyRefunds } from "./fixtures/faulty-refund";
import { createExchangeOrderResponse, createPixOrderResponse } from "@/lib/orders/schemas";
import { refundOrderResponse } from "@/lib/refunds/schemas";
import { api, seedMerchant, specOf } from "./helpers";
import { json } from "./support/json";
import { balanceMatchesLedger } from "./support/ledger";

// Refunds of PIX and exchange-wallet orders (docs/api.md#refunds), against the real handlers and PostgreSQL.
// And a refund whose answer was lost (docs/providers.md#an-outcome-we-do-not-know-is-not-a-failure) stays PENDING, debited, until the provider's own word.

afterEach(() => overrideProvidersForTests(undefined));

const refundPath = (id: string) => `/api/v1/order/${id}/refund`;

async function refund(
  apiKey: string,
  orderId: string,
  body: Record<string, unknown> = {},
  headers?: Record<string, string>,
) {
  return api("POST", refundPath(orderId), { apiKey, body, headers });
}

async function paidPixOrder(apiKey: string, value: number): Promise<string> {
  const created = json(
    createPixOrderResponse,
    await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value } }),
  );
  const id = created.pixOrder._id;
  const paid = await api("POST", `/api/v1/sandbox/orders/${id}/pay`, { apiKey });
  expect(paid.status, JSON.stringify(paid.body)).toBe(200);
  return id;
}

async function paidExchangeOrder(apiKey: string, value: number): Promise<string> {
  const created = json(
    createExchangeOrderResponse,
    await api("POST", "/api/v1/order/create", { apiKey, body: { value } }),
    201,
  );
  const id = created.order.id;
  expect((await api("POST", `/api/v1/sandbox/orders/${id}/pay`, { apiKey })).status).toBe(200);
  return id;
}

const orderRow = async (id: string) => (await db().select().from(orders).where(eq(orders.id, id)))[0];
const refundRows = (orderId: string) =>
  db().select().from(orderRefunds).where(eq(orderRefunds.orderId, orderId)).orderBy(asc(orderRefunds.createdAt));
const refundLedger = (merchantId: string) =>
  db()
    .select({ kind: ledgerEntries.kind, amount: ledgerEntries.amountCentavos, refId: ledgerEntries.refId })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.merchantId, merchantId), eq(ledgerEntries.refType, "refund")))
    .orderBy(asc(ledgerEntries.createdAt), asc(ledgerEntries.kind));
const eventsOf = (orderId: string) =>
  db().select().from(events).where(eq(events.subjectId, orderId)).orderBy(asc(events.seq));
const lookup = (apiKey: string, id: string) => api("GET", `/api/v1/order/${id}`, { apiKey });

describe("POST /api/v1/order/{id}/refund", () => {
  it("→ 201 COMPLETED for a full refund of a PIX order: order REFUND, ledger debited once, events in order", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const id = await paidPixOrder(apiKey, 100);
    expect(await balanceMatchesLedger(merchant.id)).toBe(10_000);

    const res = await refund(apiKey, id, { value: 100, reason: "Produto devolvido" });
    const body = json(refundOrderResponse, res, 201);
    expect(body).toEqual({
      refund: {
        id: expect.any(String),
        orderId: id,
        value: 100,
        status: "COMPLETED",
        createdAt: expect.any(String),
        metadata: {},
      },
    });
    // The contract's fields first, in its order; metadata is added (docs/api.md#metadata-and-your-references).
    expect(Object.keys(body.refund)).toEqual(["id", "orderId", "value", "status", "createdAt", "metadata"]);

    expect(await orderRow(id)).toMatchObject({ status: "REFUND" });
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);
    expect(await refundLedger(merchant.id)).toEqual([
      { kind: "refund_debit", amount: -10_000, refId: res.body.refund.id },
    ]);

    // What was refunded: the end-to-end id of the PIX that paid the order, with our id as the provider's.
    const [receipt] = await db().select().from(pixReceipts).where(eq(pixReceipts.orderId, id));
    const [row] = await refundRows(id);
    expect(row).toMatchObject({
      status: "COMPLETED",
      provider: "sandbox-pix",
      paymentRef: receipt.endToEndId,
      providerRef: providerRefundId(row),
      reason: "Produto devolvido",
      attempts: 1,
      sentAt: expect.any(Date),
      decidedAt: expect.any(Date),
      leaseUntil: null,
    });
    expect(providerRefundId(row)).toMatch(/^[0-9a-f]{32}$/);

    const evs = await eventsOf(id);
    expect(evs.map((e) => [e.type, e.data.status, e.data.previousStatus])).toEqual([
      ["order.status_changed", "COMPLETED", "PENDING"],
      ["refund.status_changed", "PENDING", null],
      ["refund.status_changed", "COMPLETED", "PENDING"],
      ["order.status_changed", "REFUND", "COMPLETED"],
    ]);
    const completed = evs[2];
    expect(completed).toMatchObject({ subjectType: "order", subjectId: id, merchantId: merchant.id });
    expect(completed.data).toEqual({
      ...res.body.refund,
      previousStatus: "PENDING",
      order: expect.objectContaining({ id, status: "REFUND", value: 100, type: "pix" }),
    });
  });

  it("partial refunds: the order stays COMPLETED until they reach its value; beyond what is left → 400; value defaults to what is left", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const id = await paidPixOrder(apiKey, 100);

    expect((await refund(apiKey, id, { value: 30 })).body.refund).toMatchObject({ value: 30, status: "COMPLETED" });
    expect((await refund(apiKey, id, { value: 50.5 })).body.refund).toMatchObject({ value: 50.5, status: "COMPLETED" });
    expect(await orderRow(id)).toMatchObject({ status: "COMPLETED" });
    expect(await balanceMatchesLedger(merchant.id)).toBe(10_000 - 8_050);

    const beyond = await refund(apiKey, id, { value: 19.51 });
    expect(beyond.status).toBe(400);
    expect(specOf(beyond.body)).toEqual({ success: false, error: expect.stringContaining("exceeds what is left") });
    expect(beyond.body.error).toContain("19,50");
    expect(await refundRows(id)).toHaveLength(2);

    const rest = await refund(apiKey, id);
    expect(rest.status).toBe(201);
    expect(rest.body.refund).toMatchObject({ value: 19.5, status: "COMPLETED" });
    expect(await orderRow(id)).toMatchObject({ status: "REFUND" });
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);

    const again = await refund(apiKey, id);
    expect(again.status).toBe(400);
    expect(specOf(again.body)).toEqual({
      success: false,
      error: expect.stringContaining("already been refunded in full"),
    });

    const got = await lookup(apiKey, id);
    expect(got.status).toBe(200);
    expect(got.body.order.status).toBe("REFUND");
    expect(got.body.refunds.map((r: { value: number; status: string }) => [r.value, r.status])).toEqual([
      [30, "COMPLETED"],
      [50.5, "COMPLETED"],
      [19.5, "COMPLETED"],
    ]);
    expect(got.body.refunds[2]).toEqual(rest.body.refund);
  });

  it("by payment link id too", async () => {
    const { apiKey } = await seedMerchant();
    const id = await paidPixOrder(apiKey, 10);
    const link = (await orderRow(id)).paymentLinkId;
    const res = await refund(apiKey, link, { value: 1 });
    expect(res.status).toBe(201);
    expect(res.body.refund.orderId).toBe(id);
  });

  it("→ 400 when the balance does not cover it, and nothing is written", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const id = await paidPixOrder(apiKey, 100);
    // Most of what the order paid has been withdrawn meanwhile.
    expect((await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value: 9_000 } })).status).toBe(201);
    const eventsBefore = (await eventsOf(id)).length;

    const res = await refund(apiKey, id, { value: 10.01 });
    expect(res.status).toBe(400);
    expect(specOf(res.body)).toEqual({ success: false, error: expect.stringContaining("Insufficient balance") });
    expect(await refundRows(id)).toEqual([]);
    expect(await refundLedger(merchant.id)).toEqual([]);
    expect(await eventsOf(id)).toHaveLength(eventsBefore);
    expect(await balanceMatchesLedger(merchant.id)).toBe(1_000);

    // What the balance covers goes through.
    expect((await refund(apiKey, id, { value: 10 })).status).toBe(201);
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);
  });

  it('sandbox "sandbox-fail" → 201 FAILED, the debit credited back, the order still COMPLETED and refundable', async () => {
    const { merchant, apiKey } = await seedMerchant();
    const id = await paidPixOrder(apiKey, 40);

    const res = await refund(apiKey, id, { reason: "sandbox-fail" });
    expect(res.status).toBe(201);
    expect(res.body.refund).toMatchObject({ value: 40, status: "FAILED" });
    expect(await orderRow(id)).toMatchObject({ status: "COMPLETED" });
    expect(await balanceMatchesLedger(merchant.id)).toBe(4_000);
    expect(await refundLedger(merchant.id)).toEqual([
      { kind: "refund_debit", amount: -4_000, refId: res.body.refund.id },
      { kind: "refund_reversal", amount: 4_000, refId: res.body.refund.id },
    ]);
    const [row] = await refundRows(id);
    expect(row.failureReason).toContain("sandbox-fail");
    const refundEvents = (await eventsOf(id)).filter((e) => e.type === "refund.status_changed");
    expect(
      refundEvents.map((e) => [e.data.status, e.data.previousStatus, (e.data.order as { status: string }).status]),
    ).toEqual([
      ["PENDING", null, "COMPLETED"],
      ["FAILED", "PENDING", "COMPLETED"],
    ]);

    // A FAILED refund holds nothing back: the whole value is left to refund.
    const retry = await refund(apiKey, id);
    expect(retry.body.refund).toMatchObject({ value: 40, status: "COMPLETED" });
    expect(await orderRow(id)).toMatchObject({ status: "REFUND" });
    expect((await lookup(apiKey, id)).body.refunds.map((r: { status: string }) => r.status)).toEqual([
      "FAILED",
      "COMPLETED",
    ]);
  });

  it("refunds an exchange-wallet order against its payment's id", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const id = await paidExchangeOrder(apiKey, 150);
    const res = await refund(apiKey, id, { value: 150 });
    expect(res.status).toBe(201);
    expect(res.body.refund).toMatchObject({ orderId: id, value: 150, status: "COMPLETED" });
    const [row] = await refundRows(id);
    expect(row).toMatchObject({ provider: "sandbox-exchange", paymentRef: (await orderRow(id)).providerRef });
    expect(await orderRow(id)).toMatchObject({ status: "REFUND" });
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);
  });

  it("an exchange-wallet order takes at most 10 refunds, the last for everything that is left (Binance Pay refunds the remainder on its 10th)", async () => {
    const { apiKey } = await seedMerchant();
    const id = await paidExchangeOrder(apiKey, 20);
    for (let i = 0; i < 9; i++) expect((await refund(apiKey, id, { value: 1 })).status).toBe(201);
    const partial = await refund(apiKey, id, { value: 1 });
    expect(partial.status).toBe(400);
    expect(partial.body.error).toMatch(
      /^An exchange-wallet order takes at most 10 refunds: the last one must refund everything that is left \(R\$\s11,00\)$/,
    );
    const last = await refund(apiKey, id, { value: 11 });
    expect(last.body.refund).toMatchObject({ value: 11, status: "COMPLETED" });
    expect(await orderRow(id)).toMatchObject({ status: "REFUND" });
  });

  it("→ 400 for a Lightning order, 409 for an on-chain deposit", async () => {
    const { apiKey } = await seedMerchant({ balanceCentavos: 100_000 });
    const ln = await api("POST", "/api/v1/order/create/lightning", { apiKey, body: { value: 20 } });
    await api("POST", `/api/v1/sandbox/orders/${ln.body.order.id}/pay`, { apiKey });
    const lightning = await refund(apiKey, ln.body.order.id);
    expect(lightning.status).toBe(400);
    expect(specOf(lightning.body)).toEqual({
      success: false,
      error: expect.stringContaining("invoice from the payer"),
    });

    const deposit = await api("POST", "/api/v1/onchain/deposit", {
      apiKey,
      body: { value: 50, asset: "USDT", network: "polygon" },
    });
    expect(deposit.status).toBe(201);
    for (const depositId of [deposit.body.order.id, deposit.body.order.paymentLinkId]) {
      const onchain = await refund(apiKey, depositId);
      expect(onchain.status).toBe(409);
      expect(specOf(onchain.body)).toEqual({
        success: false,
        error: expect.stringContaining("on-chain order cannot be modified"),
      });
    }
  });

  it("→ 400 for a PENDING or CANCELLED order", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 100_000 });
    const pending = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: 10 } });
    const res = await refund(apiKey, pending.body.pixOrder._id);
    expect(res.status).toBe(400);
    expect(specOf(res.body)).toEqual({
      success: false,
      error: "Only COMPLETED orders can be refunded; this order is PENDING",
    });

    const expiring = await api("POST", "/api/v1/order/create", { apiKey, body: { value: 10 } });
    await db()
      .update(orders)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(orders.id, expiring.body.order.id));
    const cancelled = await refund(apiKey, expiring.body.order.id);
    expect(cancelled.status).toBe(400);
    expect(cancelled.body.error).toBe("Only COMPLETED orders can be refunded; this order is CANCELLED");
    expect(await refundLedger(merchant.id)).toEqual([]);
  });

  it("→ 400 for a PIX order completed without a record of its PIX (legacy data)", async () => {
    const { apiKey } = await seedMerchant({ balanceCentavos: 100_000 });
    const created = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: 10 } });
    await completeOrder(created.body.pixOrder._id);
    const res = await refund(apiKey, created.body.pixOrder._id);
    expect(res.status).toBe(400);
    expect(res.body.error).toContain("no record of the payment");
    expect(await refundRows(created.body.pixOrder._id)).toEqual([]);
  });

  it("→ 404 like the lookup for an unknown id and for another merchant's order", async () => {
    const a = await seedMerchant();
    const b = await seedMerchant({ balanceCentavos: 100_000 });
    const id = await paidPixOrder(a.apiKey, 10);
    const foreign = await refund(b.apiKey, id);
    const unknown = await refund(b.apiKey, "00000000-0000-4000-8000-000000000000");
    const lookedUp = await lookup(b.apiKey, id);
    expect(foreign.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(specOf(foreign.body)).toEqual({ success: false, error: "Order not found" });
    expect(unknown.body).toEqual(foreign.body);
    expect(lookedUp.body).toEqual(foreign.body);
    expect(await refundRows(id)).toEqual([]);
  });

  it.each([
    ["0", { value: 0 }],
    ["a negative value", { value: -1 }],
    ["3 decimals", { value: 1.001 }],
    ["a string", { value: "5" }],
    ["a reason over 140 characters", { reason: "x".repeat(141) }],
  ])("→ 400 { success: false, error } for %s", async (_name, body) => {
    const { apiKey } = await seedMerchant();
    const id = await paidPixOrder(apiKey, 10);
    const res = await refund(apiKey, id, body);
    expect(res.status).toBe(400);
    expect(specOf(res.body)).toEqual({ success: false, error: expect.any(String) });
    expect(await refundRows(id)).toEqual([]);
  });

  it("takes the smallest refund, R$ 0,01, and a 140-character reason", async () => {
    const { apiKey } = await seedMerchant();
    const id = await paidPixOrder(apiKey, 10);
    const res = await refund(apiKey, id, { value: 0.01, reason: "r".repeat(140) });
    expect(res.status).toBe(201);
    expect(res.body.refund.value).toBe(0.01);
  });

  it("Idempotency-Key: a retry replays the same refund, made and debited once", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const id = await paidPixOrder(apiKey, 100);
    const headers = { "idempotency-key": "refund-once" };
    const first = await refund(apiKey, id, { value: 25 }, headers);
    const second = await refund(apiKey, id, { value: 25 }, headers);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(second.body).toEqual(first.body);
    expect(await refundRows(id)).toHaveLength(1);
    expect(await balanceMatchesLedger(merchant.id)).toBe(7_500);

    const other = await refund(apiKey, id, { value: 26 }, headers);
    expect(other.status).toBe(422);
    expect(specOf(other.body)).toEqual({ success: false, error: expect.any(String) });
  });

  it("two simultaneous full refunds: exactly one is accepted", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 100_000 });
    const id = await paidPixOrder(apiKey, 60);
    const results = await Promise.all([
      refund(apiKey, id),
      refund(apiKey, id),
      refund(apiKey, id, { value: 60 }),
      refund(apiKey, id, { value: 60 }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 400, 400, 400]);
    expect(await refundRows(id)).toHaveLength(1);
    expect(await balanceMatchesLedger(merchant.id)).toBe(100_000);
    expect(await orderRow(id)).toMatchObject({ status: "REFUND" });
  });

  it("simultaneous partial refunds never add up to more than the order's value", async () => {
    const { apiKey } = await seedMerchant({ balanceCentavos: 100_000 });
    const id = await paidPixOrder(apiKey, 10);
    const results = await Promise.all(Array.from({ length: 8 }, () => refund(apiKey, id, { value: 3 })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    const rows = await refundRows(id);
    expect(rows.reduce((sum, r) => sum + r.valueCentavos, 0)).toBe(900);
    expect(await orderRow(id)).toMatchObject({ status: "COMPLETED" });
  });
});

describe("GET /api/v1/order/{id} → refunds", () => {
  it("is [] for an order without refunds, of every kind", async () => {
    const { apiKey } = await seedMerchant();
    const pending = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: 5 } });
    const paid = await paidPixOrder(apiKey, 5);
    const ln = await api("POST", "/api/v1/order/create/lightning", { apiKey, body: { value: 5 } });
    for (const id of [pending.body.pixOrder._id, paid, ln.body.order.id]) {
      const res = await lookup(apiKey, id);
      expect(res.status).toBe(200);
      expect(res.body.refunds).toEqual([]);
    }
  });

  it("lists a PENDING refund while the provider has not answered", async () => {
    const psp = faultyRefunds();
    overrideProvidersForTests({ pix: psp.pix });
    const { apiKey } = await seedMerchant();
    const id = await paidPixOrder(apiKey, 5);
    psp.fail("down");
    const res = await refund(apiKey, id, { value: 2 });
    const got = await lookup(apiKey, id);
    expect(got.body.order.status).toBe("COMPLETED");
    expect(got.body.refunds).toEqual([res.body.refund]);
    expect(got.body.refunds[0].status).toBe("PENDING");
  });
});

describe("a refund whose outcome is not known", () => {
  async function lostRefund(value: number) {
    const psp = faultyRefunds();
    overrideProvidersForTests({ pix: psp.pix });
    const { merchant, apiKey } = await seedMerchant();
    const orderId = await paidPixOrder(apiKey, value);
    psp.fail("lost");
    const res = await refund(apiKey, orderId);
    expect(res.status).toBe(201);
    expect(res.body.refund).toMatchObject({ value, status: "PENDING" });
    const [row] = await refundRows(orderId);
    expect(row).toMatchObject({
      status: "PENDING",
      attempts: 1,
      sentAt: expect.any(Date),
      lastError: expect.stringContaining("socket hang up"),
      leaseUntil: null,
    });
    // Debited, and nothing given back on a guess.
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);
    expect(await orderRow(orderId)).toMatchObject({ status: "COMPLETED" });
    psp.fail(null);
    return {
      psp,
      merchant,
      apiKey,
      orderId,
      refundId: res.body.refund.id as string,
      providerId: providerRefundId(row),
    };
  }

  it("→ 201 PENDING, then the provider's read says COMPLETED → COMPLETED, the order REFUND, sent once", async () => {
    const { psp, merchant, apiKey, orderId, refundId, providerId } = await lostRefund(30);
    // A PENDING refund holds its value: nothing is left to refund meanwhile.
    const second = await refund(apiKey, orderId, { value: 0.01 });
    expect(second.status).toBe(400);
    expect(second.body.error).toContain("Nothing is left to refund");
    psp.answerReads({ status: "PROCESSING" });
    expect(await advanceRefund(refundId)).toBe(false);
    expect((await refundRows(orderId))[0]).toMatchObject({ status: "PENDING", lastError: null });

    psp.answerReads({ status: "COMPLETED", providerRef: "D12345678202611220105abcdefghijk" });
    expect(await advanceRefund(refundId)).toBe(true);
    expect((await refundRows(orderId))[0]).toMatchObject({
      status: "COMPLETED",
      providerRef: "D12345678202611220105abcdefghijk",
      attempts: 1,
    });
    expect(await orderRow(orderId)).toMatchObject({ status: "REFUND" });
    expect(psp.sent()).toEqual([providerId]);
    expect(psp.read()).toEqual([providerId, providerId]);
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);
    // Decided once: another try changes nothing.
    expect(await advanceRefund(refundId)).toBe(true);
    expect(psp.read()).toHaveLength(2);
  });

  it("the provider's read says FAILED → FAILED and credited back, once", async () => {
    const { psp, merchant, orderId, refundId } = await lostRefund(30);
    psp.answerReads({ status: "FAILED", reason: "NAO_REALIZADO: devolução recusada" });
    expect(await advanceRefund(refundId)).toBe(true);
    expect((await refundRows(orderId))[0]).toMatchObject({
      status: "FAILED",
      failureReason: "NAO_REALIZADO: devolução recusada",
    });
    expect(await orderRow(orderId)).toMatchObject({ status: "COMPLETED" });
    expect(await balanceMatchesLedger(merchant.id)).toBe(3_000);
    expect(await advanceRefund(refundId)).toBe(true);
    expect(await refundLedger(merchant.id)).toEqual([
      { kind: "refund_debit", amount: -3_000, refId: refundId },
      { kind: "refund_reversal", amount: 3_000, refId: refundId },
    ]);
  });

  it("the provider never received it (read: null) → sent again with the same id by the sweep", async () => {
    const { psp, merchant, apiKey, orderId, refundId, providerId } = await lostRefund(30);
    psp.answerReads(null);
    await runSweep();
    // (The sweep moves every open refund; other tests' are in the same database.)
    expect(psp.sent().filter((sent) => sent === providerId)).toEqual([providerId, providerId]);
    expect((await refundRows(orderId))[0]).toMatchObject({ status: "COMPLETED", attempts: 2 });
    expect(await orderRow(orderId)).toMatchObject({ status: "REFUND" });
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);
    expect((await lookup(apiKey, orderId)).body.refunds).toEqual([
      expect.objectContaining({ id: refundId, status: "COMPLETED" }),
    ]);
  });

  it("while the provider is unreachable it stays PENDING, whatever the number of tries", async () => {
    const psp = faultyRefunds();
    overrideProvidersForTests({ pix: psp.pix });
    const { merchant, apiKey } = await seedMerchant();
    const orderId = await paidPixOrder(apiKey, 12);
    psp.fail("down");
    const res = await refund(apiKey, orderId);
    expect(res.body.refund.status).toBe("PENDING");
    for (let i = 0; i < 3; i++) expect(await advanceRefund(res.body.refund.id)).toBe(false);
    const [row] = await refundRows(orderId);
    expect(row).toMatchObject({ status: "PENDING", lastError: expect.stringContaining("ECONNREFUSED") });
    expect(await balanceMatchesLedger(merchant.id)).toBe(0);
    // Back up: the read finds nothing (it never arrived), so it is sent, and made.
    psp.fail(null);
    expect(await advanceRefund(res.body.refund.id)).toBe(true);
    expect((await refundRows(orderId))[0].status).toBe("COMPLETED");
  });

  it("a refund leased by another worker is left alone", async () => {
    const { psp, orderId, refundId } = await lostRefund(10);
    await db()
      .update(orderRefunds)
      .set({ leaseUntil: new Date(Date.now() + 60_000) })
      .where(eq(orderRefunds.id, refundId));
    psp.answerReads({ status: "COMPLETED" });
    expect(await advanceRefund(refundId)).toBe(false);
    expect(psp.read()).toEqual([]);
    expect((await refundRows(orderId))[0].status).toBe("PENDING");
  });
});
