import { and, asc, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
import type { PgInsertValue } from "drizzle-orm/pg-core";
import type { Executor } from "@/db";
import { inConstants } from "@/db/constant";
import { pixPayouts, type PixPayout } from "@/db/schema";

// The SQL of the PIX payouts the service sends, each query taking the executor first.

export async function insertPayout(ex: Executor, values: PgInsertValue<typeof pixPayouts>): Promise<PixPayout> {
  const [row] = await ex.insert(pixPayouts).values(values).returning();
  return row;
}

export async function payoutById(ex: Executor, id: string): Promise<PixPayout | undefined> {
  const [row] = await ex.select().from(pixPayouts).where(eq(pixPayouts.id, id));
  return row;
}

export async function payoutOf(
  ex: Executor,
  purpose: PixPayout["purpose"],
  ownerId: string,
): Promise<PixPayout | undefined> {
  const [row] = await ex
    .select()
    .from(pixPayouts)
    .where(and(eq(pixPayouts.purpose, purpose), eq(pixPayouts.ownerId, ownerId)));
  return row;
}

/** The right to talk to the provider about one open payout for `seconds`, without holding a lock. */
export async function leasePayout(ex: Executor, id: string, seconds: number): Promise<PixPayout | undefined> {
  const [row] = await ex
    .update(pixPayouts)
    .set({ leaseUntil: sql`now() + make_interval(secs => ${seconds})` })
    .where(
      and(
        eq(pixPayouts.id, id),
        inArray(pixPayouts.status, ["created", "processing"]),
        or(isNull(pixPayouts.leaseUntil), lt(pixPayouts.leaseUntil, sql`now()`)),
      ),
    )
    .returning();
  return row;
}

/**
 * Records what the provider said (or that it could not be asked), keeping it open. The lease ends,
 * unless `keepLease` (a send follows) or `holdSeconds` (no worker takes it up before then: the
 * provider's Retry-After, or a payout read only).
 */
export async function notePayout(
  ex: Executor,
  id: string,
  change: {
    status?: "created" | "processing";
    provider?: string;
    providerRef?: string | null;
    lastError?: string | null;
    tried?: boolean;
    keepLease?: boolean;
    holdSeconds?: number;
  },
) {
  await ex
    .update(pixPayouts)
    .set({
      ...(change.status ? { status: change.status } : {}),
      ...(change.provider ? { provider: change.provider } : {}),
      ...(change.providerRef ? { providerRef: change.providerRef } : {}),
      ...(change.lastError !== undefined ? { lastError: change.lastError } : {}),
      ...(change.tried ? { attempts: sql`${pixPayouts.attempts} + 1` } : {}),
      ...(change.keepLease
        ? {}
        : { leaseUntil: change.holdSeconds ? sql`now() + make_interval(secs => ${change.holdSeconds})` : null }),
      updatedAt: sql`now()`,
    })
    .where(and(eq(pixPayouts.id, id), inArray(pixPayouts.status, ["created", "processing"])));
}

/** Open → completed or failed, once; undefined when it was already final. */
export async function finishPayout(
  ex: Executor,
  id: string,
  outcome: {
    status: "completed" | "failed";
    provider?: string;
    providerRef?: string | null;
    failureReason?: string | null;
  },
): Promise<PixPayout | undefined> {
  const [row] = await ex
    .update(pixPayouts)
    .set({
      status: outcome.status,
      ...(outcome.provider ? { provider: outcome.provider } : {}),
      ...(outcome.providerRef ? { providerRef: outcome.providerRef } : {}),
      failureReason: outcome.failureReason ?? null,
      completedAt: sql`now()`,
      leaseUntil: null,
      // Decided: nothing left for an operator.
      attention: null,
      attentionAt: null,
      updatedAt: sql`now()`,
    })
    .where(and(eq(pixPayouts.id, id), inArray(pixPayouts.status, ["created", "processing"])))
    .returning();
  return row;
}

// pix_payouts_open's predicate, with the statuses as constants so the sweep's plans can use that index.
const OPEN = inConstants(pixPayouts.status, ["created", "processing"]);

/** Open payouts, oldest first: the sweep's work list. */
export async function openPayoutIds(ex: Executor, limit: number): Promise<string[]> {
  const rows = await ex
    .select({ id: pixPayouts.id })
    .from(pixPayouts)
    .where(OPEN)
    .orderBy(asc(pixPayouts.createdAt))
    .limit(limit);
  return rows.map((r) => r.id);
}

/** Open payouts another worker is talking to the provider about right now, and when its lease ends. */
export async function leasedPayouts(ex: Executor, limit: number): Promise<{ id: string; secondsLeft: number }[]> {
  const rows = await ex
    .select({
      id: pixPayouts.id,
      secondsLeft: sql<number>`ceil(extract(epoch from ${pixPayouts.leaseUntil} - now()))::int`,
    })
    .from(pixPayouts)
    .where(and(OPEN, sql`${pixPayouts.leaseUntil} > now()`))
    .orderBy(asc(pixPayouts.leaseUntil))
    .limit(limit);
  return rows;
}
