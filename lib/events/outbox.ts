import { sql, type SQL } from "drizzle-orm";
import type { Tx } from "@/db";
import type { SqlValue } from "@/db/prepared";
import { fanOutCtes } from "@/lib/webhooks/fanout";

export const EVENT_TYPES = [
  "order.status_changed",
  "order.funds_unapplied",
  "order.disputed",
  "order.hold.status_changed",
  "order.split.credited",
  "refund.status_changed",
  "onchain.deposit.status_changed",
  "onchain.deposit.funds_unapplied",
  "onchain.deposit.unapplied.status_changed",
  "crypto_pix.status_changed",
  "crypto_pix.funds_unapplied",
  "crypto_pix.refund.status_changed",
  "withdrawal.onchain.status_changed",
  "withdrawal.pix_out.status_changed",
  "invoice.status_changed",
  "subscription.status_changed",
  "subscription.amount_changed",
  "subscription.charge.status_changed",
  "recipient.created",
  "recipient.updated",
  "recipient.payout.status_changed",
  "recipient.payout.skipped",
  // Written for one endpoint by lib/webhooks/test-event.ts, never fanned out by recordEvent.
  "webhook.test",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** An event as a statement writes it; `data` is its JSON text. */
export type EventRow = {
  merchantId: SqlValue<string>;
  type: SqlValue<EventType>;
  subjectType: SqlValue<string>;
  subjectId: SqlValue<string>;
  data: SqlValue<string>;
};

/**
 * The CTEs that write an event and its webhook deliveries, for a statement that may write more:
 * `recorded_event` (id, seq, merchant_id, subject_id), then those of fanOutCtes, whose
 * `event_notified` the statement's final query must read. With `onlyIf` (the FROM of the insert: a
 * CTE, or a join of CTEs), one event is written per row it has, so none when the change it describes
 * did not happen; the values may then be that row's columns.
 */
export function eventCtes(event: EventRow, onlyIf?: SQL): SQL {
  return sql`
    recorded_event as (
      insert into events (merchant_id, type, subject_type, subject_id, data)
      select ${event.merchantId}, ${event.type}, ${event.subjectType}, ${event.subjectId}, ${event.data}::jsonb
      ${onlyIf ? sql`from ${onlyIf}` : sql``}
      returning id, seq, merchant_id, subject_id
    ),
    ${fanOutCtes()}`;
}

/**
 * Writes an event in the transaction of the change it describes (the outbox): it exists if and only
 * if the change committed. Its webhook deliveries are written by the same statement, so a committed
 * event always has them; sending happens afterwards (lib/webhooks/dispatcher.ts).
 */
export async function recordEvent(
  tx: Tx,
  event: { merchantId: string; type: EventType; subjectType: string; subjectId: string; data: Record<string, unknown> },
): Promise<void> {
  await tx.execute(
    sql`with ${eventCtes({ ...event, data: JSON.stringify(event.data) })} select count(*) from event_notified`,
  );
}
