import { sql } from "drizzle-orm";
import { bigint, bigserial, check, index, integer, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { createdAt, inList, ts } from "./columns";
import { events } from "./events";
import { merchants } from "./merchants";

export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    merchantId: uuid("merchant_id")
      .notNull()
      .references(() => merchants.id),
    url: text("url").notNull(),
    description: text("description"),
    secret: text("secret").notNull(),
    disabledAt: ts("disabled_at"),
    createdAt: createdAt(),
    deletedAt: ts("deleted_at"),
  },
  (t) => [index("webhook_endpoints_merchant").on(t.merchantId)],
);

export const WEBHOOK_DELIVERY_STATUSES = ["pending", "succeeded", "failed", "cancelled"] as const;

/** One event to one endpoint: retried until a 2xx or the schedule runs out. */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    merchantId: uuid("merchant_id")
      .notNull()
      .references(() => merchants.id),
    endpointId: uuid("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id),
    eventId: uuid("event_id")
      .notNull()
      .references(() => events.id),
    eventSeq: bigint("event_seq", { mode: "number" }).notNull(),
    subjectId: text("subject_id").notNull(),
    status: text("status", { enum: WEBHOOK_DELIVERY_STATUSES }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: ts("next_attempt_at"),
    lastAttemptAt: ts("last_attempt_at"),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    redeliveryOf: uuid("redelivery_of"),
    createdAt: createdAt(),
    completedAt: ts("completed_at"),
  },
  (t) => [
    index("webhook_deliveries_due")
      .on(t.nextAttemptAt)
      .where(sql`status = 'pending'`),
    // The dispatcher's claim: endpoints with something due, then each one's oldest due rows.
    index("webhook_deliveries_endpoint_due")
      .on(t.endpointId, t.nextAttemptAt, t.eventSeq)
      .where(sql`status = 'pending'`),
    index("webhook_deliveries_order").on(t.endpointId, t.subjectId, t.eventSeq),
    // The claim's order check: an earlier event of the same subject still waiting for its first attempt.
    index("webhook_deliveries_first_attempt")
      .on(t.endpointId, t.subjectId, t.eventSeq)
      .where(sql`status = 'pending' and attempts = 0 and redelivery_of is null`),
    index("webhook_deliveries_event").on(t.eventId),
    check("webhook_deliveries_status", inList("status", WEBHOOK_DELIVERY_STATUSES)),
    // A pending delivery is always scheduled, and a decided one never is (the claim relies on it).
    check("webhook_deliveries_schedule", sql`(status = 'pending') = (next_attempt_at is not null)`),
  ],
);

/** Every HTTP attempt of a delivery, for the merchant's delivery log. */
export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    deliveryId: uuid("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id),
    attempt: integer("attempt").notNull(),
    startedAt: ts("started_at").notNull(),
    durationMs: integer("duration_ms").notNull(),
    statusCode: integer("status_code"),
    error: text("error"),
    responseExcerpt: text("response_excerpt"),
    nextAttemptAt: ts("next_attempt_at"),
  },
  (t) => [index("webhook_attempts_delivery").on(t.deliveryId, t.attempt)],
);

export type WebhookEndpoint = typeof webhookEndpoints.$inferSelect;
export type WebhookDelivery = typeof webhookDeliveries.$inferSelect;
export type WebhookAttempt = typeof webhookAttempts.$inferSelect;
