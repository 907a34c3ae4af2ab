import { and, desc, eq, sql } from "drizzle-orm";
import type { PgInsertValue, PgUpdateSetSource } from "drizzle-orm/pg-core";
import type { Executor } from "@/db";
import { withdrawals, type Withdrawal } from "@/db/schema";
import { keysetBefore } from "@/lib/paging";

// The SQL of withdrawals, each query taking the executor (the pool or a transaction) first.

export async function insertWithdrawal(ex: Executor, values: PgInsertValue<typeof withdrawals>): Promise<Withdrawal> {
  const [w] = await ex.insert(withdrawals).values(values).returning();
  return w;
}

export async function withdrawalById(ex: Executor, id: string): Promise<Withdrawal | undefined> {
  const [w] = await ex.select().from(withdrawals).where(eq(withdrawals.id, id));
  return w;
}

export async function merchantWithdrawalById(
  ex: Executor,
  merchantId: string,
  id: string,
): Promise<Withdrawal | undefined> {
  const [w] = await ex
    .select()
    .from(withdrawals)
    .where(and(eq(withdrawals.merchantId, merchantId), eq(withdrawals.id, id)));
  return w;
}

/** Changes a PENDING withdrawal; undefined when it is no longer PENDING (or `also` did not hold). */
export async function updatePending(
  ex: Executor,
  id: string,
  change: PgUpdateSetSource<typeof withdrawals>,
  also?: ReturnType<typeof sql>,
): Promise<Withdrawal | undefined> {
  const [w] = await ex
    .update(withdrawals)
    .set({ ...change, updatedAt: sql`now()` })
    .where(and(eq(withdrawals.id, id), eq(withdrawals.status, "PENDING"), also))
    .returning();
  return w;
}

/** `limit + 1` of the merchant's withdrawals after `cursor`, newest first. */
export function withdrawalsPage(
  ex: Executor,
  merchantId: string,
  limit: number,
  cursor?: string,
): Promise<Withdrawal[]> {
  return ex
    .select()
    .from(withdrawals)
    .where(and(eq(withdrawals.merchantId, merchantId), keysetBefore(cursor, withdrawals.createdAt, withdrawals.id)))
    .orderBy(desc(withdrawals.createdAt), desc(withdrawals.id))
    .limit(limit + 1);
}
