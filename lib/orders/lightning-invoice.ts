import type { Order } from "@/db/schema";
import { log } from "@/lib/log";
import { providers } from "@/lib/providers";
import type { RemoteInvoice } from "@/lib/providers/lightning/types";

// A Lightning order's invoice as its provider reports it, for the completion paths (callback, poll)
// and for the expiry sweep. Only the provider's own record counts, and only when it is this order's.

/** The order's invoice, read from its provider; null when the provider cannot be asked about it, or its record is another order's. */
export async function readOrderInvoice(order: Order): Promise<RemoteInvoice | null> {
  const lightning = providers().lightning;
  if (!lightning.readInvoice || order.provider !== lightning.name || !order.providerRef) return null;
  const invoice = await lightning.readInvoice(order.providerRef);
  // The provider keeps our payment link id (OpenNode's order_id) and the amount: a record naming another
  // order or another amount is never applied to this one.
  const otherOrder = invoice.orderRef && invoice.orderRef !== order.paymentLinkId;
  const otherAmount = invoice.satoshis !== undefined && order.satoshis !== null && invoice.satoshis !== order.satoshis;
  if (otherOrder || otherAmount) {
    log.error("Lightning provider's record does not match its order; nothing applied", {
      orderId: order.id,
      providerRef: order.providerRef,
      orderRef: invoice.orderRef,
      satoshis: invoice.satoshis,
    });
    return null;
  }
  return invoice;
}

/**
 * Whether a payment made by `expiresAt` is settled or under way (an on-chain payment awaiting its
 * confirmations): the order is then not cancelled at its expiry, and the payment is applied once the
 * provider settles it. A payment made after `expiresAt` does not hold the order open.
 */
export function paidOrUnderWayBy(invoice: RemoteInvoice, expiresAt: Date): boolean {
  if (invoice.paid) return invoice.paidAt !== null && invoice.paidAt.getTime() <= expiresAt.getTime();
  // Under way with no time given: it may have been made in time, so the order waits for the provider.
  return !!invoice.pending && (invoice.pending.at === null || invoice.pending.at.getTime() <= expiresAt.getTime());
}
