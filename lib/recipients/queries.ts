import { and, desc, eq, sql } from "drizzle-orm";
import type { PgInsertValue } from "drizzle-orm/pg-core";
import type { Executor, Tx } from "@/db";
import {
  recipientLedgerEntries,
  recipientPayouts,
  recipients,
  type Recipient,
  type RecipientPayout,
} from "@/db/schema";
import { keysetBefore } from "@/lib/paging";
import type { ListRecipientsQuery, StatementQuery } from "./schemas";

// The SQL of recipients, their statements and payouts: each query takes the executor first and
// filters by merchant in its where.

export type RecipientEntry = typeof recipientLedgerEntries.$inferSelect;

/** The new recipient, or null when the merchant has one with this document (recipients_merchant_document). */
export async function insertRecipient(
  ex: Executor,
  values: PgInsertValue<typeof recipients>,
): Promise<Recipient | null> {
  const [row] = await ex.insert(recipients).values(values).onConflictDoNothing().returning();
  return row ?? null;
}

// A recipient is read by its id alone and its merchant checked on the row: with the merchant in the
// statement too, the generic plan PostgreSQL made on an empty table walked the merchant's
// (merchant_id, document) index instead of the primary key (tests/query-plans.test.ts).

/** The merchant's recipient locked until the caller's transaction ends (a payout and a credit are decided one after the other). */
export async function lockRecipient(tx: Tx, merchantId: string, id: string): Promise<Recipient | null> {
  const [row] = await tx.select().from(recipients).where(eq(recipients.id, id)).for("update");
  return row?.merchantId === merchantId ? row : null;
}

/** Changes a recipient the caller has locked as the merchant's (lockRecipient). */
export async function updateRecipientRow(
  tx: Tx,
  id: string,
  change: Partial<
    Pick<
      Recipient,
      | "name"
      | "email"
      | "reference"
      | "pixKey"
      | "pixKeyType"
      | "status"
      | "payoutInterval"
      | "payoutWeekday"
      | "payoutMonthDay"
      | "payoutMinimumCentavos"
      | "payoutScheduleSince"
    >
  >,
): Promise<Recipient> {
  const [row] = await tx
    .update(recipients)
    .set({ ...change, updatedAt: sql`now()` })
    .where(eq(recipients.id, id))
    .returning();
  return row;
}

/** A page of the merchant's recipients, newest first (limit + 1 rows: keysetPage cuts it). */
export async function recipientsPage(ex: Executor, merchantId: string, q: ListRecipientsQuery): Promise<Recipient[]> {
  return ex
    .select()
    .from(recipients)
    .where(
      and(
        eq(recipients.merchantId, merchantId),
        q.status ? eq(recipients.status, q.status) : undefined,
        q.reference ? eq(recipients.reference, q.reference) : undefined,
        keysetBefore(q.cursor, recipients.createdAt, recipients.id),
      ),
    )
    .orderBy(desc(recipients.createdAt), desc(recipients.id))
    .limit(q.limit + 1);
}

/**
 * A page of the recipient's entries, newest first, with the balance after each: the balance now less
 * the entries newer than it, read in one statement so the two agree.
 */
export async function statementPage(
  ex: Executor,
  merchantId: string,
  recipientId: string,
  q: StatementQuery,
): Promise<{ entries: (RecipientEntry & { balanceAfter: number })[]; balance: number }> {
  const e = recipientLedgerEntries;
  const before = keysetBefore(q.cursor, e.createdAt, e.id);
  const rows = await ex
    .select({
      entry: e,
      // Entries newer than the page's start: 0 on the first page.
      newer: before
        ? sql<string>`(select coalesce(sum(n.amount_centavos), 0) from recipient_ledger_entries n
            where n.recipient_id = ${recipientId} and not ${keysetBefore(q.cursor, sql`n.created_at`, sql`n.id`)})`
        : sql<string>`0`,
      balance: sql<string>`(select r.balance_centavos from recipients r where r.id = ${recipientId})`,
    })
    .from(e)
    .where(and(eq(e.recipientId, recipientId), eq(e.merchantId, merchantId), before))
    .orderBy(desc(e.createdAt), desc(e.id))
    .limit(q.limit + 1);
  if (rows.length === 0) {
    const [r] = await ex
      .select({ balance: recipients.balanceCentavos, merchantId: recipients.merchantId })
      .from(recipients)
      .where(eq(recipients.id, recipientId));
    return { entries: [], balance: r?.merchantId === merchantId ? r.balance : 0 };
  }
  const balance = Number(rows[0].balance);
  let after = balance - Number(rows[0].newer);
  const entries = rows.map((row) => {
    const withBalance = { ...row.entry, balanceAfter: after };
    after -= row.entry.amountCentavos;
    return withBalance;
  });
  return { entries, balance };
}

export async function insertRecipientPayout(
  tx: Tx,
  values: PgInsertValue<typeof recipientPayouts>,
): Promise<RecipientPayout> {
  const [row] = await tx.insert(recipientPayouts).values(values).returning();
  return row;
}

export async function recipientPayoutOf(
  ex: Executor,
  merchantId: string,
  id: string,
): Promise<RecipientPayout | undefined> {
  const [row] = await ex
    .select()
    .from(recipientPayouts)
    .where(and(eq(recipientPayouts.id, id), eq(recipientPayouts.merchantId, merchantId)));
  return row;
}

/** PENDING → COMPLETED or FAILED, once; undefined when it was already decided. */
export async function finishRecipientPayout(
  tx: Tx,
  id: string,
  outcome: { status: "COMPLETED" | "FAILED"; providerRef: string | null; failureReason: string | null },
): Promise<RecipientPayout | undefined> {
  const [row] = await tx
    .update(recipientPayouts)
    .set({
      status: outcome.status,
      providerRef: outcome.providerRef,
      failureReason: outcome.failureReason,
      completedAt: outcome.status === "COMPLETED" ? sql`now()` : null,
      updatedAt: sql`now()`,
    })
    .where(and(eq(recipientPayouts.id, id), eq(recipientPayouts.status, "PENDING")))
    .returning();
  return row;
}
