import type { Tx } from "@/db";
import { events } from "@/db/schema";
import { fanOutEvent } from "@/lib/webhooks/fanout";

export const EVENT_TYPES = [
  "order.status_changed",
  "order.funds_unapplied",
  "refund.status_changed",
  "onchain.deposit.status_changed",
  "onchain.deposit.funds_unapplied",
  "crypto_pix.status_changed",
  "crypto_pix.funds_unapplied",
  "crypto_pix.refund.status_changed",
  "withdrawal.onchain.status_changed",
  "withdrawal.pix_out.status_changed",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Writes an event in the transaction of the change it describes (the outbox): it exists if and only
 * if the change committed. Its webhook deliveries are written in the same transaction, so a committed
 * event always has them; sending happens afterwards (lib/webhooks/dispatcher.ts).
 */
export async function recordEvent(
  tx: Tx,
  event: { merchantId: string; type: EventType; subjectType: string; subjectId: string; data: Record<string, unknown> },
): Promise<void> {
  const [row] = await tx.insert(events).values(event).returning({ id: events.id, seq: events.seq });
  await fanOutEvent(tx, { id: row.id, seq: row.seq, merchantId: event.merchantId, subjectId: event.subjectId });
}
