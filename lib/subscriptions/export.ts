import { and, asc, eq, sql } from "drizzle-orm";
import type { Executor } from "@/db";
import { subscriptions, type Subscription, type SubscriptionStatus } from "@/db/schema";
import { saoPauloDayRange } from "@/lib/day-range";

export type SubscriptionExportRow = Subscription & { paidCycles: number; paidCentavos: number; failedCycles: number };

/**
 * A merchant's subscriptions created within São Paulo days (inclusive), oldest first, in keyset pages
 * of `pageSize` on (created_at, id), each with its paid cycles (count and sum) and failed ones: what
 * the CSV export streams.
 */
export async function* subscriptionPages(
  ex: Executor,
  f: { merchantId: string; from?: string; to?: string; status?: SubscriptionStatus },
  pageSize = 1000,
): AsyncGenerator<SubscriptionExportRow[]> {
  let after: { at: Date; id: string } | null = null;
  for (;;) {
    const rows: { sub: Subscription; paidCycles: number; paidCentavos: string; failedCycles: number }[] = await ex
      .select({
        sub: subscriptions,
        paidCycles: sql<number>`(select count(*)::int from subscription_cycles c where c.subscription_id = ${subscriptions.id} and c.status = 'PAID')`,
        paidCentavos: sql<string>`(select coalesce(sum(c.value_centavos), 0)::text from subscription_cycles c where c.subscription_id = ${subscriptions.id} and c.status = 'PAID')`,
        failedCycles: sql<number>`(select count(*)::int from subscription_cycles c where c.subscription_id = ${subscriptions.id} and c.status = 'FAILED')`,
      })
      .from(subscriptions)
      .where(
        and(
          eq(subscriptions.merchantId, f.merchantId),
          f.status ? eq(subscriptions.status, f.status) : undefined,
          saoPauloDayRange(subscriptions.createdAt, f.from, f.to),
          after
            ? sql`(${subscriptions.createdAt}, ${subscriptions.id}) > (${after.at.toISOString()}::timestamptz, ${after.id}::uuid)`
            : undefined,
        ),
      )
      .orderBy(asc(subscriptions.createdAt), asc(subscriptions.id))
      .limit(pageSize);
    if (rows.length > 0)
      yield rows.map((r) => ({
        ...r.sub,
        paidCycles: Number(r.paidCycles),
        paidCentavos: Number(r.paidCentavos),
        failedCycles: Number(r.failedCycles),
      }));
    if (rows.length < pageSize) return;
    const last: Subscription = rows[rows.length - 1].sub;
    after = { at: last.createdAt, id: last.id };
  }
}
