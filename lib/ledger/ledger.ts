import { eq, sql } from "drizzle-orm";
import type { Executor, Tx } from "@/db";
import { ledgerEntries, merchants, type LedgerEntry } from "@/db/schema";

export type LedgerPosting = Pick<LedgerEntry, "merchantId" | "kind" | "amountCentavos" | "refType" | "refId"> & {
  description?: string;
};

/**
 * Appends one entry and moves the merchant's balance by the same amount, in the caller's transaction.
 * Returns false when an entry for the same (kind, ref) already exists: money for one event moves once.
 * The balance column's CHECK (>= 0) refuses an overdraft even if a caller forgot to check.
 */
export async function postLedgerEntry(tx: Tx, posting: LedgerPosting): Promise<boolean> {
  const inserted = await tx.insert(ledgerEntries).values(posting).onConflictDoNothing().returning({ id: ledgerEntries.id });
  if (inserted.length === 0) return false;
  await tx
    .update(merchants)
    .set({ balanceCentavos: sql`${merchants.balanceCentavos} + ${posting.amountCentavos}`, updatedAt: sql`now()` })
    .where(eq(merchants.id, posting.merchantId));
  return true;
}

/** The ledger's own sum for a merchant: what the stored balance must always equal. */
export async function ledgerSum(db: Executor, merchantId: string): Promise<number> {
  const [row] = await db
    .select({ sum: sql<string>`coalesce(sum(${ledgerEntries.amountCentavos}), 0)` })
    .from(ledgerEntries)
    .where(eq(ledgerEntries.merchantId, merchantId));
  return Number(row.sum);
}
