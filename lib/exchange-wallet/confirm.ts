import type { Order } from "@/db/schema";
import { applyProviderPayment, type ProviderPaymentOutcome } from "@/lib/orders/provider-payments";
import { providers } from "@/lib/providers";

// Live exchange-wallet orders complete by the provider's word only (docs/providers.md#what-every-adapter-does): a notification
// whose signature verifies (./endpoints.ts) is a hint to read the order back, and what the provider
// answers is applied with its own payment time. The poll (./reconcile.ts) reads every order a payment
// could still be reported for.

export async function confirmExchangeOrder(
  order: Order,
  source: "notification" | "poll",
): Promise<ProviderPaymentOutcome | null> {
  const exchange = providers().exchange;
  if (!exchange.readPayment || order.provider !== exchange.name || !order.providerRef) return null;
  const state = await exchange.readPayment({ merchantTradeNo: order.paymentLinkId, providerRef: order.providerRef });
  if (state.status !== "paid" || !state.paidAt) return null;
  return applyProviderPayment({
    provider: order.provider,
    paymentRef: state.paymentRef ?? order.providerRef,
    orderId: order.id,
    paidAt: state.paidAt,
    source,
  });
}
