import { eq, sql, type SQL } from "drizzle-orm";
import type { Executor, Tx } from "@/db";
import { db } from "@/db";
import type { SqlValue } from "@/db/prepared";
import { ledgerEntries, merchants, type LedgerEntry } from "@/db/schema";
import { InsufficientBalance } from "@/lib/errors";
import { formatBrl } from "@/lib/money";

// The append-only ledger and the balance it backs. A merchant's balance is merchants.balance_centavos
// (the folded part) plus its unfolded_credits, and equals the sum of its ledger entries in every
// snapshot, because each entry commits together with the change it makes to one of the two:
//   - a credit (money in) inserts its entry and an unfolded credit, and never touches the merchant
//     row, so a busy merchant's incoming payments do not queue behind each other or its debits;
//   - a debit (money out) locks the merchant row, folds the unfolded credits into it (deleting them,
//     in the same transaction) and moves the row. A debit the merchant initiates (a withdrawal, a
//     refund) is checked against the balance it locked (coverDebit); one it did not (a MED devolução)
//     is not, and may leave the balance below zero until credits cover it.
// Folding only ever moves an amount from one side to the other inside one transaction, so a reader
// sees it before or after, never half-done. Whoever folds holds the merchant row first (a debit, or
// the sweep's foldBalances), so two folds never wait on each other's deleted rows in opposite order.

export type LedgerPosting = Pick<LedgerEntry, "merchantId" | "kind" | "amountCentavos" | "refType" | "refId"> & {
  description?: string;
};

/**
 * Appends one entry and moves the merchant's balance by the same amount, in the caller's transaction.
 * Returns false when an entry for the same (kind, ref) already exists: money for one event moves once.
 * A debit takes the merchant row's lock (callers that check the balance first take it earlier, with
 * lockBalance); a credit takes none.
 */
export async function postLedgerEntry(tx: Tx, posting: LedgerPosting): Promise<boolean> {
  if (posting.amountCentavos > 0) {
    // One statement for both rows: a credit is on every payment's path, inside its transaction.
    const rows = await tx.execute(sql`with ${creditCtes(posting)} select entry_id from unfolded_credit`);
    return rows.length > 0;
  }
  const inserted = await tx
    .insert(ledgerEntries)
    .values(posting)
    .onConflictDoNothing()
    .returning({ id: ledgerEntries.id });
  if (inserted.length === 0) return false;
  await lockRow(tx, posting.merchantId);
  await foldLocked(tx, posting.merchantId, posting.amountCentavos);
  return true;
}

/**
 * The CTEs that post a credit (amount > 0), for a statement that may write more: its entry
 * (`credit_entry`, skipped when one for the same kind and ref exists) and its unfolded credit
 * (`unfolded_credit`: entry_id), never the merchant row. With `onlyIf` (the FROM of the insert: a
 * CTE, or a join of CTEs), one credit is posted per row it has, so none when the change it pays for
 * did not happen; the values may then be that row's columns.
 */
export function creditCtes(c: { [K in keyof LedgerPosting]: SqlValue<LedgerPosting[K]> }, onlyIf?: SQL): SQL {
  return sql`
    credit_entry as (
      insert into ledger_entries (merchant_id, kind, amount_centavos, ref_type, ref_id, description)
      select ${c.merchantId}, ${c.kind}, ${c.amountCentavos}, ${c.refType}, ${c.refId}, ${c.description ?? null}
      ${onlyIf ? sql`from ${onlyIf}` : sql``}
      on conflict do nothing
      returning id, merchant_id, amount_centavos
    ),
    unfolded_credit as (
      insert into unfolded_credits (entry_id, merchant_id, amount_centavos)
      select id, merchant_id, amount_centavos from credit_entry
      returning entry_id
    )`;
}

/**
 * Locks the merchant row until the transaction ends and folds its unfolded credits into it; returns
 * the balance, which nothing can lower before commit but this transaction. Credits that commit
 * meanwhile only add to it. What serialises a merchant's debits (withdrawals, refunds).
 */
export async function lockBalance(tx: Tx, merchantId: string): Promise<number> {
  const balance = await lockRow(tx, merchantId);
  return balance + (await foldLocked(tx, merchantId, 0));
}

/**
 * Refuses a debit the merchant asks for (a withdrawal, a refund) that the locked `balance` does not
 * cover, and any while the balance is negative: money the merchant owes (a devolução it did not
 * request) is paid back by its next credits before anything else leaves.
 */
export function coverDebit(balance: number, debit: number, what: "withdrawal" | "refund"): void {
  if (balance < 0) {
    throw new InsufficientBalance(
      `Negative balance: the balance is ${formatBrl(balance)} after a PIX the merchant received was returned to its payer (MED); ` +
        `${what}s are blocked until new credits cover it`,
    );
  }
  if (debit > balance) {
    throw new InsufficientBalance(
      `Insufficient balance: this ${what} needs ${formatBrl(debit)} and the available balance is ${formatBrl(balance)}`,
      {
        code: "balance.insufficient",
        values: { debit: what, needed: debit, balance },
      },
    );
  }
}

async function lockRow(tx: Tx, merchantId: string): Promise<number> {
  // NO KEY UPDATE, not UPDATE: inserts that reference the merchant (orders, ledger entries) take
  // KEY SHARE on its row, which FOR UPDATE would make wait for the whole debit.
  const [row] = await tx
    .select({ balance: merchants.balanceCentavos })
    .from(merchants)
    .where(eq(merchants.id, merchantId))
    .for("no key update");
  if (!row) throw new Error(`merchant ${merchantId} not found`);
  return row.balance;
}

/**
 * With the merchant row locked by this transaction: moves its unfolded credits into the row, plus
 * `debit` (zero or negative), in one statement; returns the credits moved.
 */
async function foldLocked(tx: Tx, merchantId: string, debit: number): Promise<number> {
  const [row] = await tx.execute<{ amount: string }>(sql`
    with folded as (delete from unfolded_credits where merchant_id = ${merchantId} returning amount_centavos),
    total as (select coalesce(sum(amount_centavos), 0) as amount from folded),
    moved as (
      update merchants set balance_centavos = balance_centavos + total.amount + ${debit}, updated_at = now()
      from total where merchants.id = ${merchantId} and (total.amount <> 0 or ${debit} <> 0)
      returning 1
    )
    select amount from total`);
  return Number(row.amount);
}

/**
 * The sweep's step: folds the unfolded credits of up to `batch` merchants, each in its own short
 * transaction, so balance reads stay a sum over few rows. A merchant whose row is locked (a debit is
 * folding it right now) is skipped. Returns how many merchants were folded.
 */
export async function foldBalances(batch = 500): Promise<number> {
  const rows = await db().execute<{ merchant_id: string }>(
    sql`select distinct merchant_id from unfolded_credits limit ${batch}`,
  );
  let folded = 0;
  for (const { merchant_id: merchantId } of rows) {
    const done = await db().transaction(async (tx) => {
      const [locked] = await tx
        .select({ id: merchants.id })
        .from(merchants)
        .where(eq(merchants.id, merchantId))
        .for("no key update", { skipLocked: true });
      if (!locked) return false;
      return (await foldLocked(tx, merchantId, 0)) !== 0;
    });
    if (done) folded++;
  }
  return folded;
}

/** The balance as shown (the folded part plus what is not folded yet), as a column of a query on merchants. */
export function shownBalance(): SQL<number> {
  // Spelled out qualified: Drizzle leaves single-table columns unqualified, and inside the subquery
  // a bare column would mean unfolded_credits'.
  return sql<number>`(merchants.balance_centavos + coalesce((select sum(u.amount_centavos) from unfolded_credits u where u.merchant_id = merchants.id), 0))::bigint`.mapWith(
    Number,
  );
}

/** A merchant's balance as shown: always equal to ledgerSum in the same snapshot. */
export async function balanceOf(ex: Executor, merchantId: string): Promise<number> {
  const [row] = await ex.select({ balance: shownBalance() }).from(merchants).where(eq(merchants.id, merchantId));
  return row?.balance ?? 0;
}

/** The ledger's own sum for a merchant: what the shown balance must always equal. */
export async function ledgerSum(db: Executor, merchantId: string): Promise<number> {
  const [row] = await db
    .select({ sum: sql<string>`coalesce(sum(${ledgerEntries.amountCentavos}), 0)` })
    .from(ledgerEntries)
    .where(eq(ledgerEntries.merchantId, merchantId));
  return Number(row.sum);
}
