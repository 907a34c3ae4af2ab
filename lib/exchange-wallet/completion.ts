import { db } from "@/db";
import type { Order } from "@/db/schema";
import { env } from "@/lib/env";
import { jobQueue } from "@/lib/jobs/queue";
import { log } from "@/lib/log";
import { applyProviderPayment, type ProviderPaymentOutcome } from "@/lib/orders/provider-payments";
import { ordersAwaitingProvider } from "@/lib/orders/queries";
import { providers } from "@/lib/providers";

// Live exchange-wallet orders complete by the provider's word only (docs/providers.md#what-every-adapter-does): a notification
// whose signature verifies is a hint to read the order back, and what the provider answers is
// applied with its own payment time. A poll reads every order a payment could still be reported for.

/** How long after its expiry a cancelled order is still asked about: a payment made in time may be reported late. */
const LATE_REPORT_WINDOW_SECONDS = 24 * 60 * 60;

export const exchangeReconcileQueue = jobQueue<object>("exchange-reconcile", { policy: "stately", retryLimit: 0, expireInSeconds: 600 });

export async function confirmExchangeOrder(order: Order, source: "notification" | "poll"): Promise<ProviderPaymentOutcome | null> {
  const exchange = providers().exchange;
  if (!exchange.readPayment || order.provider !== exchange.name || !order.providerRef) return null;
  const state = await exchange.readPayment({ merchantTradeNo: order.paymentLinkId, providerRef: order.providerRef });
  if (state.status !== "paid" || !state.paidAt) return null;
  return applyProviderPayment({ provider: order.provider, paymentRef: state.paymentRef ?? order.providerRef, orderId: order.id, paidAt: state.paidAt, source });
}

export async function reconcileExchange(): Promise<{ read: number; paid: number }> {
  const exchange = providers().exchange;
  if (!exchange.readPayment || env().PAYMENTS_MODE !== "live") return { read: 0, paid: 0 };
  const open = await ordersAwaitingProvider(db(), "exchange", exchange.name, LATE_REPORT_WINDOW_SECONDS, 500);
  let paid = 0;
  for (const order of open) {
    try {
      const outcome = await confirmExchangeOrder(order, "poll");
      if (outcome && !outcome.duplicate && outcome.applied) paid++;
    } catch (err) {
      log.warn("exchange-wallet order could not be read; the next poll tries again", { orderId: order.id, err });
    }
  }
  return { read: open.length, paid };
}
