import { and, eq, inArray, sql } from "drizzle-orm";
import type { Tx } from "@/db";
import { invoices, type Invoice, type InvoicePayment, type InvoiceStatus, type Order } from "@/db/schema";
import { recordEvent } from "@/lib/events/outbox";
import type { DayAmount } from "@/lib/pix/due-amount";
import { invoiceView } from "./views";

// An invoice's state changes, each in the caller's transaction with its event (invoice.status_changed,
// docs/webhooks.md): paid (from lib/orders, in the transaction that completes its PIX order), expired,
// cancelled, and a batch's charge made or refused by the PSP. Every change is
// `UPDATE … WHERE status IN (allowed)`: a final state never changes, and of two racing changes one wins.

/** The invoice a PIX order takes the payment of, locked for it; undefined for any other order. */
export async function lockInvoiceOfOrder(tx: Tx, orderId: string): Promise<Invoice | undefined> {
  const [row] = await tx.select().from(invoices).where(eq(invoices.orderId, orderId)).for("update");
  return row;
}

/**
 * `from` → `to`, with `set`, and its event; undefined (nothing written) when the invoice was no longer
 * in one of `from`. `order` is the invoice's order as this transaction leaves it.
 */
export async function changeInvoiceStatus(
  tx: Tx,
  before: Invoice,
  from: readonly InvoiceStatus[],
  to: InvoiceStatus,
  order: Order | null,
  set: Partial<Pick<Invoice, "payment" | "problem" | "orderId" | "closedAt">> = {},
): Promise<Invoice | undefined> {
  const closes = to !== "OPEN" && to !== "PROCESSING";
  const [after] = await tx
    .update(invoices)
    .set({ ...set, status: to, updatedAt: sql`now()`, ...(closes && !set.closedAt ? { closedAt: sql`now()` } : {}) })
    .where(and(eq(invoices.id, before.id), inArray(invoices.status, [...from])))
    .returning();
  if (!after) return undefined;
  await recordEvent(tx, {
    merchantId: after.merchantId,
    type: "invoice.status_changed",
    subjectType: "invoice",
    subjectId: after.id,
    data: { ...invoiceView(after, order), previousStatus: before.status },
  });
  return after;
}

/**
 * In the payment's transaction, once its order is COMPLETED with what was paid: the invoice becomes
 * PAID with how it was paid. One paid in time but reported after it was marked expired or cancelled
 * becomes PAID too: the money came and was credited.
 */
export async function settleInvoice(
  tx: Tx,
  invoice: Invoice,
  paidOrder: Order,
  endToEndId: string,
  due: Extract<DayAmount, { payable: true }>,
): Promise<Invoice | undefined> {
  const payment: InvoicePayment = {
    day: due.day,
    endToEndId,
    originalCentavos: due.originalCentavos,
    fineCentavos: due.fineCentavos,
    interestCentavos: due.interestCentavos,
    abatementCentavos: due.abatementCentavos,
    discountCentavos: due.discountCentavos,
    totalCentavos: due.totalCentavos,
  };
  return changeInvoiceStatus(tx, invoice, ["OPEN", "EXPIRED", "CANCELLED"], "PAID", paidOrder, { payment });
}
