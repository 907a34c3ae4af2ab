import "server-only";
import { and, eq, gte, sql } from "drizzle-orm";
import { db } from "@/db";
import { SUBSCRIPTION_STATUSES, subscriptionCycles, subscriptions, type SubscriptionStatus } from "@/db/schema";
import { env } from "@/lib/env";
import { NotFound } from "@/lib/errors";
import { addDays } from "@/lib/pix/business-days";
import { saoPauloDay } from "@/lib/day-range";
import type { CycleView, SubscriptionView } from "@/lib/subscriptions/schemas";
import { findSubscription, listSubscriptions } from "@/lib/subscriptions/service";

// The dashboard's subscriptions: the API's own views (lib/subscriptions), the list filtered and
// paged as GET /api/v1/subscriptions pages it, and the overview's recurring figures.

export type SubscriptionDetail = { subscription: SubscriptionView & { cycles: CycleView[] }; sandbox: boolean };

export function dashboardSubscriptionsQuery(raw: Record<string, string | undefined>) {
  const status = SUBSCRIPTION_STATUSES.includes(raw.status as SubscriptionStatus)
    ? (raw.status as SubscriptionStatus)
    : undefined;
  const reference = raw.reference?.trim() ? raw.reference.trim().slice(0, 35) : undefined;
  const cursor = raw.cursor && raw.cursor.length <= 200 ? raw.cursor : undefined;
  return { status, reference, cursor, limit: 20 };
}

export async function listDashboardSubscriptions(
  merchantId: string,
  q: ReturnType<typeof dashboardSubscriptionsQuery>,
) {
  try {
    return await listSubscriptions(merchantId, q);
  } catch {
    // A cursor that is not one of ours: the first page.
    return listSubscriptions(merchantId, { ...q, cursor: undefined });
  }
}

/** One of the merchant's subscriptions with its cycles, or null (another merchant's id answers like an unknown one). */
export async function getSubscriptionDetail(merchantId: string, id: string): Promise<SubscriptionDetail | null> {
  try {
    return { subscription: await findSubscription(merchantId, id), sandbox: env().PAYMENTS_MODE === "sandbox" };
  } catch (err) {
    if (err instanceof NotFound) return null;
    throw err;
  }
}

/**
 * Monthly recurring revenue: what the ACTIVE subscriptions charge, each brought to a month (a weekly
 * one × 52/12, a quarterly one ÷ 3…), in centavos rounded down; and the cycles that FAILED with a due
 * date in the last 30 days.
 */
export async function subscriptionFigures(
  merchantId: string,
): Promise<{ mrrCentavos: number; failedCycles: number; active: number }> {
  const since = addDays(saoPauloDay(), -30);
  const [[mrr], [failed]] = await Promise.all([
    db()
      .select({
        centavos: sql<string>`coalesce(floor(sum(${subscriptions.chargeCentavos} * case ${subscriptions.periodicity}
          when 'SEMANAL' then 52.0 / 12 when 'MENSAL' then 1 when 'TRIMESTRAL' then 1.0 / 3
          when 'SEMESTRAL' then 1.0 / 6 else 1.0 / 12 end)), 0)`,
        n: sql<number>`count(*)::int`,
      })
      .from(subscriptions)
      .where(and(eq(subscriptions.merchantId, merchantId), eq(subscriptions.status, "ACTIVE"))),
    db()
      .select({ n: sql<number>`count(*)::int` })
      .from(subscriptionCycles)
      .where(
        and(
          eq(subscriptionCycles.merchantId, merchantId),
          // A literal, not a parameter: the generic plan then uses the partial index.
          sql`${subscriptionCycles.status} = 'FAILED'`,
          gte(subscriptionCycles.dueDate, since),
        ),
      ),
  ]);
  return { mrrCentavos: Number(mrr?.centavos ?? 0), failedCycles: failed?.n ?? 0, active: mrr?.n ?? 0 };
}
