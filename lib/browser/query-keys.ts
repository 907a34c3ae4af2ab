// Every react-query key the dashboard and the checkout use, in one place, so a mutation invalidates
// exactly what it changed.

export const queryKeys = {
  overview: () => ["dashboard", "overview"] as const,
  orders: (params: string) => ["dashboard", "orders", params] as const,
  allOrders: () => ["dashboard", "orders"] as const,
  order: (id: string) => ["dashboard", "order", id] as const,
  withdrawals: () => ["dashboard", "withdrawals"] as const,
  webhooks: () => ["dashboard", "webhooks"] as const,
  publicPayment: (paymentLinkId: string) => ["public", "payment", paymentLinkId] as const,
  publicCryptoPix: (payCryptoPixId: string) => ["public", "crypto-pix", payCryptoPixId] as const,
};

/** How often live views poll while something can still change. */
export const POLL_MS = 2500;
