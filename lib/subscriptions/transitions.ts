import { and, eq, inArray, sql } from "drizzle-orm";
import type { Tx } from "@/db";
import {
  orders,
  subscriptionCycles,
  subscriptions,
  type CycleStatus,
  type Subscription,
  type SubscriptionCycle,
  type SubscriptionStatus,
} from "@/db/schema";
import { recordEvent } from "@/lib/events/outbox";
import { amountView, cycleView, subscriptionView } from "./views";

// A subscription's and a cycle's state changes, each in the caller's transaction with its event
// (subscription.status_changed, subscription.charge.status_changed; docs/webhooks.md). Every change is
// `UPDATE … WHERE status IN (allowed)`: a final state never changes, and of two racing changes one wins.

export const OPEN_CYCLE: readonly CycleStatus[] = ["CREATING", "SCHEDULED", "RETRYING"];
export const LIVE_SUBSCRIPTION: readonly SubscriptionStatus[] = ["AWAITING_AUTHORISATION", "ACTIVE"];

export async function changeSubscriptionStatus(
  tx: Tx,
  before: Subscription,
  from: readonly SubscriptionStatus[],
  to: SubscriptionStatus,
  set: Partial<Pick<Subscription, "cancelledBy" | "closure" | "nextDueDate">> = {},
): Promise<Subscription | undefined> {
  const closes = !LIVE_SUBSCRIPTION.includes(to);
  const [after] = await tx
    .update(subscriptions)
    .set({ ...set, status: to, updatedAt: sql`now()`, ...(closes ? { closedAt: sql`now()` } : {}) })
    .where(and(eq(subscriptions.id, before.id), inArray(subscriptions.status, [...from])))
    .returning();
  if (!after) return undefined;
  await recordEvent(tx, {
    merchantId: after.merchantId,
    type: "subscription.status_changed",
    subjectType: "subscription",
    subjectId: after.id,
    data: { ...subscriptionView(after), previousStatus: before.status },
  });
  return after;
}

/** The merchant changed what each cycle asks (./service.ts updateSubscription), with what it asked before. */
export async function amountChangedEvent(tx: Tx, after: Subscription, before: Subscription): Promise<void> {
  await recordEvent(tx, {
    merchantId: after.merchantId,
    type: "subscription.amount_changed",
    subjectType: "subscription",
    subjectId: after.id,
    data: { ...subscriptionView(after), previousAmount: amountView(before) },
  });
}

/** The cycle's event, with the order as this transaction leaves it. */
export async function cycleEvent(tx: Tx, cycle: SubscriptionCycle, previous: CycleStatus | null): Promise<void> {
  const [order] = await tx
    .select({ id: orders.id, status: orders.status, paymentLinkId: orders.paymentLinkId })
    .from(orders)
    .where(eq(orders.id, cycle.orderId));
  await recordEvent(tx, {
    merchantId: cycle.merchantId,
    type: "subscription.charge.status_changed",
    subjectType: "subscription_cycle",
    subjectId: cycle.id,
    data: { ...cycleView(cycle, order), subscriptionId: cycle.subscriptionId, previousStatus: previous },
  });
}

export async function changeCycleStatus(
  tx: Tx,
  before: SubscriptionCycle,
  from: readonly CycleStatus[],
  to: CycleStatus,
  set: Partial<Pick<SubscriptionCycle, "payment" | "failure" | "attempts" | "sentAt" | "retries" | "retryDate">> = {},
): Promise<SubscriptionCycle | undefined> {
  const closes = !OPEN_CYCLE.includes(to);
  const [after] = await tx
    .update(subscriptionCycles)
    .set({
      ...set,
      status: to,
      updatedAt: sql`now()`,
      checkedAt: sql`now()`,
      ...(closes ? { closedAt: sql`now()` } : {}),
    })
    .where(and(eq(subscriptionCycles.id, before.id), inArray(subscriptionCycles.status, [...from])))
    .returning();
  if (!after) return undefined;
  await cycleEvent(tx, after, before.status);
  return after;
}
