import { eq, sql } from "drizzle-orm";
import { db } from "@/db";
import { chainCursors } from "@/db/schema";
import type { Network } from "@/lib/chain/tokens";

// How far the deposit watcher got on each network: every transfer up to the cursor's block is
// applied, and the block's time is what lets orders on that network expire (lib/chain/payment-clock.ts).

/** The last block whose transfers were all applied, or null before the first pass. */
export async function readCursor(network: Network): Promise<bigint | null> {
  const [row] = await db()
    .select({ block: chainCursors.blockNumber })
    .from(chainCursors)
    .where(eq(chainCursors.network, network));
  return row ? BigInt(row.block) : null;
}

/** Moves the cursor forward only: a slower, older pass finishing late cannot move it back. */
export async function saveCursor(network: Network, block: bigint, blockTime: Date): Promise<void> {
  await db()
    .insert(chainCursors)
    .values({ network, blockNumber: Number(block), blockTime })
    .onConflictDoUpdate({
      target: chainCursors.network,
      set: { blockNumber: Number(block), blockTime, updatedAt: sql`now()` },
      setWhere: sql`${chainCursors.blockNumber} < ${Number(block)}`,
    });
}
