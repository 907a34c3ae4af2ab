import { and, asc, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
import type { PgInsertValue } from "drizzle-orm/pg-core";
import type { Executor } from "@/db";
import { constant } from "@/db/constant";
import { orderRefunds, type OrderRefund } from "@/db/schema";

// The SQL of order refunds (docs/api.md#refunds), each query taking the executor first. An order's list of
// refunds for its lookup is lib/orders' (refundsOfOrder), which may not depend on this folder.

type RefundStatus = OrderRefund["status"];

export async function insertRefund(ex: Executor, values: PgInsertValue<typeof orderRefunds>): Promise<OrderRefund> {
  const [row] = await ex.insert(orderRefunds).values(values).returning();
  return row;
}

export async function refundById(ex: Executor, id: string): Promise<OrderRefund | undefined> {
  const [row] = await ex.select().from(orderRefunds).where(eq(orderRefunds.id, id));
  return row;
}

/** The sum of an order's refunds in these statuses, in centavos. */
export async function refundedCentavos(
  ex: Executor,
  orderId: string,
  statuses: readonly RefundStatus[],
): Promise<number> {
  const [row] = await ex
    .select({ sum: sql<string>`coalesce(sum(${orderRefunds.valueCentavos}), 0)` })
    .from(orderRefunds)
    .where(and(eq(orderRefunds.orderId, orderId), inArray(orderRefunds.status, [...statuses])));
  return Number(row.sum);
}

/** The right to talk to the provider about one PENDING refund for `seconds`, without holding a lock. */
export async function leaseRefund(ex: Executor, id: string, seconds: number): Promise<OrderRefund | undefined> {
  const [row] = await ex
    .update(orderRefunds)
    .set({ leaseUntil: sql`now() + make_interval(secs => ${seconds})` })
    .where(
      and(
        eq(orderRefunds.id, id),
        eq(orderRefunds.status, "PENDING"),
        or(isNull(orderRefunds.leaseUntil), lt(orderRefunds.leaseUntil, sql`now()`)),
      ),
    )
    .returning();
  return row;
}

/**
 * Records what happened with the provider, keeping the refund PENDING. `sending`: it is about to be
 * asked (sentAt set once, attempts counted), written before the call so a crash after it reads first.
 * The lease ends, unless `keepLease` (a send follows) or `holdSeconds` (no worker takes it up before then).
 */
export async function noteRefund(
  ex: Executor,
  id: string,
  change: {
    sending?: boolean;
    providerRef?: string | null;
    lastError?: string | null;
    keepLease?: boolean;
    holdSeconds?: number;
  },
) {
  await ex
    .update(orderRefunds)
    .set({
      ...(change.sending
        ? { sentAt: sql`coalesce(${orderRefunds.sentAt}, now())`, attempts: sql`${orderRefunds.attempts} + 1` }
        : {}),
      ...(change.providerRef ? { providerRef: change.providerRef } : {}),
      ...(change.lastError !== undefined ? { lastError: change.lastError } : {}),
      ...(change.keepLease
        ? {}
        : { leaseUntil: change.holdSeconds ? sql`now() + make_interval(secs => ${change.holdSeconds})` : null }),
      updatedAt: sql`now()`,
    })
    .where(and(eq(orderRefunds.id, id), eq(orderRefunds.status, "PENDING")));
}

/** PENDING → COMPLETED or FAILED, once; undefined when it was already decided. */
export async function finishRefund(
  ex: Executor,
  id: string,
  outcome: { status: "COMPLETED" | "FAILED"; providerRef?: string | null; failureReason?: string | null },
): Promise<OrderRefund | undefined> {
  const [row] = await ex
    .update(orderRefunds)
    .set({
      status: outcome.status,
      ...(outcome.providerRef ? { providerRef: outcome.providerRef } : {}),
      failureReason: outcome.failureReason ?? null,
      decidedAt: sql`now()`,
      leaseUntil: null,
      // Decided: nothing left for an operator.
      attention: null,
      attentionAt: null,
      updatedAt: sql`now()`,
    })
    .where(and(eq(orderRefunds.id, id), eq(orderRefunds.status, "PENDING")))
    .returning();
  return row;
}

/** PENDING refunds, oldest first: the sweep's work list. */
export async function openRefundIds(ex: Executor, limit: number): Promise<string[]> {
  const rows = await ex
    .select({ id: orderRefunds.id })
    .from(orderRefunds)
    .where(eq(orderRefunds.status, constant("PENDING")))
    .orderBy(asc(orderRefunds.createdAt))
    .limit(limit);
  return rows.map((r) => r.id);
}
