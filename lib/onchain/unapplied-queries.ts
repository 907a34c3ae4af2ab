import { and, asc, eq, isNull, sql } from "drizzle-orm";
import type { PgInsertValue, PgUpdateSetSource } from "drizzle-orm/pg-core";
import type { Executor } from "@/db";
import {
  chainTransfers,
  onchainOrders,
  unappliedResolutions,
  type OnchainOrder,
  type UnappliedResolution,
} from "@/db/schema";

// The SQL of what merchants do with unapplied on-chain funds (./unapplied.ts), executor first.

/**
 * Records the resolution of one transfer's unapplied funds; undefined when that transfer already has
 * one (the unique transfer_id: a second click, or an accept racing a return, inserts nothing).
 */
export async function insertResolution(
  ex: Executor,
  values: PgInsertValue<typeof unappliedResolutions>,
): Promise<UnappliedResolution | undefined> {
  const [row] = await ex
    .insert(unappliedResolutions)
    .values(values)
    // The unique index spares cancelled returns (their funds may be decided again): the same predicate here.
    .onConflictDoNothing({ target: unappliedResolutions.transferId, where: sql`cancelled_at is null` })
    .returning();
  return row;
}

export async function lockResolution(ex: Executor, id: string): Promise<UnappliedResolution | undefined> {
  const [row] = await ex.select().from(unappliedResolutions).where(eq(unappliedResolutions.id, id)).for("update");
  return row;
}

/** A PENDING return decided by its transaction's receipt; undefined when it was decided before. */
export async function decideResolution(
  ex: Executor,
  id: string,
  set: PgUpdateSetSource<typeof unappliedResolutions>,
): Promise<UnappliedResolution | undefined> {
  const [row] = await ex
    .update(unappliedResolutions)
    .set({ ...set, updatedAt: sql`now()` })
    .where(and(eq(unappliedResolutions.id, id), eq(unappliedResolutions.status, "PENDING")))
    .returning();
  return row;
}

export async function setResolutionChainTx(ex: Executor, id: string, chainTxId: string, txHash: string): Promise<void> {
  await ex.update(unappliedResolutions).set({ chainTxId, txHash }).where(eq(unappliedResolutions.id, id));
}

/** An order's resolutions that stand (a cancelled return is set aside), oldest first. */
export function resolutionsOf(ex: Executor, orderId: string): Promise<UnappliedResolution[]> {
  return ex
    .select()
    .from(unappliedResolutions)
    .where(and(eq(unappliedResolutions.orderId, orderId), isNull(unappliedResolutions.cancelledAt)))
    .orderBy(asc(unappliedResolutions.createdAt));
}

/** Adds an accepted amount to what the order credited. */
export async function addCredited(ex: Executor, orderId: string, centavos: number): Promise<OnchainOrder> {
  const [row] = await ex
    .update(onchainOrders)
    .set({ creditedCentavos: sql`${onchainOrders.creditedCentavos} + ${centavos}`, updatedAt: sql`now()` })
    .where(eq(onchainOrders.id, orderId))
    .returning();
  return row;
}

/** The transfer's return state, which the solvency report and the transfers list read (as Crypto-PIX refunds set it). */
export async function setTransferReturn(
  ex: Executor,
  transferId: string,
  status: "PENDING" | "COMPLETED" | "FAILED",
  note: string,
): Promise<void> {
  await ex.update(chainTransfers).set({ refundStatus: status, note }).where(eq(chainTransfers.id, transferId));
}
