import type { Order, Subscription, SubscriptionCycle } from "@/db/schema";
import { paymentLink } from "@/lib/links";
import { centavosToBrl } from "@/lib/money";
import type { CycleView, SubscriptionView } from "./schemas";

// Subscriptions and their cycles as every response and event shows them (docs/api.md#subscriptions).

/** What a cycle charges: fixed, or variable with the payer's floor (the API's and the payer page's view). */
export function amountView(s: Pick<Subscription, "fixedCentavos" | "chargeCentavos" | "minimumCentavos">) {
  return {
    type: s.fixedCentavos !== null ? ("FIXED" as const) : ("VARIABLE" as const),
    value: centavosToBrl(s.chargeCentavos),
    minimum: s.minimumCentavos !== null ? centavosToBrl(s.minimumCentavos) : null,
  };
}

export function subscriptionView(s: Subscription): SubscriptionView {
  return {
    id: s.id,
    status: s.status,
    journey: s.journey,
    payer: {
      name: s.payerName,
      ...(s.payerCpf ? { cpf: s.payerCpf } : {}),
      ...(s.payerCnpj ? { cnpj: s.payerCnpj } : {}),
    },
    description: s.description,
    reference: s.reference,
    amount: amountView(s),
    periodicity: s.periodicity,
    firstDate: s.firstDate,
    lastDate: s.lastDate,
    retryPolicy: s.retryPolicy,
    brcode: s.brcode,
    link: paymentLink(s.paymentLinkId),
    recurrenceId: s.idRec,
    nextChargeDate: s.status === "ACTIVE" || s.status === "AWAITING_AUTHORISATION" ? s.nextDueDate : null,
    cancelledBy: s.cancelledBy,
    metadata: s.metadata,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}

export function cycleView(c: SubscriptionCycle, order: Pick<Order, "id" | "status" | "paymentLinkId">): CycleView {
  return {
    id: c.id,
    cycle: c.cycle,
    kind: c.kind,
    status: c.status,
    dueDate: c.dueDate,
    value: centavosToBrl(c.valueCentavos),
    retries: c.retries,
    retryDate: c.retryDate,
    attempts: c.attempts.map((a) => ({
      date: a.settlementDate,
      type: a.type,
      status: a.status,
      failure: a.rejection ? `${a.rejection.code}: ${a.rejection.description}` : null,
    })),
    paidAt: c.payment?.paidAt ?? null,
    endToEndId: c.payment?.endToEndId ?? null,
    failure: c.failure,
    order: { id: order.id, status: order.status, link: paymentLink(order.paymentLinkId) },
    createdAt: c.createdAt.toISOString(),
  };
}
