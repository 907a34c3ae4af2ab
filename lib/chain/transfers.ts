import { asc, eq, sql } from "drizzle-orm";
import type { Executor, Tx } from "@/db";
import { chainTransfers, type ChainTransfer } from "@/db/schema";
import { Decimal } from "@/lib/money";
import { strayNote } from "./config";

export type IncomingTransfer = {
  network: string;
  txHash: string;
  logIndex: number;
  fromAddress: string | null;
  toAddress: string;
  tokenAddress: string;
  amount: string;
  /** Where the watcher found it; the sandbox helpers have no block. */
  blockNumber?: number;
  blockHash?: string;
  /** The payment time: the block's timestamp (for the sandbox helpers' transfers, when they were made). */
  blockTime?: Date;
};

/**
 * Records a token transfer to one of our addresses. The unique (network, tx hash, log index) makes a
 * transfer count once however often a watcher or a retry reports it; false means it was seen before.
 */
export async function recordTransfer(
  tx: Tx,
  transfer: IncomingTransfer & { ownerKind: "onchain_order" | "crypto_pix"; ownerId: string },
): Promise<string | null> {
  const [row] = await tx
    .insert(chainTransfers)
    .values({ ...transfer, txHash: transfer.txHash.toLowerCase() })
    .onConflictDoNothing()
    .returning({ id: chainTransfers.id });
  return row?.id ?? null;
}

/** Notes on a recorded transfer how much of it counted, and what happens to the rest and why. */
export async function noteTransferUse(
  ex: Executor,
  transferId: string,
  use: { applied: string; unapplied?: string; note?: string; refundStatus?: "PENDING" },
): Promise<void> {
  await ex
    .update(chainTransfers)
    .set({
      appliedAmount: use.applied,
      ...(use.unapplied !== undefined ? { unappliedAmount: use.unapplied } : {}),
      ...(use.note ? { note: use.note } : {}),
      ...(use.refundStatus ? { refundStatus: use.refundStatus } : {}),
    })
    .where(eq(chainTransfers.id, transferId));
}

/**
 * Records a transfer of another token, or on another network, to an owner's address: none of it counts,
 * and its note tells the merchant why. False when it had been recorded before.
 */
export async function recordStrayTransfer(
  tx: Tx,
  transfer: IncomingTransfer,
  owner: { kind: "onchain_order" | "crypto_pix"; id: string; network: string; asset: string },
  reason: "wrong_token" | "wrong_network",
): Promise<boolean> {
  const transferId = await recordTransfer(tx, { ...transfer, ownerKind: owner.kind, ownerId: owner.id });
  if (!transferId) return false;
  await noteTransferUse(tx, transferId, {
    applied: "0",
    unapplied: transfer.amount,
    note: strayNote(transfer, owner, reason),
  });
  return true;
}

export async function transferById(ex: Executor, id: string): Promise<ChainTransfer | undefined> {
  const [row] = await ex.select().from(chainTransfers).where(eq(chainTransfers.id, id));
  return row;
}

/** Every token transfer recorded for an order or payment, in the order they were paid. */
export async function transfersOf(ex: Executor, ownerId: string): Promise<ChainTransfer[]> {
  return ex
    .select()
    .from(chainTransfers)
    .where(eq(chainTransfers.ownerId, ownerId))
    .orderBy(asc(sql`coalesce(${chainTransfers.blockTime}, ${chainTransfers.createdAt})`), asc(chainTransfers.logIndex))
    .limit(200);
}

/**
 * How a transfer to an order's address counted: all of it, part of it (the rest was more than was
 * due), none (it came after the order closed), or none because it was another token or network.
 */
export type TransferUse = "counted" | "partly_counted" | "not_counted" | "wrong_token" | "wrong_network";

/** `order` is the deposit or Crypto-PIX payment the transfer was paid to: the network and token it asked for. */
export function transferUse(t: ChainTransfer, order: { network: string; tokenAddress: string | null }): TransferUse {
  if (t.network !== order.network) return "wrong_network";
  if (t.tokenAddress.toLowerCase() !== order.tokenAddress?.toLowerCase()) return "wrong_token";
  const counted = new Decimal(t.appliedAmount);
  if (counted.gte(t.amount)) return "counted";
  return counted.gt(0) ? "partly_counted" : "not_counted";
}
