import { and, eq, gte, inArray, lt } from "drizzle-orm";
import { db } from "@/db";
import { cryptoPixInvoices, cryptoPixPayments, orderReceipts, orders, type Order } from "@/db/schema";
import { env } from "@/lib/env";
import { confirmLightningOrder } from "@/lib/lightning/confirm";
import { providers } from "@/lib/providers";
import { railEnabled } from "@/lib/providers/rails";
import { type Movement, type ReconSource } from "./run";

// The lightning reconciliation source: what it matches is listed in ./sources.ts.

/** Invoices asked of the node per page (tests make it small to read a day over several pages). */
export const lightningPaging = { size: 500 };
/** How long before the day an invoice settled in it may have been made: the longest invoice expiry, and a day for hold invoices settled late. */
const lightningLookbackMs = () =>
  (Math.max(env().EXPIRY_LIGHTNING_SECONDS, env().EXPIRY_CRYPTO_PIX_SECONDS) + 24 * 60 * 60) * 1000;

export function lightning(): ReconSource {
  const node = () => providers().lightning;
  // The orders of the page being matched, by payment hash: what applyMissing completes.
  const listed = new Map<string, Order>();
  return {
    name: "lightning",
    enabled: () => env().PAYMENTS_MODE === "live" && railEnabled("lightning") && node().listInvoices !== undefined,
    // `page` is the node's add index to list after: lnd pages by it, and it is what a resumed run starts from.
    async page(window, page) {
      const answer = await node().listInvoices!({
        indexOffset: page,
        max: lightningPaging.size,
        createdFrom: new Date(window.from.getTime() - lightningLookbackMs()),
        createdTo: window.to,
      });
      // Only a settled invoice moved money; lnd lists every invoice made in the dates.
      const settled = answer.invoices.filter((i) => i.paid && i.paidAt);
      listed.clear();
      const hashes = settled.map((i) => i.paymentHash);
      if (hashes.length)
        for (const o of await db()
          .select()
          .from(orders)
          .where(
            and(eq(orders.kind, "lightning"), eq(orders.provider, node().name), inArray(orders.paymentHash, hashes)),
          ))
          listed.set(o.paymentHash!, o);
      return {
        items: settled.map((i) => ({
          ref: i.paymentHash,
          valueCentavos: i.paidSatoshis,
          state: "SETTLED",
          at: i.paidAt!,
          detail: { invoiceSatoshis: i.valueSatoshis },
        })),
        next:
          answer.invoices.length === lightningPaging.size && answer.lastIndexOffset > page
            ? answer.lastIndexOffset
            : null,
      };
    },
    async applyMissing(item) {
      // An order's invoice the node settled that neither the stream nor the poll recorded (the poll asks
      // for a day after expiry only): applied as they would, with the node's settle time.
      const order = listed.get(item.ref);
      if (!order) return false;
      const known = await db()
        .select({ o: orderReceipts.orderId })
        .from(orderReceipts)
        .where(and(eq(orderReceipts.provider, order.provider), eq(orderReceipts.paymentRef, item.ref)));
      if (known.length > 0) return false;
      const outcome = await confirmLightningOrder(order, "poll");
      return outcome !== null && !outcome.duplicate;
    },
    async ours(refs) {
      const out = new Map<string, Movement>();
      if (refs.length === 0) return out;
      const receipts = await db()
        .select({ receipt: orderReceipts, order: orders })
        .from(orderReceipts)
        .innerJoin(orders, eq(orders.id, orderReceipts.orderId))
        .where(and(eq(orderReceipts.provider, node().name), inArray(orderReceipts.paymentRef, refs)));
      for (const { receipt, order } of receipts)
        out.set(receipt.paymentRef, {
          ref: receipt.paymentRef,
          valueCentavos: order.satoshis ?? 0,
          state: "SETTLED",
          merchantId: order.merchantId,
          detail: { orderId: order.id, applied: receipt.applied },
        });
      const holds = await db()
        .select({ invoice: cryptoPixInvoices, merchantId: cryptoPixPayments.merchantId })
        .from(cryptoPixInvoices)
        .innerJoin(cryptoPixPayments, eq(cryptoPixPayments.id, cryptoPixInvoices.paymentId))
        .where(and(eq(cryptoPixInvoices.provider, node().name), inArray(cryptoPixInvoices.paymentHash, refs)));
      for (const { invoice, merchantId } of holds)
        out.set(invoice.paymentHash, {
          ref: invoice.paymentHash,
          valueCentavos: invoice.satoshis,
          state: invoice.state.toUpperCase(),
          merchantId,
          detail: { cryptoPixPaymentId: invoice.paymentId, action: invoice.action },
        });
      return out;
    },
    async oursIn({ from, to }) {
      // What the node must have settled that day: the payments we recorded with its settle time, and the
      // hold invoices we settled (their settle is our last change to them).
      const receipts = await db()
        .select({ receipt: orderReceipts, order: orders })
        .from(orderReceipts)
        .innerJoin(orders, eq(orders.id, orderReceipts.orderId))
        .where(
          and(eq(orderReceipts.provider, node().name), gte(orderReceipts.paidAt, from), lt(orderReceipts.paidAt, to)),
        );
      const holds = await db()
        .select({ invoice: cryptoPixInvoices, merchantId: cryptoPixPayments.merchantId })
        .from(cryptoPixInvoices)
        .innerJoin(cryptoPixPayments, eq(cryptoPixPayments.id, cryptoPixInvoices.paymentId))
        .where(
          and(
            eq(cryptoPixInvoices.provider, node().name),
            eq(cryptoPixInvoices.state, "settled"),
            gte(cryptoPixInvoices.updatedAt, from),
            lt(cryptoPixInvoices.updatedAt, to),
          ),
        );
      return [
        ...receipts.map(({ receipt, order }) => ({
          ref: receipt.paymentRef,
          valueCentavos: order.satoshis ?? 0,
          state: "SETTLED",
          merchantId: order.merchantId,
          detail: { orderId: order.id },
        })),
        ...holds.map(({ invoice, merchantId }) => ({
          ref: invoice.paymentHash,
          valueCentavos: invoice.satoshis,
          state: "SETTLED",
          merchantId,
          detail: { cryptoPixPaymentId: invoice.paymentId },
        })),
      ];
    },
    sameState: (ours, theirs) => ours === theirs,
    formatValue: (sats) => `${sats} sats`,
  };
}
