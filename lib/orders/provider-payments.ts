import { db } from "@/db";
import type { Order, OrderReceipt } from "@/db/schema";
import { recordEvent } from "@/lib/events/outbox";
import { log } from "@/lib/log";
import { centavosToBrl } from "@/lib/money";
import { insertOrderReceipt, lockOrder } from "./queries";
import { markOrderPaid } from "./service";
import { orderView } from "./views";

// A Lightning or exchange-wallet payment a provider vouched for (its signed notification confirmed
// by a read, its stream, or our poll of it). It counts once (provider + its payment's id), completes
// its order when it was made, by the provider's clock, within the order's expiry — also an order the
// sweep already cancelled (CONTRACT §6) — and is otherwise kept as unapplied funds with an event.

export type ProviderPayment = { provider: string; paymentRef: string; orderId: string; paidAt: Date; source: OrderReceipt["source"] };
export type ProviderPaymentOutcome = { duplicate: true } | { duplicate: false; applied: boolean; reason: OrderReceipt["unappliedReason"]; order: Order };

export async function applyProviderPayment(payment: ProviderPayment): Promise<ProviderPaymentOutcome | null> {
  return db().transaction(async (tx) => {
    const order = await lockOrder(tx, payment.orderId);
    if (!order) return null;
    const reason =
      order.status !== "PENDING" && order.status !== "CANCELLED"
        ? ("order_not_pending" as const)
        : order.expiresAt && payment.paidAt.getTime() > order.expiresAt.getTime()
          ? ("after_expiry" as const)
          : null;
    const recorded = await insertOrderReceipt(tx, {
      provider: payment.provider,
      paymentRef: payment.paymentRef,
      orderId: order.id,
      merchantId: order.merchantId,
      paidAt: payment.paidAt,
      applied: reason === null,
      unappliedReason: reason,
      source: payment.source,
    });
    if (!recorded) return { duplicate: true } as const;
    if (reason === null) {
      const paid = await markOrderPaid(tx, order.id, payment.paidAt, order);
      log.info("order paid", { orderId: order.id, provider: payment.provider, source: payment.source });
      return { duplicate: false, applied: true, reason, order: paid ?? order } as const;
    }
    await recordEvent(tx, {
      merchantId: order.merchantId,
      type: "order.funds_unapplied",
      subjectType: "order",
      subjectId: order.id,
      data: { ...orderView(order), unappliedValue: centavosToBrl(order.valueCentavos), paymentRef: payment.paymentRef, paidAt: payment.paidAt.toISOString(), reason },
    });
    log.warn("provider payment kept as unapplied funds", { orderId: order.id, provider: payment.provider, reason });
    return { duplicate: false, applied: false, reason, order } as const;
  });
}
