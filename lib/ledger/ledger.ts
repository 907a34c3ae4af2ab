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
 *
 * The entry is written while holding the merchant's row lock (the SELECT … FOR UPDATE feeding the
 * insert), so its id and its balance_after follow the order entries really applied in: the statement's
 * running balance is exact even when payments land at the same moment.
 */
export async function postLedgerEntry(tx: Tx, posting: LedgerPosting): Promise<boolean> {
  const inserted = await tx.execute<{ id: string }>(sql`
    insert into ledger_entries (merchant_id, kind, amount_centavos, ref_type, ref_id, description, balance_after_centavos)
    select m.id, ${posting.kind}, ${posting.amountCentavos}, ${posting.refType}, ${posting.refId}, ${posting.description ?? null},
           m.balance_centavos + ${posting.amountCentavos}
    from merchants m where m.id = ${posting.merchantId}
    for update
    on conflict do nothing
    returning id`);
  if (inserted.length === 0) {
    // No row: the entry exists already, or the merchant does not (a bug, never a duplicate to ignore).
    const [merchant] = await tx.select({ id: merchants.id }).from(merchants).where(eq(merchants.id, posting.merchantId));
    if (!merchant) throw new Error(`postLedgerEntry: no merchant ${posting.merchantId}`);
    return false;
  }
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
