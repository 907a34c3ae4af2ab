// What a merchant reads for an order's status. The API keeps the spec's statuses; the dashboard and
// the checkout tell an order that simply ran out of time ("Expirado") from one that went wrong.
// Expiry is the only way into CANCELLED (PIX, exchange wallet, Lightning: lib/orders/service
// expireOrders) and into FAILED for on-chain deposits and Crypto-PIX (closed at expiry with nothing
// received: lib/onchain/service, lib/crypto-pix/service), so kind and status are enough to say it.

export type DisplayStatus =
  "PENDING" | "COMPLETED" | "CANCELLED" | "FAILED" | "REFUND" | "REFUNDED" | "PARTIAL_ORDER" | "EXPIRED";

const CHAIN_KINDS = new Set(["onchain", "crypto_pix"]);

export function displayStatus(kind: string | undefined, status: string): string {
  if (status === "CANCELLED" && kind !== undefined && !CHAIN_KINDS.has(kind)) return "EXPIRED";
  if (status === "FAILED" && kind !== undefined && CHAIN_KINDS.has(kind)) return "EXPIRED";
  return status;
}
