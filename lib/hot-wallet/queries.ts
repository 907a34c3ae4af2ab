import { and, asc, desc, eq, isNull, lt, or, sql } from "drizzle-orm";
import type { PgInsertValue, PgUpdateSetSource } from "drizzle-orm/pg-core";
import type { Executor } from "@/db";
import { constant } from "@/db/constant";
import { chainTxAttempts, chainTxs, type ChainTx, type ChainTxAttempt } from "@/db/schema";

// The SQL of the hot wallet's transactions and their signed versions, each query taking the executor first.

export async function insertChainTx(ex: Executor, values: PgInsertValue<typeof chainTxs>): Promise<ChainTx> {
  const [row] = await ex.insert(chainTxs).values(values).returning();
  return row;
}

export async function insertAttempt(
  ex: Executor,
  values: PgInsertValue<typeof chainTxAttempts>,
): Promise<ChainTxAttempt> {
  const [row] = await ex.insert(chainTxAttempts).values(values).returning();
  return row;
}

export async function chainTxById(ex: Executor, id: string): Promise<ChainTx | undefined> {
  const [row] = await ex.select().from(chainTxs).where(eq(chainTxs.id, id));
  return row;
}

/** Its signed versions, oldest first. */
export function attemptsOf(ex: Executor, chainTxId: string): Promise<ChainTxAttempt[]> {
  return ex
    .select()
    .from(chainTxAttempts)
    .where(eq(chainTxAttempts.chainTxId, chainTxId))
    .orderBy(asc(chainTxAttempts.id));
}

/** The transactions serving one owner (a withdrawal, a Crypto-PIX payment), newest first. */
export function chainTxsOfOwner(ex: Executor, ownerId: string): Promise<ChainTx[]> {
  return ex.select().from(chainTxs).where(eq(chainTxs.ownerId, ownerId)).orderBy(desc(chainTxs.createdAt));
}

/**
 * Takes the right to follow a pending transaction for `seconds`, without holding a lock: node calls
 * happen outside any transaction. Undefined when it is decided or another worker holds it.
 */
export async function leaseChainTx(ex: Executor, id: string, seconds: number): Promise<ChainTx | undefined> {
  const [row] = await ex
    .update(chainTxs)
    .set({ leaseUntil: sql`now() + make_interval(secs => ${seconds})` })
    .where(
      and(
        eq(chainTxs.id, id),
        eq(chainTxs.status, "pending"),
        or(isNull(chainTxs.leaseUntil), lt(chainTxs.leaseUntil, sql`now()`)),
      ),
    )
    .returning();
  return row;
}

export async function releaseChainTx(
  ex: Executor,
  id: string,
  change: PgUpdateSetSource<typeof chainTxs> = {},
): Promise<void> {
  await ex
    .update(chainTxs)
    .set({ ...change, leaseUntil: null, checkedAt: sql`now()`, updatedAt: sql`now()` })
    .where(eq(chainTxs.id, id));
}

/** Pending → its final status, once; undefined when it was already decided. */
export async function decideChainTx(
  ex: Executor,
  id: string,
  decision: {
    status: "confirmed" | "reverted" | "superseded";
    minedHash: string | null;
    failureReason?: string | null;
    attention?: string | null;
  },
): Promise<ChainTx | undefined> {
  const [row] = await ex
    .update(chainTxs)
    .set({ ...decision, decidedAt: sql`now()`, leaseUntil: null, updatedAt: sql`now()` })
    .where(and(eq(chainTxs.id, id), eq(chainTxs.status, "pending")))
    .returning();
  return row;
}

/** The first time a node took this version, and the head then: replacement is timed from it, however often it is sent again. */
export async function markBroadcast(ex: Executor, attemptId: number, block: bigint | null): Promise<void> {
  await ex
    .update(chainTxAttempts)
    .set({
      broadcastAt: sql`coalesce(${chainTxAttempts.broadcastAt}, now())`,
      broadcastBlock: sql`coalesce(${chainTxAttempts.broadcastBlock}, ${block === null ? null : Number(block)}::bigint)`,
    })
    .where(eq(chainTxAttempts.id, attemptId));
}

/** Pending transactions, oldest first: the sweep's work list. */
export async function pendingChainTxIds(ex: Executor, limit: number): Promise<string[]> {
  const rows = await ex
    .select({ id: chainTxs.id })
    .from(chainTxs)
    .where(eq(chainTxs.status, constant("pending")))
    .orderBy(asc(chainTxs.createdAt))
    .limit(limit);
  return rows.map((r) => r.id);
}

/** The nonces recorded in a scope at or above `from`, ascending: what the gap check compares with the node. */
export async function recordedNonces(ex: Executor, scope: string, from: number): Promise<number[]> {
  const rows = await ex
    .select({ nonce: chainTxs.nonce })
    .from(chainTxs)
    .where(and(eq(chainTxs.nonceScope, scope), sql`${chainTxs.nonce} >= ${from}`))
    .orderBy(asc(chainTxs.nonce));
  return rows.map((r) => r.nonce);
}

/** Transactions an operator must look at. */
export function chainTxsNeedingAttention(ex: Executor): Promise<ChainTx[]> {
  return ex
    .select()
    .from(chainTxs)
    .where(sql`${chainTxs.attention} is not null`)
    .orderBy(asc(chainTxs.createdAt));
}
