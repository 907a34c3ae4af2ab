import { db } from "@/db";
import type { Order } from "@/db/schema";
import { log } from "@/lib/log";
import type { ProviderPaymentOutcome } from "./provider-payments";
import { ordersAwaitingProvider } from "./queries";

/** How long after its expiry a cancelled order is still asked about: a payment made in time may be reported late. */
export const LATE_REPORT_WINDOW_SECONDS = 24 * 60 * 60;

/**
 * One poll of a provider-confirmed rail (Lightning, exchange wallet): every order of `kind` at `provider`
 * a payment could still come or be reported for is confirmed by `confirm`. One the provider cannot
 * answer for is logged and the next poll asks again; the rest go on.
 */
export async function pollAwaitingOrders(
  kind: Order["kind"],
  provider: string,
  confirm: (order: Order) => Promise<ProviderPaymentOutcome | null>,
): Promise<{ read: number; paid: number }> {
  const open = await ordersAwaitingProvider(db(), kind, provider, LATE_REPORT_WINDOW_SECONDS, 500);
  let paid = 0;
  for (const order of open) {
    try {
      const outcome = await confirm(order);
      if (outcome && !outcome.duplicate && outcome.applied) paid++;
    } catch (err) {
      log.warn("provider could not be asked about an order; the next poll tries again", {
        kind,
        orderId: order.id,
        err,
      });
    }
  }
  return { read: open.length, paid };
}
