import { sql } from "drizzle-orm";
import { db } from "@/db";
import { Conflict } from "@/lib/errors";
import { DISPATCH_CHANNEL } from "./fanout";
import { findEndpoint } from "./registry";

// A test event for one endpoint, asked for on the Developers page: a real event row and one delivery,
// so it goes through the dispatcher like any other (same body shape, same Standard Webhooks headers
// and signature, same retries and delivery log). What marks it as a test is what Standard Webhooks
// leaves to the sender: its `type` (`webhook.test`) and `data.test: true`. It goes to this endpoint
// only, and GET /events leaves it out (./events-api.ts): nothing happened to reconcile.

export const TEST_EVENT_TYPE = "webhook.test";

/** The endpoint's previous test event is still waiting to be sent or retried. */
export class TestEventWaiting extends Conflict {}

/** Sends a signed test event to the endpoint; answers the event's id (the webhook-id the receiver sees). */
export async function sendTestEvent(merchantId: string, endpointId: string): Promise<{ eventId: string }> {
  const endpoint = await findEndpoint(merchantId, endpointId);
  if (endpoint.disabledAt) {
    throw new Conflict(
      "This webhook endpoint was disabled after it answered 410 Gone; register the URL again to receive events",
    );
  }
  const data = {
    test: true,
    webhookId: endpoint.id,
    url: endpoint.url,
    message: "A test event sent from the dashboard: nothing happened and no money moved.",
  };
  // One statement: the event, its single delivery and the dispatchers' wake-up commit together. The
  // per-endpoint check keeps a held button from queueing tests behind one another.
  const [row] = await db().execute<{ id: string | null }>(sql`
    with waiting as (
      select 1 from webhook_deliveries d join events e on e.id = d.event_id
      where d.endpoint_id = ${endpoint.id} and d.status = 'pending' and e.type = ${TEST_EVENT_TYPE}
      limit 1
    ),
    recorded_event as (
      insert into events (merchant_id, type, subject_type, subject_id, data)
      select ${merchantId}, ${TEST_EVENT_TYPE}, 'webhook_endpoint', ${endpoint.id}, ${JSON.stringify(data)}::jsonb
      where not exists (select 1 from waiting)
      returning id, seq
    ),
    delivery as (
      insert into webhook_deliveries (merchant_id, endpoint_id, event_id, event_seq, subject_id, status, next_attempt_at)
      select ${merchantId}, ${endpoint.id}, e.id, e.seq, ${endpoint.id}, 'pending', now() from recorded_event e
      returning event_id
    ),
    notified as (select pg_notify(${DISPATCH_CHANNEL}, '') from delivery)
    select (select event_id from delivery) as id, (select count(*) from notified) as n`);
  if (!row?.id) throw new TestEventWaiting("A test event for this endpoint is still waiting to be sent");
  return { eventId: row.id };
}
