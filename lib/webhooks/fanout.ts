import { sql } from "drizzle-orm";
import type { Executor, Tx } from "@/db";

// Fan-out: one pending delivery per active endpoint of the merchant, written in the transaction that
// records the event. A committed event therefore always has its deliveries, and a rolled-back change
// has neither.

/** LISTEN/NOTIFY channel that wakes the dispatchers (see dispatcher.ts). */
export const DISPATCH_CHANNEL = "webhook_deliveries";

export async function fanOutEvent(tx: Tx, event: { id: string; seq: number; merchantId: string; subjectId: string }): Promise<void> {
  // One round trip. pg_notify inside the transaction is delivered only when it commits, which is
  // exactly when the deliveries become visible to a dispatcher; merchants without endpoints notify
  // nobody.
  await tx.execute(sql`
    with created as (
      insert into webhook_deliveries (merchant_id, endpoint_id, event_id, event_seq, subject_id, status, next_attempt_at)
      select ${event.merchantId}, w.id, ${event.id}, ${event.seq}, ${event.subjectId}, 'pending', now()
      from webhook_endpoints w
      where w.merchant_id = ${event.merchantId} and w.deleted_at is null and w.disabled_at is null
      returning 1
    )
    select pg_notify(${DISPATCH_CHANNEL}, '') from (select 1 from created limit 1) as any_created`);
}

/** Wakes the dispatchers after a delivery was created outside recordEvent (a redelivery). */
export async function notifyDispatchers(executor: Executor): Promise<void> {
  await executor.execute(sql`select pg_notify(${DISPATCH_CHANNEL}, '')`);
}
