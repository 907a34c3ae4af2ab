import { and, asc, eq, gt, inArray, isNull, lt, or, sql } from "drizzle-orm";
import type { PgInsertValue } from "drizzle-orm/pg-core";
import type { Executor } from "@/db";
import { onchainOrders, type OnchainOrder } from "@/db/schema";
import { paymentsKnownUntil } from "@/lib/chain/payment-clock";

// The SQL of on-chain deposit orders, each query taking the executor (the pool or a transaction) first.

type NewDeposit = PgInsertValue<typeof onchainOrders>;

export async function insertDeposit(ex: Executor, values: NewDeposit): Promise<OnchainOrder> {
  const [order] = await ex.insert(onchainOrders).values(values).returning();
  return order;
}

export async function depositById(ex: Executor, id: string): Promise<OnchainOrder | undefined> {
  const [row] = await ex.select().from(onchainOrders).where(eq(onchainOrders.id, id));
  return row;
}

/** A deposit by payment link id: one of the merchant's, or any merchant's (the payer's side) when merchantId is null. */
export async function depositByLink(
  ex: Executor,
  merchantId: string | null,
  paymentLinkId: string,
): Promise<OnchainOrder | undefined> {
  const [row] = await ex
    .select()
    .from(onchainOrders)
    .where(
      and(
        merchantId ? eq(onchainOrders.merchantId, merchantId) : undefined,
        eq(onchainOrders.paymentLinkId, paymentLinkId),
      ),
    )
    .limit(1);
  return row;
}

export async function merchantDepositById(
  ex: Executor,
  merchantId: string,
  id: string,
): Promise<OnchainOrder | undefined> {
  const [row] = await ex
    .select()
    .from(onchainOrders)
    .where(and(eq(onchainOrders.merchantId, merchantId), eq(onchainOrders.id, id)));
  return row;
}

/** The deposit, locked until the transaction ends. */
export async function lockDeposit(ex: Executor, id: string): Promise<OnchainOrder | undefined> {
  const [row] = await ex.select().from(onchainOrders).where(eq(onchainOrders.id, id)).for("update");
  return row;
}

// Past its expiry by payment time: on a network with a node, once the watcher has read past it.
const expiredOpen = (ids?: string[]) =>
  and(
    isNull(onchainOrders.closedAt),
    lt(onchainOrders.expiresAt, paymentsKnownUntil(onchainOrders.network)),
    ids ? inArray(onchainOrders.id, ids) : undefined,
  );

/** Open deposits past their expiry (among `ids` when given), soonest expired first. */
export async function expiredOpenIds(ex: Executor, ids: string[] | undefined, limit: number): Promise<string[]> {
  const rows = await ex
    .select({ id: onchainOrders.id })
    .from(onchainOrders)
    .where(expiredOpen(ids))
    .orderBy(asc(onchainOrders.expiresAt))
    .limit(limit);
  return rows.map((r) => r.id);
}

/** One of those, locked, if it still is one and no other sweeper holds it. */
export async function lockExpiredOpen(ex: Executor, id: string): Promise<OnchainOrder | undefined> {
  const [row] = await ex
    .select()
    .from(onchainOrders)
    .where(expiredOpen([id]))
    .for("update", { skipLocked: true });
  return row;
}

/** Closes a still-open deposit at expiry with the status and credit it ends with; undefined when it was already closed. */
export async function closeAtExpiry(
  ex: Executor,
  id: string,
  close: { status: "FAILED" | "PARTIAL_ORDER"; creditedCentavos: number },
): Promise<OnchainOrder | undefined> {
  const [after] = await ex
    .update(onchainOrders)
    .set({
      status: close.status,
      closedAt: sql`now()`,
      creditedCentavos: close.creditedCentavos,
      updatedAt: sql`now()`,
    })
    .where(
      and(
        eq(onchainOrders.id, id),
        isNull(onchainOrders.closedAt),
        sql`${onchainOrders.status} in ('PENDING', 'PARTIAL_ORDER')`,
      ),
    )
    .returning();
  return after;
}

/** Counts tokens received towards a still-open deposit; complete, it closes COMPLETED with its value credited. */
export async function recordReceived(
  ex: Executor,
  order: OnchainOrder,
  received: string,
  complete: boolean,
): Promise<OnchainOrder> {
  const [after] = await ex
    .update(onchainOrders)
    .set({
      receivedAmount: received,
      status: complete ? "COMPLETED" : "PARTIAL_ORDER",
      ...(complete ? { closedAt: sql`now()`, completedAt: sql`now()`, creditedCentavos: order.valueCentavos } : {}),
      updatedAt: sql`now()`,
    })
    .where(and(eq(onchainOrders.id, order.id), isNull(onchainOrders.closedAt)))
    .returning();
  return after;
}

/** Adds tokens that arrived beyond what was due, or after the order was final. */
export async function addUnapplied(ex: Executor, order: OnchainOrder, total: string): Promise<OnchainOrder> {
  const [after] = await ex
    .update(onchainOrders)
    .set({ unappliedAmount: total, updatedAt: sql`now()` })
    .where(eq(onchainOrders.id, order.id))
    .returning();
  return after;
}

/** Addresses money may still arrive at on `network`: open deposits, and those closed within `lateWindowSeconds`. */
export function watchedDeposits(ex: Executor, network: string, lateWindowSeconds: number) {
  const since = sql`now() - make_interval(secs => ${lateWindowSeconds})`;
  return ex
    .select({
      id: onchainOrders.id,
      address: onchainOrders.address,
      tokenAddress: onchainOrders.tokenAddress,
      decimals: onchainOrders.tokenDecimals,
    })
    .from(onchainOrders)
    .where(
      and(eq(onchainOrders.network, network), or(isNull(onchainOrders.closedAt), gt(onchainOrders.closedAt, since))),
    );
}
