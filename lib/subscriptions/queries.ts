import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
import type { Executor } from "@/db";
import {
  orders,
  subscriptionCycles,
  subscriptions,
  type Order,
  type Subscription,
  type SubscriptionCycle,
} from "@/db/schema";
import { keysetBefore } from "@/lib/paging";
import type { ListSubscriptionsQuery } from "./schemas";

// The subscriptions' SQL, executor first. Every merchant read filters by merchant: a foreign id
// answers like an unknown one. The engine's reads go through the partial indexes on open work.

export type CycleWithOrder = { cycle: SubscriptionCycle; order: Order };

export async function insertSubscription(
  ex: Executor,
  values: typeof subscriptions.$inferInsert,
): Promise<Subscription> {
  const [row] = await ex.insert(subscriptions).values(values).returning();
  return row;
}

export async function insertCycle(
  ex: Executor,
  values: typeof subscriptionCycles.$inferInsert,
): Promise<SubscriptionCycle | undefined> {
  const [row] = await ex.insert(subscriptionCycles).values(values).onConflictDoNothing().returning();
  return row;
}

export async function merchantSubscription(ex: Executor, merchantId: string, id: string) {
  const [row] = await ex
    .select()
    .from(subscriptions)
    .where(and(eq(subscriptions.id, id), eq(subscriptions.merchantId, merchantId)));
  return row ?? null;
}

export async function subscriptionById(ex: Executor, id: string) {
  const [row] = await ex.select().from(subscriptions).where(eq(subscriptions.id, id));
  return row ?? null;
}

export async function subscriptionByIdRec(ex: Executor, idRec: string) {
  const [row] = await ex.select().from(subscriptions).where(eq(subscriptions.idRec, idRec));
  return row ?? null;
}

export async function lockSubscription(ex: Executor, id: string): Promise<Subscription | undefined> {
  const [row] = await ex.select().from(subscriptions).where(eq(subscriptions.id, id)).for("update");
  return row;
}

export function cyclesOf(ex: Executor, subscriptionId: string): Promise<CycleWithOrder[]> {
  return ex
    .select({ cycle: subscriptionCycles, order: orders })
    .from(subscriptionCycles)
    .innerJoin(orders, eq(orders.id, subscriptionCycles.orderId))
    .where(eq(subscriptionCycles.subscriptionId, subscriptionId))
    .orderBy(asc(subscriptionCycles.cycle));
}

export async function cycleById(ex: Executor, id: string) {
  const [row] = await ex.select().from(subscriptionCycles).where(eq(subscriptionCycles.id, id));
  return row ?? null;
}

export async function cycleByTxid(ex: Executor, txid: string) {
  const [row] = await ex.select().from(subscriptionCycles).where(eq(subscriptionCycles.txid, txid));
  return row ?? null;
}

export async function lockCycle(ex: Executor, id: string): Promise<SubscriptionCycle | undefined> {
  const [row] = await ex.select().from(subscriptionCycles).where(eq(subscriptionCycles.id, id)).for("update");
  return row;
}

/** A page of a merchant's subscriptions, newest first, with one row more when there is a next page. */
export function subscriptionsPage(ex: Executor, merchantId: string, q: ListSubscriptionsQuery) {
  const after = keysetBefore(q.cursor, subscriptions.createdAt, subscriptions.id);
  return ex
    .select()
    .from(subscriptions)
    .where(
      and(
        eq(subscriptions.merchantId, merchantId),
        q.status ? eq(subscriptions.status, q.status) : undefined,
        q.reference ? eq(subscriptions.reference, q.reference) : undefined,
        after,
      ),
    )
    .orderBy(desc(subscriptions.createdAt), desc(subscriptions.id))
    .limit(q.limit + 1);
}

// The engine's work lists. Literals, not parameters, for the statuses: a generic plan then uses the
// partial indexes (tests/query-plans.test.ts).

/** Subscriptions the payer has not authorised yet: their recurrence is read back. */
export function awaitingIds(ex: Executor, limit: number): Promise<{ id: string }[]> {
  return ex
    .select({ id: subscriptions.id })
    .from(subscriptions)
    .where(sql`${subscriptions.status} = 'AWAITING_AUTHORISATION'`)
    .orderBy(asc(subscriptions.createdAt))
    .limit(limit);
}

/** ACTIVE subscriptions whose next cycle's send window has opened by `day` (or that have none left). */
export function dueForCycleIds(ex: Executor, opensBy: string, limit: number): Promise<{ id: string }[]> {
  return ex
    .select({ id: subscriptions.id })
    .from(subscriptions)
    .where(
      and(
        sql`${subscriptions.status} = 'ACTIVE'`,
        sql`(${subscriptions.nextDueDate} <= ${opensBy}::date or ${subscriptions.nextDueDate} is null)`,
      ),
    )
    .orderBy(asc(subscriptions.nextDueDate))
    .limit(limit);
}

/** Cycles not decided yet, due by `day` or still to be sent: their charge is read back. */
export function openCycleIds(ex: Executor, limit: number, ids?: string[]): Promise<{ id: string }[]> {
  return ex
    .select({ id: subscriptionCycles.id })
    .from(subscriptionCycles)
    .where(
      and(
        sql`${subscriptionCycles.status} in ('CREATING', 'SCHEDULED', 'RETRYING')`,
        ids ? inArray(subscriptionCycles.subscriptionId, ids) : undefined,
      ),
    )
    .orderBy(asc(subscriptionCycles.dueDate))
    .limit(limit);
}

export async function openCyclesCount(ex: Executor, subscriptionId: string): Promise<number> {
  const [row] = await ex
    .select({ n: sql<number>`count(*)::int` })
    .from(subscriptionCycles)
    .where(
      and(
        eq(subscriptionCycles.subscriptionId, subscriptionId),
        sql`${subscriptionCycles.status} in ('CREATING', 'SCHEDULED', 'RETRYING')`,
      ),
    );
  return row?.n ?? 0;
}

/** The subscription whose cycle an order is. */
export async function subscriptionOfOrder(ex: Executor, orderId: string): Promise<string | null> {
  const [row] = await ex
    .select({ id: subscriptionCycles.subscriptionId })
    .from(subscriptionCycles)
    .where(eq(subscriptionCycles.orderId, orderId));
  return row?.id ?? null;
}
