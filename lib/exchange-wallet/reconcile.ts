import { env } from "@/lib/env";
import { jobQueue } from "@/lib/jobs/queue";
import { pollAwaitingOrders } from "@/lib/orders/provider-poll";
import { providers } from "@/lib/providers";
import { confirmExchangeOrder } from "./confirm";

// The exchange-wallet poll: a notification that never came only delays a payment, because every order a
// payment could still be reported for is read back here (./confirm.ts applies it).

export const exchangeReconcileQueue = jobQueue<object>("exchange-reconcile", {
  policy: "stately",
  retryLimit: 0,
  expireInSeconds: 600,
});

export async function reconcileExchange(): Promise<{ read: number; paid: number }> {
  const exchange = providers().exchange;
  if (!exchange.readPayment || env().PAYMENTS_MODE !== "live") return { read: 0, paid: 0 };
  return pollAwaitingOrders("exchange", exchange.name, (order) => confirmExchangeOrder(order, "poll"));
}
