import { db } from "@/db";
import type { Order } from "@/db/schema";
import { env } from "@/lib/env";
import { jobQueue } from "@/lib/jobs/queue";
import { log } from "@/lib/log";
import { applyProviderPayment, keepProviderUnderpayment, type ProviderPaymentOutcome } from "@/lib/orders/provider-payments";
import { ordersAwaitingProvider } from "@/lib/orders/queries";
import { providers } from "@/lib/providers";
import { readOrderInvoice } from "@/lib/orders/lightning-invoice";

// Live Lightning orders complete by the provider's word only (docs/providers.md): a callback or a stream
// says an invoice may have changed, the invoice is read back, and what the provider answers is applied
// with its own payment time, which expiry is judged by ("Payments reported late"). A poll reads every
// invoice a payment could still come or be reported for, so a lost callback only delays a payment.

/** How long after its expiry a cancelled order is still asked about: a payment made in time may be reported late. */
export const LATE_REPORT_WINDOW_SECONDS = 24 * 60 * 60;

export const lightningReconcileQueue = jobQueue<object>("lightning-reconcile", { policy: "stately", retryLimit: 0, expireInSeconds: 600 });

/**
 * Reads the order's invoice from its provider: a settled one is applied; an underpayment whose rest can
 * no longer come (OpenNode's charge expired) is kept as unapplied funds. A payment still under way
 * (on chain, unconfirmed) or an underpayment that can still be topped up changes nothing yet.
 */
export async function confirmLightningOrder(order: Order, source: "notification" | "poll" | "stream"): Promise<ProviderPaymentOutcome | null> {
  const invoice = await readOrderInvoice(order);
  if (!invoice) return null;
  // One payment per invoice, however it was paid (Lightning, or on chain): it counts once.
  const payment = { provider: order.provider, paymentRef: order.paymentHash ?? order.providerRef!, orderId: order.id, source };
  if (invoice.paid && invoice.paidAt) return applyProviderPayment({ ...payment, paidAt: invoice.paidAt });
  const part = invoice.underpaid;
  if (part && !part.open)
    return keepProviderUnderpayment({ ...payment, paidAt: part.at, receivedSatoshis: part.receivedSatoshis, missingSatoshis: part.missingSatoshis });
  return null;
}

/** One poll over the orders a payment could still be reported for; one that fails is logged, the rest go on. */
export async function reconcileLightning(): Promise<{ read: number; paid: number }> {
  const lightning = providers().lightning;
  if (!lightning.readInvoice || env().PAYMENTS_MODE !== "live") return { read: 0, paid: 0 };
  const open = await ordersAwaitingProvider(db(), "lightning", lightning.name, LATE_REPORT_WINDOW_SECONDS, 500);
  let paid = 0;
  for (const order of open) {
    try {
      const outcome = await confirmLightningOrder(order, "poll");
      if (outcome && !outcome.duplicate && outcome.applied) paid++;
    } catch (err) {
      log.warn("Lightning invoice could not be read; the next poll tries again", { orderId: order.id, err });
    }
  }
  return { read: open.length, paid };
}
