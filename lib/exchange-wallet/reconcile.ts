import { db } from "@/db";
import { env } from "@/lib/env";
import { jobQueue } from "@/lib/jobs/queue";
import { log } from "@/lib/log";
import { ordersAwaitingProvider } from "@/lib/orders/queries";
import { providers } from "@/lib/providers";
import { confirmExchangeOrder } from "./confirm";

// The exchange-wallet poll: a notification that never came only delays a payment, because every order a
// payment could still be reported for is read back here (./confirm.ts applies it).

/** How long after its expiry a cancelled order is still asked about: a payment made in time may be reported late. */
const LATE_REPORT_WINDOW_SECONDS = 24 * 60 * 60;

export const exchangeReconcileQueue = jobQueue<object>("exchange-reconcile", { policy: "stately", retryLimit: 0, expireInSeconds: 600 });

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
