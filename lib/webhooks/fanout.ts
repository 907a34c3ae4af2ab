import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "@/db";

// Fan-out: one pending delivery per active endpoint of the merchant, written by the statement that
// records the event (lib/events/outbox.ts), so in its transaction. A committed event therefore always
// has its deliveries, and a rolled-back change has neither.

/** LISTEN/NOTIFY channel that wakes the dispatchers (see dispatcher.ts). */
export const DISPATCH_CHANNEL = "webhook_deliveries";

/**
 * The CTEs that fan out the events a statement has just written in its CTE `recorded_event` (id, seq,
 * merchant_id, subject_id): `event_deliveries`, and `event_notified`, which wakes the dispatchers when
 * any delivery was created. The statement's final query must read `event_notified`: a CTE that only
 * reads runs only when something reads it. pg_notify inside the transaction is delivered only when it
 * commits, which is exactly when the deliveries become visible to a dispatcher; merchants without
 * endpoints notify nobody (a notification also serialises commits on a lock of its own).
 */
export function fanOutCtes(): SQL {
  return sql`
    event_deliveries as (
      insert into webhook_deliveries (merchant_id, endpoint_id, event_id, event_seq, subject_id, status, next_attempt_at)
      select e.merchant_id, w.id, e.id, e.seq, e.subject_id, 'pending', now()
      from recorded_event e
      join webhook_endpoints w on w.merchant_id = e.merchant_id and w.deleted_at is null and w.disabled_at is null
      returning 1
    ),
    event_notified as (
      select pg_notify(${DISPATCH_CHANNEL}, '') from (select 1 from event_deliveries limit 1) as any_created
    )`;
}

/** Wakes the dispatchers after a delivery was created outside recordEvent (a redelivery). */
export async function notifyDispatchers(executor: Executor): Promise<void> {
  await executor.execute(sql`select pg_notify(${DISPATCH_CHANNEL}, '')`);
}
