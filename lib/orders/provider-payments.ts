import { db, type Tx } from "@/db";
import { orderSplitViews } from "@/lib/splits/service";
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
// sweep already cancelled (docs/providers.md#payments-reported-late-every-provider) — and is otherwise kept as unapplied funds with an event.

export type ProviderPayment = {
  provider: string;
  paymentRef: string;
  orderId: string;
  paidAt: Date;
  source: OrderReceipt["source"];
};
export type ProviderPaymentOutcome =
  { duplicate: true } | { duplicate: false; applied: boolean; reason: OrderReceipt["unappliedReason"]; order: Order };
/** Part of an order's amount that arrived and cannot become the whole any more (OpenNode's `underpaid`, its charge closed). */
export type ProviderUnderpayment = ProviderPayment & { receivedSatoshis: number; missingSatoshis: number };

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
    await fundsUnapplied(tx, order, payment, reason, { unappliedValue: centavosToBrl(order.valueCentavos) });
    return { duplicate: false, applied: false, reason, order } as const;
  });
}

/**
 * An underpayment is never credited nor dropped: it is kept once (the same provider + payment id a
 * whole payment would take, so the invoice's money counts once either way) as unapplied funds
 * (`wrong_value`), with an event naming what arrived; the order itself is left as it is (the sweep
 * cancels it at its expiry, since it was not paid).
 */
export async function keepProviderUnderpayment(part: ProviderUnderpayment): Promise<ProviderPaymentOutcome | null> {
  return db().transaction(async (tx) => {
    const order = await lockOrder(tx, part.orderId);
    if (!order) return null;
    const recorded = await insertOrderReceipt(tx, {
      provider: part.provider,
      paymentRef: part.paymentRef,
      orderId: order.id,
      merchantId: order.merchantId,
      paidAt: part.paidAt,
      applied: false,
      unappliedReason: "wrong_value",
      source: part.source,
    });
    if (!recorded) return { duplicate: true } as const;
    await fundsUnapplied(tx, order, part, "wrong_value", {
      // What arrived, valued at the order's own rate (its satoshis for its value), rounded down to the centavo.
      unappliedValue: centavosToBrl(shareOfValue(order, part.receivedSatoshis)),
      unappliedSatoshis: part.receivedSatoshis,
      missingSatoshis: part.missingSatoshis,
    });
    return { duplicate: false, applied: false, reason: "wrong_value", order } as const;
  });
}

/** The centavos of the order's value that `satoshis` of its amount stand for, rounded down (exact integer arithmetic). */
function shareOfValue(order: Order, satoshis: number): number {
  if (!order.satoshis) return 0;
  return Number((BigInt(order.valueCentavos) * BigInt(Math.min(satoshis, order.satoshis))) / BigInt(order.satoshis));
}

async function fundsUnapplied(
  tx: Tx,
  order: Order,
  payment: ProviderPayment,
  reason: NonNullable<OrderReceipt["unappliedReason"]>,
  amounts: Record<string, number>,
) {
  await recordEvent(tx, {
    merchantId: order.merchantId,
    type: "order.funds_unapplied",
    subjectType: "order",
    subjectId: order.id,
    data: {
      ...orderView(order, await orderSplitViews(tx, order)),
      ...amounts,
      paymentRef: payment.paymentRef,
      paidAt: payment.paidAt.toISOString(),
      reason,
    },
  });
  log.warn("provider payment kept as unapplied funds", { orderId: order.id, provider: payment.provider, reason });
}
