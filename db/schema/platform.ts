import { sql } from "drizzle-orm";
import { bigint, check, index, integer, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { createdAt, inList, ts, updatedAt } from "./columns";
import { merchants } from "./merchants";

/**
 * An Idempotency-Key's claim. in_flight: its request is running (or died) and has committed nothing;
 * committed: the request's business transaction committed `resource` and bound the key to it, but no
 * response is stored yet; done: the response is stored and every retry gets it back.
 */
export const IDEMPOTENCY_STATES = ["in_flight", "committed", "done"] as const;
/** What a request bound to its Idempotency-Key created or changed: the endpoint rebuilds its answer from it. */
export const IDEMPOTENT_RESOURCE_TYPES = [
  "order",
  "onchain_order",
  "crypto_pix_payment",
  "withdrawal",
  "refund",
  "webhook_endpoint",
  "webhook_delivery",
  "chain_transfer",
  "invoice",
  "invoice_batch",
  "payment_link",
  "subscription",
  "recipient",
  "recipient_payout",
] as const;
/** Fixed one-minute windows; one upsert per request (docs/api.md#rate-limits). */
export const rateLimits = pgTable(
  "rate_limits",
  {
    key: text("key").notNull(),
    windowStart: ts("window_start").notNull(),
    count: integer("count").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.key, t.windowStart] })],
);

/** Where each provider poll or stream has read up to (the API Pix reconciliation window, LND's settle index, …). */
export const providerCursors = pgTable("provider_cursors", {
  name: text("name").primaryKey(),
  position: ts("position").notNull(),
  // A provider's own counter, for streams that resume from one (LND's settle_index).
  sequence: bigint("sequence", { mode: "number" }),
  updatedAt: updatedAt(),
});

/** Facts about this deployment's database: which modes have written to it (live mode refuses a database sandbox used). */
export const deploymentMarks = pgTable("deployment_marks", {
  name: text("name").primaryKey(),
  value: text("value").notNull(),
  createdAt: createdAt(),
});

export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    merchantId: uuid("merchant_id")
      .notNull()
      .references(() => merchants.id),
    key: text("key").notNull(),
    method: text("method").notNull(),
    path: text("path").notNull(),
    bodyHash: text("body_hash").notNull(),
    state: text("state", { enum: IDEMPOTENCY_STATES }).notNull().default("in_flight"),
    responseStatus: integer("response_status"),
    responseBody: text("response_body"),
    // While in flight or committed: which request holds the key, and until when. The holder renews the
    // lease while it runs; a lease that ran out means its holder died, and a retry may take the key over.
    claimId: uuid("claim_id"),
    leaseUntil: ts("lease_until"),
    // Which instance (INSTANCE_NAME) holds the claim: a restarted instance ends its predecessor's
    // leases at start-up, so their clients' retries run at once instead of after the lease.
    holder: text("holder"),
    // Written by the business transaction itself (lib/idempotency-binding.ts), so a key whose request
    // died after moving money points at what it made, and a retry answers with that instead of running.
    resourceType: text("resource_type", { enum: IDEMPOTENT_RESOURCE_TYPES }),
    resourceId: uuid("resource_id"),
    createdAt: createdAt(),
    /** When the row is forgotten (24 h): a retry after that runs as new. */
    expiresAt: ts("expires_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.merchantId, t.key, t.method, t.path] }),
    // The sweep forgets expired keys: one row per keyed request for a day.
    index("idempotency_keys_expiry").on(t.expiresAt),
    check("idempotency_keys_state", inList("state", IDEMPOTENCY_STATES)),
    check("idempotency_keys_resource_type", inList("resource_type", IDEMPOTENT_RESOURCE_TYPES)),
    check(
      "idempotency_keys_committed_resource",
      sql`state <> 'committed' or (resource_type is not null and resource_id is not null)`,
    ),
  ],
);
