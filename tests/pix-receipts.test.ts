import { describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { db } from "@/db";
import { events, ledgerEntries, pixReceipts, unfoldedCredits, webhookDeliveries, type Order } from "@/db/schema";
import { env } from "@/lib/env";
import { randomBase62 } from "@/lib/ids";
import { balanceOf, ledgerSum } from "@/lib/ledger/ledger";
import { applyReceivedPix } from "@/lib/orders/pix-receipts";
import { markCancelled, orderById } from "@/lib/orders/queries";
import type { ReceivedPix } from "@/lib/providers/pix/types";
import { createPixOrderResponse } from "@/lib/orders/schemas";
import { api, seedMerchant } from "./helpers";
import { json } from "./support/json";

// A received PIX that pays its order (lib/orders/pix-receipts.ts, the one path for the sandbox, PSP
// notifications and the poll): the order, its receipt, its credit, its event and the event's webhook
// deliveries are all written in one transaction, or nothing is.

async function pendingPixOrder(apiKey: string): Promise<Order> {
  const res = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: 12.34 } });
  return (await orderById(db(), json(createPixOrderResponse, res).pixOrder._id))!;
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

describe("applyReceivedPix", () => {
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

    const outcome = await applyReceivedPix(pix, "sandbox");
    const stored = await orderById(db(), order.id);
    expect(outcome).toEqual({ duplicate: false, applied: true, reason: null, order: stored });
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

    expect(await applyReceivedPix(pix, "sandbox")).toEqual({ duplicate: true });
    expect(await orderById(db(), order.id)).toEqual(order);
    expect(await writtenFor(order.id)).toEqual({ receipts: [], credits: [], events: [], deliveries: [] });
    expect(await ledgerSum(db(), merchant.id)).toBe(0);
  });

  it("an order the sweep cancelled (no expiry) is still completed, its event saying CANCELLED → COMPLETED", async () => {
    const { apiKey } = await seedMerchant();
    const read = await pendingPixOrder(apiKey);
    await markCancelled(db(), [read.id]);
    const pix = pixPaying(read);

    const outcome = await applyReceivedPix(pix, "sandbox");
    expect(outcome).toMatchObject({ duplicate: false, applied: true, order: { id: read.id, status: "COMPLETED" } });
    const written = await writtenFor(read.id);
    expect(written.receipts).toHaveLength(1);
    expect(written.credits).toHaveLength(1);
    expect(written.events.map((e) => [e.data.previousStatus, e.data.status])).toEqual([["CANCELLED", "COMPLETED"]]);
  });

  it("payments arriving together: each is written once; two PIX for one order pay it once, the other kept unapplied", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const count = 18;
    const read = await Promise.all(Array.from({ length: count }, () => pendingPixOrder(apiKey)));
    const payments = read.map((order) => ({ order, pix: pixPaying(order) }));
    const twice = payments[3];
    const calls = [...payments, { order: twice.order, pix: pixPaying(twice.order) }];

    const outcomes = await Promise.all(calls.map(({ pix }) => applyReceivedPix(pix, "sandbox")));

    for (const [i, { order, pix }] of calls.entries()) {
      if (order === twice.order) continue;
      expect(outcomes[i]).toEqual({
        duplicate: false,
        applied: true,
        reason: null,
        order: await orderById(db(), order.id),
      });
      expect(outcomes[i]).toMatchObject({
        order: { status: "COMPLETED", paidAt: pix.paidAt, version: order.version + 1 },
      });
      const written = await writtenFor(order.id);
      expect(written.receipts.map((r) => r.endToEndId)).toEqual([pix.endToEndId]);
      expect(written.credits).toHaveLength(1);
      expect(written.events).toHaveLength(1);
    }
    // One of the two PIX paid the order; the other found it paid and is kept as unapplied funds.
    const both = outcomes.filter((_, i) => calls[i].order === twice.order);
    expect(both.map((o) => !o.duplicate && o.reason).sort()).toEqual([null, "order_not_pending"]);
    const writtenTwice = await writtenFor(twice.order.id);
    expect(writtenTwice.receipts.map((r) => r.applied).sort()).toEqual([false, true]);
    expect(writtenTwice.credits).toHaveLength(1);
    expect(writtenTwice.events.map((e) => e.type).sort()).toEqual(["order.funds_unapplied", "order.status_changed"]);
    expect(await ledgerSum(db(), merchant.id)).toBe(count * 1234);
    expect(await balanceOf(db(), merchant.id)).toBe(count * 1234);
  });

  it("an end-to-end id recorded before, among payments sent together: that one is a duplicate, the others are paid", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const count = 8;
    const read = await Promise.all(Array.from({ length: count }, () => pendingPixOrder(apiKey)));
    const payments = read.map((order) => ({ order, pix: pixPaying(order) }));
    const recordedBefore = payments[4];
    await db().insert(pixReceipts).values({
      endToEndId: recordedBefore.pix.endToEndId,
      txid: null,
      valueCentavos: 1234,
      paidAt: recordedBefore.pix.paidAt,
      applied: false,
      unappliedReason: "unknown_txid",
      source: "poll",
    });

    const outcomes = await Promise.all(payments.map(({ pix }) => applyReceivedPix(pix, "sandbox")));

    for (const [i, { order, pix }] of payments.entries()) {
      const written = await writtenFor(order.id);
      if (order === recordedBefore.order) {
        expect(outcomes[i]).toEqual({ duplicate: true });
        expect(written).toEqual({ receipts: [], credits: [], events: [], deliveries: [] });
        expect(await orderById(db(), order.id)).toEqual(order);
        continue;
      }
      expect(outcomes[i]).toMatchObject({ applied: true, order: { status: "COMPLETED", paidAt: pix.paidAt } });
      expect(written.receipts.map((r) => r.endToEndId)).toEqual([pix.endToEndId]);
      expect(written.credits).toHaveLength(1);
    }
    expect(await ledgerSum(db(), merchant.id)).toBe((count - 1) * 1234);
  });
});
