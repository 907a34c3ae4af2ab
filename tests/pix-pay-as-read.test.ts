import { describe, expect, it } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import { db } from "@/db";
import { events, ledgerEntries, pixReceipts, unfoldedCredits, webhookDeliveries, type Order } from "@/db/schema";
import { env } from "@/lib/env";
import { randomBase62 } from "@/lib/ids";
import { balanceOf, ledgerSum } from "@/lib/ledger/ledger";
import { PAY_BATCH, payOrderAsRead } from "@/lib/orders/pay-as-read";
import { applyReceivedPix } from "@/lib/orders/pix-receipts";
import { markCancelled, orderById } from "@/lib/orders/queries";
import type { ReceivedPix } from "@/lib/providers/pix/types";
import { api, seedMerchant } from "./helpers";

// A PIX order the caller has just read (the sandbox's payment) is paid by one statement
// (lib/orders/pay-as-read.ts): the order, its receipt, its credit, its event and the event's webhook
// deliveries are all written, or nothing is, and only while the order is exactly as read.

async function pendingPixOrder(apiKey: string): Promise<Order> {
  const res = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: 12.34 } });
  expect(res.status).toBe(200);
  return (await orderById(db(), res.body.pixOrder._id))!;
}

function pixPaying(order: Order, endToEndId = `E00000000${randomBase62(21)}`): ReceivedPix {
  return {
    endToEndId,
    txid: order.txid,
    valueCentavos: order.valueCentavos,
    paidAt: new Date(),
    chave: env().PIX_RECEIVER_KEY,
  };
}

/** Everything a payment of the order writes. */
async function writtenFor(orderId: string) {
  return {
    receipts: await db().select().from(pixReceipts).where(eq(pixReceipts.orderId, orderId)),
    credits: await db()
      .select({ entry: ledgerEntries, unfolded: unfoldedCredits })
      .from(ledgerEntries)
      .leftJoin(unfoldedCredits, eq(unfoldedCredits.entryId, ledgerEntries.id))
      .where(and(eq(ledgerEntries.refType, "order"), eq(ledgerEntries.refId, orderId))),
    events: await db().select().from(events).where(eq(events.subjectId, orderId)),
    deliveries: await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.subjectId, orderId)),
  };
}

describe("a PIX order paid as read, in one statement", () => {
  it("writes the order COMPLETED, its receipt, its credit and its event with one delivery per active endpoint; returns the row as stored", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 500 });
    const other = await seedMerchant();
    const hook = async (key: string, url: string) =>
      (await api("POST", "/api/v1/webhooks", { apiKey: key, body: { url } })).body.webhook.id as string;
    const active = await hook(apiKey, "http://127.0.0.1:9/a");
    const deleted = await hook(apiKey, "http://127.0.0.1:9/b");
    expect((await api("DELETE", `/api/v1/webhooks/${deleted}`, { apiKey })).status).toBe(204);
    await hook(other.apiKey, "http://127.0.0.1:9/other");
    const order = await pendingPixOrder(apiKey);
    const pix = pixPaying(order);

    const paid = await payOrderAsRead(order, pix, "sandbox");
    const stored = await orderById(db(), order.id);
    expect(paid).toEqual(stored);
    expect(stored).toMatchObject({ status: "COMPLETED", paidAt: pix.paidAt, version: order.version + 1 });

    const written = await writtenFor(order.id);
    expect(written.receipts).toEqual([
      expect.objectContaining({
        endToEndId: pix.endToEndId,
        txid: order.txid,
        merchantId: merchant.id,
        valueCentavos: 1234,
        applied: true,
        unappliedReason: null,
        source: "sandbox",
      }),
    ]);
    expect(written.credits).toHaveLength(1);
    expect(written.credits[0].entry).toMatchObject({
      merchantId: merchant.id,
      kind: "order_credit",
      amountCentavos: 1234,
      description: `pix order ${order.paymentLinkId}`,
    });
    expect(written.credits[0].unfolded).toMatchObject({ merchantId: merchant.id, amountCentavos: 1234 });
    expect(await balanceOf(db(), merchant.id)).toBe(500 + 1234);
    expect(await ledgerSum(db(), merchant.id)).toBe(500 + 1234);
    expect(written.events).toHaveLength(1);
    expect(written.events[0]).toMatchObject({
      merchantId: merchant.id,
      type: "order.status_changed",
      subjectType: "order",
    });
    expect(written.events[0].data).toMatchObject({
      id: order.id,
      status: "COMPLETED",
      previousStatus: "PENDING",
      paidAt: pix.paidAt.toISOString(),
      value: 12.34,
    });
    expect(written.deliveries.map((d) => [d.endpointId, d.eventId, d.eventSeq, d.status])).toEqual([
      [active, written.events[0].id, written.events[0].seq, "pending"],
    ]);
  });

  it("an end-to-end id recorded before: a duplicate, and nothing is written", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const order = await pendingPixOrder(apiKey);
    const pix = pixPaying(order);
    // The same PIX, recorded earlier without an order (as a listing would have kept it).
    await db().insert(pixReceipts).values({
      endToEndId: pix.endToEndId,
      txid: null,
      valueCentavos: 1234,
      paidAt: pix.paidAt,
      applied: false,
      unappliedReason: "unknown_txid",
      source: "poll",
    });

    expect(await payOrderAsRead(order, pix, "sandbox")).toBe("duplicate");
    expect(await applyReceivedPix(pix, "sandbox", order)).toEqual({ duplicate: true });
    expect(await orderById(db(), order.id)).toEqual(order);
    expect(await writtenFor(order.id)).toEqual({ receipts: [], credits: [], events: [], deliveries: [] });
    expect(await ledgerSum(db(), merchant.id)).toBe(0);
  });

  it("the order changed since it was read: nothing is written, and applyReceivedPix judges it again under the lock", async () => {
    const { apiKey } = await seedMerchant();
    const read = await pendingPixOrder(apiKey);
    // The sweep cancels it meanwhile (no expiry: a payment still completes it).
    await markCancelled(db(), [read.id]);
    const pix = pixPaying(read);

    expect(await payOrderAsRead(read, pix, "sandbox")).toBeUndefined();
    expect((await writtenFor(read.id)).receipts).toEqual([]);
    expect((await orderById(db(), read.id))!.status).toBe("CANCELLED");

    const outcome = await applyReceivedPix(pix, "sandbox", read);
    expect(outcome).toMatchObject({ duplicate: false, applied: true, order: { id: read.id, status: "COMPLETED" } });
    const written = await writtenFor(read.id);
    expect(written.receipts).toHaveLength(1);
    expect(written.credits).toHaveLength(1);
    expect(written.events.map((e) => [e.data.previousStatus, e.data.status])).toEqual([["CANCELLED", "COMPLETED"]]);
  });

  it("payments arriving together share statements: each is written once; the same order twice in a batch is paid once", async () => {
    const { merchant, apiKey } = await seedMerchant();
    // More than the batches in flight can take at once, so the rest queue and go out together.
    const count = PAY_BATCH.concurrency + PAY_BATCH.maxBatch;
    const read = await Promise.all(Array.from({ length: count }, () => pendingPixOrder(apiKey)));
    const payments = read.map((order) => ({ order, pix: pixPaying(order) }));
    // Queued next to the first payment of the same order: both go out in the same batch.
    const twice = payments[PAY_BATCH.concurrency + 1];
    const calls = [...payments];
    calls.splice(PAY_BATCH.concurrency + 2, 0, { order: twice.order, pix: pixPaying(twice.order) });

    const outcomes = await Promise.all(calls.map(({ order, pix }) => payOrderAsRead(order, pix, "sandbox")));

    for (const [i, { order, pix }] of calls.entries()) {
      if (order === twice.order) continue;
      expect(outcomes[i]).toEqual(await orderById(db(), order.id));
      expect(outcomes[i]).toMatchObject({ status: "COMPLETED", paidAt: pix.paidAt, version: order.version + 1 });
      const written = await writtenFor(order.id);
      expect(written.receipts.map((r) => r.endToEndId)).toEqual([pix.endToEndId]);
      expect(written.credits).toHaveLength(1);
      expect(written.events).toHaveLength(1);
    }
    // One of the two payments of the same order paid it; the other found it changed and wrote nothing.
    const both = outcomes.filter((_, i) => calls[i].order === twice.order);
    expect(both.filter((o) => o === undefined)).toHaveLength(1);
    expect(both.find((o) => o !== undefined)).toMatchObject({
      id: twice.order.id,
      status: "COMPLETED",
      version: twice.order.version + 1,
    });
    const writtenTwice = await writtenFor(twice.order.id);
    expect(writtenTwice.receipts).toHaveLength(1);
    expect(writtenTwice.credits).toHaveLength(1);
    expect(writtenTwice.events).toHaveLength(1);
    // Rows one statement wrote share its transaction id: the queued payments were written together.
    const [{ transactions }] = await db().execute<{ transactions: number }>(
      sql`select count(distinct xmin::text)::int as transactions from orders where id in ${read.map((o) => o.id)}`,
    );
    expect(transactions).toBeLessThanOrEqual(PAY_BATCH.concurrency + 2);
    expect(await ledgerSum(db(), merchant.id)).toBe(count * 1234);
    expect(await balanceOf(db(), merchant.id)).toBe(count * 1234);
  });

  it("an end-to-end id recorded before, among payments sent together: that one is a duplicate, the others are paid", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const count = PAY_BATCH.concurrency + 6;
    const read = await Promise.all(Array.from({ length: count }, () => pendingPixOrder(apiKey)));
    const payments = read.map((order) => ({ order, pix: pixPaying(order) }));
    const recordedBefore = payments[PAY_BATCH.concurrency + 2];
    await db().insert(pixReceipts).values({
      endToEndId: recordedBefore.pix.endToEndId,
      txid: null,
      valueCentavos: 1234,
      paidAt: recordedBefore.pix.paidAt,
      applied: false,
      unappliedReason: "unknown_txid",
      source: "poll",
    });

    const outcomes = await Promise.all(payments.map(({ order, pix }) => payOrderAsRead(order, pix, "sandbox")));

    for (const [i, { order, pix }] of payments.entries()) {
      const written = await writtenFor(order.id);
      if (order === recordedBefore.order) {
        expect(outcomes[i]).toBe("duplicate");
        expect(written).toEqual({ receipts: [], credits: [], events: [], deliveries: [] });
        expect(await orderById(db(), order.id)).toEqual(order);
        continue;
      }
      expect(outcomes[i]).toMatchObject({ status: "COMPLETED", paidAt: pix.paidAt, version: order.version + 1 });
      expect(written.receipts.map((r) => r.endToEndId)).toEqual([pix.endToEndId]);
      expect(written.credits).toHaveLength(1);
    }
    expect(await ledgerSum(db(), merchant.id)).toBe((count - 1) * 1234);
  });
});
