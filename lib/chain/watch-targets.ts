import { and, eq, gt, isNull, or, sql } from "drizzle-orm";
import { db } from "@/db";
import { chainCursors, cryptoPixPayments, onchainOrders } from "@/db/schema";
import { env } from "@/lib/env";
import type { Network } from "@/lib/providers/chain/tokens";

// What the deposit watcher reads from the database: the addresses it looks for, and how far it got.

export type WatchTarget = {
  kind: "onchain_order" | "crypto_pix";
  id: string;
  address: string;
  tokenAddress: string;
  decimals: number;
};

/**
 * Deposit addresses on `network` that money may still arrive at: open orders and Crypto-PIX payments,
 * and those closed within CHAIN_LATE_WINDOW_SECONDS, so a late or extra transfer is recorded as
 * unapplied funds (with its event) rather than never seen.
 */
export async function watchTargets(network: Network): Promise<WatchTarget[]> {
  const since = sql`now() - make_interval(secs => ${env().CHAIN_LATE_WINDOW_SECONDS})`;
  const [orders, payments] = await Promise.all([
    db()
      .select({ id: onchainOrders.id, address: onchainOrders.address, tokenAddress: onchainOrders.tokenAddress, decimals: onchainOrders.tokenDecimals })
      .from(onchainOrders)
      .where(and(eq(onchainOrders.network, network), or(isNull(onchainOrders.closedAt), gt(onchainOrders.closedAt, since)))),
    db()
      .select({ id: cryptoPixPayments.id, address: cryptoPixPayments.address, tokenAddress: cryptoPixPayments.tokenAddress, decimals: cryptoPixPayments.tokenDecimals })
      .from(cryptoPixPayments)
      .where(and(eq(cryptoPixPayments.network, network), or(isNull(cryptoPixPayments.closedAt), gt(cryptoPixPayments.closedAt, since)))),
  ]);
  return [
    ...orders.map((o) => ({ kind: "onchain_order" as const, ...o })),
    ...payments.map((p) => ({ kind: "crypto_pix" as const, ...p })),
  ];
}

/** The last block whose transfers were all applied, or null before the first pass. */
export async function readCursor(network: Network): Promise<bigint | null> {
  const [row] = await db().select({ block: chainCursors.blockNumber }).from(chainCursors).where(eq(chainCursors.network, network));
  return row ? BigInt(row.block) : null;
}

/** Moves the cursor forward only: a slower, older pass finishing late cannot move it back. */
export async function saveCursor(network: Network, block: bigint): Promise<void> {
  await db()
    .insert(chainCursors)
    .values({ network, blockNumber: Number(block) })
    .onConflictDoUpdate({
      target: chainCursors.network,
      set: { blockNumber: Number(block), updatedAt: sql`now()` },
      setWhere: sql`${chainCursors.blockNumber} < ${Number(block)}`,
    });
}
