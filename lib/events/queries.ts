import { and, asc, eq, sql } from "drizzle-orm";
import type { Executor } from "@/db";
import { events } from "@/db/schema";

// Reading the outbox's events back, each query taking the executor first (writing them is ./outbox.ts).

/**
 * The events one of the merchant's orders went through, oldest first (at most 100): its timeline. A
 * refund's event carries the payment too, so `status` is the refund's own when there is one, and
 * `valueCentavos` the refund's amount (null on other events).
 */
export function subjectEvents(ex: Executor, merchantId: string, subjectId: string) {
  return ex
    .select({
      id: events.id,
      type: events.type,
      // A resolution of unapplied funds shows its kind and status ("return:COMPLETED"), and whether
      // it waits for its destination or was cancelled ("return:PENDING:waiting", "return:FAILED:cancelled").
      status: sql<string | null>`coalesce(${events.data}->'refund'->>'status',
        (${events.data}->'resolution'->>'kind') || ':' || (${events.data}->'resolution'->>'status')
          || case when (${events.data}->'resolution'->>'waiting') = 'true' then ':waiting'
                  when (${events.data}->'resolution'->>'reason') = 'cancelled' then ':cancelled' else '' end,
        ${events.data}->>'status')`,
      valueCentavos: sql<
        number | null
      >`case when ${events.type} = 'refund.status_changed' then round((${events.data}->>'value')::numeric * 100)::int end`,
      at: events.createdAt,
    })
    .from(events)
    .where(and(eq(events.merchantId, merchantId), eq(events.subjectId, subjectId)))
    .orderBy(asc(events.seq))
    .limit(100);
}
