import type { Invoice, InvoicePayment, Order } from "@/db/schema";
import { paymentLink } from "@/lib/links";
import { centavosToBrl } from "@/lib/money";
import { addDays } from "@/lib/pix/business-days";
import { amountDue, dueWindow } from "@/lib/pix/due-amount";
import { providers } from "@/lib/providers";
import type { InvoiceView, PublicInvoice } from "./schemas";
import { amountDueAt, amountView, termViews, termsOf } from "./terms";

/**
 * The BR Code that pays it today: the PSP's code (its payload carries the day's amount), or where
 * the code itself carries the amount (the sandbox's static codes), one with today's.
 */
export function invoiceCode(i: Invoice, order: Order | null, now = new Date()): string | null {
  if (!order?.brcode) return null;
  const codeForDay = providers().dueCharges.codeForDay;
  const today = amountDueAt(i, now);
  if (!codeForDay || i.status !== "OPEN" || !today.payable || today.totalCentavos <= 0) return order.brcode;
  return codeForDay(i.txid, today.totalCentavos, i.description ?? undefined);
}

/** What a payment was made of, in BRL. */
function paymentParts(p: InvoicePayment) {
  return {
    day: p.day,
    value: centavosToBrl(p.totalCentavos),
    original: centavosToBrl(p.originalCentavos),
    fine: centavosToBrl(p.fineCentavos),
    interest: centavosToBrl(p.interestCentavos),
    abatement: centavosToBrl(p.abatementCentavos),
    discount: centavosToBrl(p.discountCentavos),
  };
}

/** The invoice as every response and event shows it (docs/api.md#invoices). */
export function invoiceView(i: Invoice, order: Order | null, now = new Date()): InvoiceView {
  const { due } = dueWindow(termsOf(i));
  const open = i.status === "OPEN" || i.status === "PROCESSING";
  const p = i.payment;
  return {
    id: i.id,
    status: i.status,
    reference: i.reference,
    description: i.description,
    payer: {
      name: i.payerName,
      ...(i.payerCpf ? { cpf: i.payerCpf } : {}),
      ...(i.payerCnpj ? { cnpj: i.payerCnpj } : {}),
      ...(i.payerEmail ? { email: i.payerEmail } : {}),
    },
    value: centavosToBrl(i.originalCentavos),
    dueDate: i.dueDate,
    daysAfterDue: i.daysAfterDue,
    effectiveDueDate: due,
    lastPayableDay: i.lastPayableDay,
    expiresAt: i.expiresAt.toISOString(),
    ...termViews(i),
    amountDue: open ? amountView(amountDueAt(i, now)) : null,
    brcode: invoiceCode(i, order, now),
    link: order ? paymentLink(order.paymentLinkId) : null,
    order: order ? { id: order.id, paymentLinkId: order.paymentLinkId, status: order.status } : null,
    payment:
      p && order?.paidAt ? { ...paymentParts(p), paidAt: order.paidAt.toISOString(), endToEndId: p.endToEndId } : null,
    batchId: i.batchId,
    problem: i.problem ?? null,
    notifyPayer: i.notifyPayer,
    mailedAt: i.mailedAt?.toISOString() ?? null,
    createdAt: i.createdAt.toISOString(),
    closedAt: i.closedAt?.toISOString() ?? null,
    metadata: i.metadata,
  };
}

/** The payer's view of the invoice (the public payment of its order). */
export function publicInvoiceView(i: Invoice, now = new Date()): PublicInvoice {
  const terms = termsOf(i);
  const { due } = dueWindow(terms);
  const open = i.status === "OPEN";
  const p = i.payment;
  return {
    status: i.status,
    payerName: i.payerName,
    description: i.description,
    value: centavosToBrl(i.originalCentavos),
    dueDate: i.dueDate,
    effectiveDueDate: due,
    lastPayableDay: i.lastPayableDay,
    ...termViews(i),
    amountDue: open ? amountView(amountDueAt(i, now)) : null,
    onDueDate: amountView(amountDue(terms, due)),
    afterDueDate: amountView(amountDue(terms, addDays(due, 1))),
    payment: p ? paymentParts(p) : null,
  };
}
