import { and, asc, desc, eq, inArray, lt, or, sql } from "drizzle-orm";
import { db } from "@/db";
import { decodeKeysetCursor, encodeKeysetCursor } from "@/lib/paging";
import { events, webhookAttempts, webhookDeliveries, type WebhookAttempt, type WebhookDelivery } from "@/db/schema";
import { isUuid } from "@/lib/ids";
import { Conflict, NotFound } from "@/lib/errors";
import { findEndpoint } from "./registry";
import { notifyDispatchers } from "./fanout";

// The delivery log of an endpoint (what the dashboard shows: every delivery with every attempt) and
// redelivery. As in BTCPay Server, a redelivery is a new delivery of the same event pointing at the
// original, so the log keeps both histories; the receiver sees the same webhook-id and can dedupe.

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function attemptView(a: WebhookAttempt) {
  return {
    attempt: a.attempt,
    startedAt: a.startedAt.toISOString(),
    durationMs: a.durationMs,
    statusCode: a.statusCode,
    error: a.error,
    responseExcerpt: a.responseExcerpt,
    nextAttemptAt: iso(a.nextAttemptAt),
  };
}

export function deliveryView(d: WebhookDelivery, eventType: string, attempts: WebhookAttempt[]) {
  return {
    id: d.id,
    eventId: d.eventId,
    eventType,
    status: d.status,
    attempts: d.attempts,
    lastStatusCode: d.lastStatusCode,
    lastError: d.lastError,
    lastAttemptAt: iso(d.lastAttemptAt),
    nextAttemptAt: iso(d.nextAttemptAt),
    completedAt: iso(d.completedAt),
    redeliveryOf: d.redeliveryOf,
    createdAt: d.createdAt.toISOString(),
    attemptsLog: attempts.map(attemptView),
  };
}

/** Newest first, each with its attempts in order. */
export async function listDeliveries(
  merchantId: string,
  endpointId: string,
  q: { cursor?: string; limit: number; status?: WebhookDelivery["status"] },
) {
  const endpoint = await findEndpoint(merchantId, endpointId);
  const after = q.cursor ? decodeKeysetCursor(q.cursor, "Invalid request: cursor: is not a valid cursor") : null;
  const rows = await db()
    .select({ delivery: webhookDeliveries, eventType: events.type })
    .from(webhookDeliveries)
    .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
    .where(
      and(
        eq(webhookDeliveries.endpointId, endpoint.id),
        eq(webhookDeliveries.merchantId, merchantId),
        q.status ? eq(webhookDeliveries.status, q.status) : undefined,
        after
          ? or(lt(webhookDeliveries.createdAt, after.at), and(eq(webhookDeliveries.createdAt, after.at), lt(webhookDeliveries.id, after.id)))
          : undefined,
      ),
    )
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  const ids = page.map((r) => r.delivery.id);
  const attempts = ids.length
    ? await db().select().from(webhookAttempts).where(inArray(webhookAttempts.deliveryId, ids)).orderBy(asc(webhookAttempts.attempt), asc(webhookAttempts.id))
    : [];
  const byDelivery = new Map<string, WebhookAttempt[]>();
  for (const a of attempts) byDelivery.set(a.deliveryId, [...(byDelivery.get(a.deliveryId) ?? []), a]);
  const last = page[page.length - 1];
  return {
    deliveries: page.map((r) => deliveryView(r.delivery, r.eventType, byDelivery.get(r.delivery.id) ?? [])),
    nextCursor: rows.length > q.limit && last ? encodeKeysetCursor(last.delivery.createdAt, last.delivery.id) : null,
  };
}

/** A new delivery of the same event to the same endpoint, sent as soon as a dispatcher sees it. */
export async function redeliver(merchantId: string, endpointId: string, deliveryId: string) {
  const endpoint = await findEndpoint(merchantId, endpointId);
  if (!isUuid(deliveryId)) throw new NotFound("Delivery not found");
  const [original] = await db()
    .select({ delivery: webhookDeliveries, eventType: events.type })
    .from(webhookDeliveries)
    .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
    .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.endpointId, endpoint.id), eq(webhookDeliveries.merchantId, merchantId)));
  if (!original) throw new NotFound("Delivery not found");
  if (endpoint.disabledAt) {
    throw new Conflict("This webhook endpoint was disabled after it answered 410 Gone; register the URL again to receive events");
  }
  const o = original.delivery;
  const [created] = await db()
    .insert(webhookDeliveries)
    .values({
      merchantId,
      endpointId: endpoint.id,
      eventId: o.eventId,
      eventSeq: o.eventSeq,
      subjectId: o.subjectId,
      status: "pending",
      nextAttemptAt: sql`now()`,
      // Always the first delivery, so a chain of redeliveries stays one level deep.
      redeliveryOf: o.redeliveryOf ?? o.id,
    })
    .returning();
  await notifyDispatchers(db());
  return deliveryView(created, original.eventType, []);
}
