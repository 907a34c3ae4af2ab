import { env } from "@/lib/env";
import { jobQueue } from "@/lib/jobs/queue";
import { pollAwaitingOrders } from "@/lib/orders/provider-poll";
import { providers } from "@/lib/providers";
import { confirmLightningOrder } from "./confirm";

// The Lightning poll: a callback or a stream event that never came only delays a payment, because every
// invoice a payment could still come or be reported for is read back here (./confirm.ts applies it).

export const lightningReconcileQueue = jobQueue<object>("lightning-reconcile", {
  policy: "stately",
  retryLimit: 0,
  expireInSeconds: 600,
});

export async function reconcileLightning(): Promise<{ read: number; paid: number }> {
  const lightning = providers().lightning;
  if (!lightning.readInvoice || env().PAYMENTS_MODE !== "live") return { read: 0, paid: 0 };
  return pollAwaitingOrders("lightning", lightning.name, (order) => confirmLightningOrder(order, "poll"));
}
