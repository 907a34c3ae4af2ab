import { db } from "@/db";
import type { Order, PixReceipt } from "@/db/schema";
import { env } from "@/lib/env";
import { holdsIdempotencyKey } from "@/lib/idempotency-binding";
import { recordEvent } from "@/lib/events/outbox";
import { log } from "@/lib/log";
import { amountDueAt } from "@/lib/invoices/state/terms";
import { lockInvoiceOfOrder, settleInvoice } from "@/lib/invoices/state/transitions";
import { centavosToBrl } from "@/lib/money";
import type { DayAmount } from "@/lib/pix/due-amount";
import type { ReceivedPix } from "@/lib/providers/pix/types";
import { payOrderAsRead } from "./pay-as-read";
import { insertPixReceipt, lockOrderByTxid } from "./queries";
import { markOrderPaid } from "./service";
import { orderView } from "./views";

// A PIX received at the service's key (docs/providers.md#pix-collection-api-pix-any-psp), once the PSP has vouched for it: read back
// after a notification, listed by the reconciliation poll, or reported paid when a charge was being
// removed. It counts once (its end-to-end id), completes its order when it pays exactly the order's
// value within its expiry (judged by the PSP's `horario`: an order already cancelled at expiry still
// completes when the payment was made in time), and is otherwise kept as unapplied funds
// with the reason, on the order when there is one, so nothing received is ever dropped.

export type ReceiptSource = PixReceipt["source"];
export type ReceiptOutcome =
  | { duplicate: true }
  | { duplicate: false; applied: boolean; reason: PixReceipt["unappliedReason"]; order: Order | null };

/**
 * Why `pix` does not pay `order` (null: it pays it). `due`: for an invoice's order, what its payment
 * day asks (lib/invoices): the value to pay, or nothing after its last day.
 */
function unappliedReason(order: Order | null, pix: ReceivedPix, due?: DayAmount): PixReceipt["unappliedReason"] {
  if (!order) return "unknown_txid";
  if (due && !due.payable) return "after_expiry";
  if (pix.valueCentavos !== (due?.payable ? due.totalCentavos : order.valueCentavos)) return "wrong_value";
  if (order.status !== "PENDING" && order.status !== "CANCELLED") return "order_not_pending";
  if (order.expiresAt && pix.paidAt.getTime() > order.expiresAt.getTime()) return "after_expiry";
  return null;
}

/**
 * `read`: the order, as the caller has just read it (the sandbox). When the PIX pays it, it is paid
 * in one statement (./pay-as-read.ts) that applies only while the order is still exactly as read;
 * otherwise, for a keyed request, and for every PSP's report, the locked transaction below judges it.
 */
export async function applyReceivedPix(pix: ReceivedPix, source: ReceiptSource, read?: Order): Promise<ReceiptOutcome> {
  if (pix.chave !== null && pix.chave !== env().PIX_RECEIVER_KEY) {
    // The PSP listed a payment to another of the account's keys: not ours to apply.
    log.warn("PIX received at another key ignored", { endToEndId: pix.endToEndId, source });
    return { duplicate: false, applied: false, reason: "unknown_txid", order: null };
  }
  // A request holding an Idempotency-Key takes the transaction, which binds the key to the order
  // (lib/idempotency-binding.ts); the one statement has no place for it. So does an invoice's order,
  // whose value is the payment day's (below).
  if (
    read &&
    !read.reference.invoiceId &&
    pix.txid !== null &&
    read.txid === pix.txid &&
    unappliedReason(read, pix) === null &&
    !holdsIdempotencyKey()
  ) {
    const paid = await payOrderAsRead(read, pix, source);
    if (paid === "duplicate") return { duplicate: true };
    if (paid) return { duplicate: false, applied: true, reason: null, order: paid };
  }
  return db().transaction(async (tx) => {
    const order = pix.txid ? ((await lockOrderByTxid(tx, pix.txid)) ?? null) : null;
    // An invoice's order (its references name the invoice: lib/invoices) is paid by what the invoice
    // asks on the payment's day.
    const invoice = order?.reference.invoiceId ? await lockInvoiceOfOrder(tx, order.id) : undefined;
    const due = invoice ? amountDueAt(invoice, pix.paidAt) : undefined;
    const reason = unappliedReason(order, pix, due);
    const recorded = await insertPixReceipt(tx, {
      endToEndId: pix.endToEndId,
      txid: pix.txid,
      orderId: order?.id ?? null,
      merchantId: order?.merchantId ?? null,
      valueCentavos: pix.valueCentavos,
      paidAt: pix.paidAt,
      applied: reason === null,
      unappliedReason: reason,
      source,
    });
    if (!recorded) return { duplicate: true } as const;
    if (!order) {
      log.warn("PIX received for no order: kept as unapplied funds", {
        endToEndId: pix.endToEndId,
        txid: pix.txid,
        source,
      });
      return { duplicate: false, applied: false, reason, order: null } as const;
    }
    if (reason === null) {
      const paid = await markOrderPaid(tx, order.id, pix.paidAt, order, invoice ? pix.valueCentavos : undefined);
      if (invoice && paid && due?.payable) await settleInvoice(tx, invoice, paid, pix.endToEndId, due);
      return { duplicate: false, applied: true, reason: null, order: paid ?? order } as const;
    }
    await recordEvent(tx, {
      merchantId: order.merchantId,
      type: "order.funds_unapplied",
      subjectType: "order",
      subjectId: order.id,
      data: {
        ...orderView(order),
        unappliedValue: centavosToBrl(pix.valueCentavos),
        endToEndId: pix.endToEndId,
        paidAt: pix.paidAt.toISOString(),
        reason,
      },
    });
    return { duplicate: false, applied: false, reason, order } as const;
  });
}
