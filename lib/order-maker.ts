import type { Tx } from "@/db";

/**
 * Who makes an order on a payer's behalf (a payment link's sale: lib/payment-links). Its references
 * are added to the order's, and `record` runs the order's insert inside the order's own transaction,
 * where it may lock what it counts, refuse by throwing, and write its own record of the order. Here,
 * below both lib/orders and lib/onchain, so that either can take one.
 */
export type OrderMaker = {
  reference: Record<string, string>;
  record<T extends { id: string }>(
    tx: Tx,
    type: "pix" | "exchange" | "lightning" | "onchain",
    insert: () => Promise<T>,
  ): Promise<T>;
};
