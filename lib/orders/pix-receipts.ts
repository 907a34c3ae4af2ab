import { db, type Tx } from "@/db";
import { orderSplitViews } from "@/lib/splits/service";
import type { Invoice, Order, PixReceipt } from "@/db/schema";
import { env } from "@/lib/env";
import { recordEvent } from "@/lib/events/outbox";
import { log } from "@/lib/log";
import { amountDueAt } from "@/lib/invoice-state/terms";
import { lockInvoiceOfOrder, settleInvoice } from "@/lib/invoice-state/transitions";
import { centavosToBrl } from "@/lib/money";
import type { DayAmount } from "@/lib/pix/due-amount";
import type { ReceivedPix } from "@/lib/providers/pix/types";
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

/** Thrown inside the transaction to roll back what was sent alongside a receipt recorded before. */
class DuplicateReceipt extends Error {}

/** Where "a PIX pays an order" is written: every source (sandbox, notification, poll) comes through here. */
export async function applyReceivedPix(pix: ReceivedPix, source: ReceiptSource): Promise<ReceiptOutcome> {
  if (pix.chave !== null && pix.chave !== env().PIX_RECEIVER_KEY) {
    // The PSP listed a payment to another of the account's keys: not ours to apply.
    log.warn("PIX received at another key ignored", { endToEndId: pix.endToEndId, source });
    return { duplicate: false, applied: false, reason: "unknown_txid", order: null };
  }
  try {
    return await db().transaction(async (tx) => {
      const order = pix.txid ? ((await lockOrderByTxid(tx, pix.txid)) ?? null) : null;
      // An invoice's order (its references name the invoice: lib/invoices) is paid by what the invoice
      // asks on the payment's day.
      const invoice = order?.reference.invoiceId ? await lockInvoiceOfOrder(tx, order.id) : undefined;
      const due = invoice ? amountDueAt(invoice, pix.paidAt) : undefined;
      const reason = unappliedReason(order, pix, due);
      // The receipt is sent together with what follows (postgres.js pipelines them on the connection),
      // saving a round trip; one recorded before rolls all of it back.
      const [recorded, outcome] = await Promise.all([
        insertPixReceipt(tx, {
          endToEndId: pix.endToEndId,
          txid: pix.txid,
          orderId: order?.id ?? null,
          merchantId: order?.merchantId ?? null,
          valueCentavos: pix.valueCentavos,
          paidAt: pix.paidAt,
          applied: reason === null,
          unappliedReason: reason,
          source,
        }),
        judged(tx, pix, order, reason, invoice, due),
      ]);
      if (!recorded) throw new DuplicateReceipt();
      if (!order)
        log.warn("PIX received for no order: kept as unapplied funds", {
          endToEndId: pix.endToEndId,
          txid: pix.txid,
          source,
        });
      return outcome;
    });
  } catch (err) {
    if (err instanceof DuplicateReceipt) return { duplicate: true };
    throw err;
  }
}

/** What the PIX does to its order, in the receipt's transaction: pays it, or records its funds as unapplied. */
async function judged(
  tx: Tx,
  pix: ReceivedPix,
  order: Order | null,
  reason: PixReceipt["unappliedReason"],
  invoice: Invoice | undefined,
  due: DayAmount | undefined,
): Promise<ReceiptOutcome> {
  if (!order) return { duplicate: false, applied: false, reason, order: null };
  if (reason === null) {
    const paid = await markOrderPaid(tx, order.id, pix.paidAt, order, invoice ? pix.valueCentavos : undefined);
    if (invoice && paid && due?.payable) await settleInvoice(tx, invoice, paid, pix.endToEndId, due);
    return { duplicate: false, applied: true, reason: null, order: paid ?? order };
  }
  await recordEvent(tx, {
    merchantId: order.merchantId,
    type: "order.funds_unapplied",
    subjectType: "order",
    subjectId: order.id,
    data: {
      ...orderView(order, await orderSplitViews(tx, order)),
      unappliedValue: centavosToBrl(pix.valueCentavos),
      endToEndId: pix.endToEndId,
      paidAt: pix.paidAt.toISOString(),
      reason,
    },
  });
  return { duplicate: false, applied: false, reason, order };
}
