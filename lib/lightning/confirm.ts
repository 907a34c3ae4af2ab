import type { Order } from "@/db/schema";
import {
  applyProviderPayment,
  keepProviderUnderpayment,
  type ProviderPaymentOutcome,
} from "@/lib/orders/provider-payments";
import { readOrderInvoice } from "@/lib/orders/lightning-invoice";

// Live Lightning orders complete by the provider's word only (docs/providers.md): a callback
// (./endpoints.ts) or the node's stream (./stream.ts) says an invoice may have changed, the invoice is
// read back, and what the provider answers is applied with its own payment time, which expiry is judged
// by ("Payments reported late"). The poll (./reconcile.ts) reads every invoice a payment could still
// come or be reported for, so a lost callback only delays a payment.

/**
 * Reads the order's invoice from its provider: a settled one is applied; an underpayment whose rest can
 * no longer come (OpenNode's charge expired) is kept as unapplied funds. A payment still under way
 * (on chain, unconfirmed) or an underpayment that can still be topped up changes nothing yet.
 */
export async function confirmLightningOrder(
  order: Order,
  source: "notification" | "poll" | "stream",
): Promise<ProviderPaymentOutcome | null> {
  const invoice = await readOrderInvoice(order);
  if (!invoice) return null;
  // One payment per invoice, however it was paid (Lightning, or on chain): it counts once.
  const payment = {
    provider: order.provider,
    paymentRef: order.paymentHash ?? order.providerRef!,
    orderId: order.id,
    source,
  };
  if (invoice.paid && invoice.paidAt) return applyProviderPayment({ ...payment, paidAt: invoice.paidAt });
  const part = invoice.underpaid;
  if (part && !part.open)
    return keepProviderUnderpayment({
      ...payment,
      paidAt: part.at,
      receivedSatoshis: part.receivedSatoshis,
      missingSatoshis: part.missingSatoshis,
    });
  return null;
}
