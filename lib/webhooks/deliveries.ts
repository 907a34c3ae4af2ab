import { sql } from "drizzle-orm";
import { db } from "@/db";
import { keysetPage } from "@/lib/paging";
import type { WebhookAttempt, WebhookDelivery } from "@/db/schema";
import { isUuid } from "@/lib/ids";
import { Conflict, NotFound } from "@/lib/errors";
import { writeAndBind } from "@/lib/idempotency-binding";
import { findEndpoint } from "./registry";
import { notifyDispatchers } from "./fanout";
import { attemptsOf, deliveriesPage, endpointDelivery, insertDelivery } from "./queries";

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
  const rows = await deliveriesPage(db(), merchantId, endpoint.id, q);
  const { page, nextCursor } = keysetPage(rows, q.limit, (r) => ({ at: r.delivery.createdAt, id: r.delivery.id }));
  const attempts = await attemptsOf(
    db(),
    page.map((r) => r.delivery.id),
  );
  const byDelivery = new Map<string, WebhookAttempt[]>();
  for (const a of attempts) byDelivery.set(a.deliveryId, [...(byDelivery.get(a.deliveryId) ?? []), a]);
  return {
    deliveries: page.map((r) => deliveryView(r.delivery, r.eventType, byDelivery.get(r.delivery.id) ?? [])),
    nextCursor,
  };
}

/** One delivery to one of the merchant's endpoints (deleted or not), with its attempts so far. */
export async function findDelivery(merchantId: string, endpointId: string, deliveryId: string) {
  const found =
    isUuid(endpointId) && isUuid(deliveryId)
      ? await endpointDelivery(db(), merchantId, endpointId, deliveryId)
      : undefined;
  if (!found) throw new NotFound("Delivery not found");
  return deliveryView(found.delivery, found.eventType, await attemptsOf(db(), [found.delivery.id]));
}

/** A new delivery of the same event to the same endpoint, sent as soon as a dispatcher sees it. */
export async function redeliver(merchantId: string, endpointId: string, deliveryId: string) {
  const endpoint = await findEndpoint(merchantId, endpointId);
  if (!isUuid(deliveryId)) throw new NotFound("Delivery not found");
  const original = await endpointDelivery(db(), merchantId, endpoint.id, deliveryId);
  if (!original) throw new NotFound("Delivery not found");
  if (endpoint.disabledAt) {
    throw new Conflict(
      "This webhook endpoint was disabled after it answered 410 Gone; register the URL again to receive events",
      { code: "webhook.disabled" },
    );
  }
  const o = original.delivery;
  const created = await writeAndBind(
    (ex) =>
      insertDelivery(ex, {
        merchantId,
        endpointId: endpoint.id,
        eventId: o.eventId,
        eventSeq: o.eventSeq,
        subjectId: o.subjectId,
        status: "pending",
        nextAttemptAt: sql`now()`,
        // Always the first delivery, so a chain of redeliveries stays one level deep.
        redeliveryOf: o.redeliveryOf ?? o.id,
      }),
    (d) => ({ type: "webhook_delivery", id: d.id }),
  );
  await notifyDispatchers(db());
  return deliveryView(created, original.eventType, []);
}
