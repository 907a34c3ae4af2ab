import { and, asc, count, desc, eq, inArray, isNull, like, sql } from "drizzle-orm";
import type { PgInsertValue } from "drizzle-orm/pg-core";
import type { Executor } from "@/db";
import {
  events,
  webhookAttempts,
  webhookDeliveries,
  webhookEndpoints,
  type WebhookAttempt,
  type WebhookDelivery,
  type WebhookEndpoint,
} from "@/db/schema";
import { keysetBefore } from "@/lib/paging";

// The SQL of merchants' webhook endpoints and their delivery log, each query taking the executor
// first. (The dispatcher's claim loop keeps its own statements in dispatcher.ts and deliver.ts.)

const live = (merchantId: string) =>
  and(eq(webhookEndpoints.merchantId, merchantId), isNull(webhookEndpoints.deletedAt));

export async function countEndpoints(ex: Executor, merchantId: string): Promise<number> {
  const [{ n }] = await ex.select({ n: count() }).from(webhookEndpoints).where(live(merchantId));
  return n;
}

export async function insertEndpoint(
  ex: Executor,
  values: PgInsertValue<typeof webhookEndpoints>,
): Promise<WebhookEndpoint> {
  const [row] = await ex.insert(webhookEndpoints).values(values).returning();
  return row;
}

/** Endpoints (deleted ones too) whose signing secret is still stored as registered, before sealing. */
export function plainSecretEndpoints(ex: Executor): Promise<{ id: string; secret: string }[]> {
  return ex
    .select({ id: webhookEndpoints.id, secret: webhookEndpoints.secret })
    .from(webhookEndpoints)
    .where(like(webhookEndpoints.secret, "whsec\\_%"));
}

/** Replaces an endpoint's stored secret if it is still `from`; false when it was not. */
export async function replaceEndpointSecret(ex: Executor, id: string, from: string, to: string): Promise<boolean> {
  const rows = await ex
    .update(webhookEndpoints)
    .set({ secret: to })
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.secret, from)))
    .returning({ id: webhookEndpoints.id });
  return rows.length > 0;
}

export function merchantEndpoints(ex: Executor, merchantId: string): Promise<WebhookEndpoint[]> {
  return ex
    .select()
    .from(webhookEndpoints)
    .where(live(merchantId))
    .orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id));
}

export async function merchantEndpoint(
  ex: Executor,
  merchantId: string,
  id: string,
): Promise<WebhookEndpoint | undefined> {
  const [row] = await ex
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, id), live(merchantId)));
  return row;
}

/** Soft-deletes one of the merchant's endpoints; false when there was none. */
export async function markEndpointDeleted(ex: Executor, merchantId: string, id: string): Promise<boolean> {
  const rows = await ex
    .update(webhookEndpoints)
    .set({ deletedAt: sql`now()` })
    .where(and(eq(webhookEndpoints.id, id), live(merchantId)))
    .returning({ id: webhookEndpoints.id });
  return rows.length > 0;
}

export async function cancelPendingDeliveries(ex: Executor, endpointId: string): Promise<void> {
  await ex
    .update(webhookDeliveries)
    .set({ status: "cancelled", nextAttemptAt: null, completedAt: sql`now()` })
    .where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.status, "pending")));
}

type DeliveryWithType = { delivery: WebhookDelivery; eventType: string };

/** `limit + 1` deliveries of an endpoint after `cursor`, newest first, each with its event's type. */
export function deliveriesPage(
  ex: Executor,
  merchantId: string,
  endpointId: string,
  q: { cursor?: string; limit: number; status?: WebhookDelivery["status"] },
): Promise<DeliveryWithType[]> {
  return ex
    .select({ delivery: webhookDeliveries, eventType: events.type })
    .from(webhookDeliveries)
    .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
    .where(
      and(
        eq(webhookDeliveries.endpointId, endpointId),
        eq(webhookDeliveries.merchantId, merchantId),
        q.status ? eq(webhookDeliveries.status, q.status) : undefined,
        keysetBefore(
          q.cursor,
          webhookDeliveries.createdAt,
          webhookDeliveries.id,
          "Invalid request: cursor: is not a valid cursor",
        ),
      ),
    )
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(q.limit + 1);
}

/** Every attempt of these deliveries, in order. */
export function attemptsOf(ex: Executor, deliveryIds: string[]): Promise<WebhookAttempt[]> {
  if (deliveryIds.length === 0) return Promise.resolve([]);
  return ex
    .select()
    .from(webhookAttempts)
    .where(inArray(webhookAttempts.deliveryId, deliveryIds))
    .orderBy(asc(webhookAttempts.attempt), asc(webhookAttempts.id));
}

export async function endpointDelivery(
  ex: Executor,
  merchantId: string,
  endpointId: string,
  deliveryId: string,
): Promise<DeliveryWithType | undefined> {
  const [row] = await ex
    .select({ delivery: webhookDeliveries, eventType: events.type })
    .from(webhookDeliveries)
    .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
    .where(
      and(
        eq(webhookDeliveries.id, deliveryId),
        eq(webhookDeliveries.endpointId, endpointId),
        eq(webhookDeliveries.merchantId, merchantId),
      ),
    );
  return row;
}

export async function insertDelivery(
  ex: Executor,
  values: PgInsertValue<typeof webhookDeliveries>,
): Promise<WebhookDelivery> {
  const [row] = await ex.insert(webhookDeliveries).values(values).returning();
  return row;
}

/** Deliveries not yet decided, shared by every instance: due now (waiting for a dispatcher) or waiting out a retry's backoff. */
export type DeliveryBacklog = { due: number; scheduled: number; oldestDueSeconds: number };

export async function deliveryBacklog(ex: Executor): Promise<DeliveryBacklog> {
  // Pending rows only, through the partial index webhook_deliveries_due. A delivery being sent holds a
  // lease (next_attempt_at moved forward), so it counts as scheduled, not due.
  const [row] = await ex
    .select({
      due: sql<number>`count(*) filter (where ${webhookDeliveries.nextAttemptAt} <= now())`.mapWith(Number),
      scheduled: sql<number>`count(*) filter (where ${webhookDeliveries.nextAttemptAt} > now())`.mapWith(Number),
      oldestDueSeconds:
        sql<number>`coalesce(extract(epoch from now() - min(${webhookDeliveries.nextAttemptAt}) filter (where ${webhookDeliveries.nextAttemptAt} <= now())), 0)`.mapWith(
          Number,
        ),
    })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.status, "pending"));
  return row;
}

/** The deliveries of the events of one of the merchant's orders, newest first (at most 50), with each endpoint's URL and event type. */
export function subjectDeliveries(ex: Executor, merchantId: string, subjectId: string) {
  return ex
    .select({
      id: webhookDeliveries.id,
      endpointUrl: webhookEndpoints.url,
      eventType: events.type,
      status: webhookDeliveries.status,
      attempts: webhookDeliveries.attempts,
      lastStatusCode: webhookDeliveries.lastStatusCode,
      lastError: webhookDeliveries.lastError,
      at: webhookDeliveries.createdAt,
    })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
    .where(and(eq(webhookDeliveries.merchantId, merchantId), eq(webhookDeliveries.subjectId, subjectId)))
    .orderBy(desc(webhookDeliveries.createdAt))
    .limit(50);
}
