import type { Tx } from "@/db";
import { chainTransfers } from "@/db/schema";

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
};

/**
 * Records a token transfer to one of our addresses. The unique (network, tx hash, log index) makes a
 * transfer count once however often a watcher or a retry reports it; false means it was seen before.
 */
export async function recordTransfer(tx: Tx, transfer: IncomingTransfer & { ownerKind: "onchain_order" | "crypto_pix"; ownerId: string }): Promise<string | null> {
  const [row] = await tx
    .insert(chainTransfers)
    .values({ ...transfer, txHash: transfer.txHash.toLowerCase() })
    .onConflictDoNothing()
    .returning({ id: chainTransfers.id });
  return row?.id ?? null;
}
