import { db } from "@/db";
import { env } from "@/lib/env";
import { jobQueue } from "@/lib/jobs/queue";
import { log } from "@/lib/log";
import { ordersAwaitingProvider } from "@/lib/orders/queries";
import { providers } from "@/lib/providers";
import { confirmLightningOrder } from "./confirm";

// The Lightning poll: a callback or a stream event that never came only delays a payment, because every
// invoice a payment could still come or be reported for is read back here (./confirm.ts applies it).

/** How long after its expiry a cancelled order is still asked about: a payment made in time may be reported late. */
export const LATE_REPORT_WINDOW_SECONDS = 24 * 60 * 60;

export const lightningReconcileQueue = jobQueue<object>("lightning-reconcile", { policy: "stately", retryLimit: 0, expireInSeconds: 600 });

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
