import { sql } from "drizzle-orm";
import { check, date, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { centavos, createdAt, inList, metadata, ts, updatedAt } from "./columns";
import { merchants } from "./merchants";
import { orders } from "./orders";

/** How a recurrence or a charge ended, as the PSP said (API Pix encerramento). */
export type StoredClosure =
  | { kind: "cancellation"; requestedBy: string; code: string; description: string }
  | { kind: "rejection"; code: string; description: string };
/** One attempt of a cycle's charge as the PSP last reported it (API Pix tentativas[]). */
export type StoredAttempt = {
  settlementDate: string;
  type: string;
  status: string;
  endToEndId: string;
  rejection: { code: string; description: string } | null;
};
/** The Pix that paid a charge. */
export type StoredPayment = { endToEndId: string; valueCentavos: number; paidAt: string };

/**
 * AWAITING_AUTHORISATION: the payer has not authorised it at the bank yet; ACTIVE: cycles are
 * charged; CANCELLED: by the merchant or the payer (cancelledBy); REJECTED / EXPIRED: the payer's
 * bank rejected it or it was never authorised; COMPLETED: its last cycle is over.
 */
export const SUBSCRIPTION_STATUSES = [
  "AWAITING_AUTHORISATION",
  "ACTIVE",
  "CANCELLED",
  "REJECTED",
  "EXPIRED",
  "COMPLETED",
] as const;
export const SUBSCRIPTION_PERIODICITIES = ["SEMANAL", "MENSAL", "TRIMESTRAL", "SEMESTRAL", "ANUAL"] as const;
export const SUBSCRIPTION_RETRY_POLICIES = ["NAO_PERMITE", "PERMITE_3R_7D"] as const;
export const SUBSCRIPTION_JOURNEYS = ["JORNADA_2", "JORNADA_3"] as const;

/**
 * A cycle's charge: CREATING (recorded, not yet accepted by the PSP), SCHEDULED (the PSP has it, an
 * attempt is due), RETRYING (an attempt failed, another was asked for), PAID, FAILED (no attempt
 * left), CANCELLED (the subscription ended before it was paid). The immediate charge of journey 3 is
 * cycle 0 (kind IMMEDIATE).
 */
export const CYCLE_STATUSES = ["CREATING", "SCHEDULED", "RETRYING", "PAID", "FAILED", "CANCELLED"] as const;
export const CYCLE_KINDS = ["IMMEDIATE", "RECURRING"] as const;

/** Subscriptions by Pix Automático (docs/api.md#subscriptions): the recurrence at the PSP (`id_rec`). */
export const subscriptions = pgTable(
  "subscriptions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    merchantId: uuid("merchant_id")
      .notNull()
      .references(() => merchants.id),
    status: text("status", { enum: SUBSCRIPTION_STATUSES }).notNull(),
    provider: text("provider").notNull(),
    idRec: text("id_rec").notNull(),
    journey: text("journey", { enum: SUBSCRIPTION_JOURNEYS }).notNull(),
    // The code the payer reads (the composite QR) and the payer's page id.
    brcode: text("brcode").notNull(),
    paymentLinkId: text("payment_link_id").notNull(),
    immediateTxid: text("immediate_txid"),
    payerName: text("payer_name").notNull(),
    payerCpf: text("payer_cpf"),
    payerCnpj: text("payer_cnpj"),
    description: text("description").notNull(),
    reference: text("reference"),
    metadata: metadata(),
    // A fixed amount, or a variable one (null) with the merchant's optional minimum.
    fixedCentavos: centavos("fixed_centavos"),
    minimumCentavos: centavos("minimum_centavos"),
    // Journey 3's payment now; variable subscriptions' cycles are charged this unless told otherwise.
    chargeCentavos: centavos("charge_centavos").notNull(),
    periodicity: text("periodicity", { enum: SUBSCRIPTION_PERIODICITIES }).notNull(),
    firstDate: date("first_date", { mode: "string" }).notNull(),
    lastDate: date("last_date", { mode: "string" }),
    retryPolicy: text("retry_policy", { enum: SUBSCRIPTION_RETRY_POLICIES }).notNull(),
    // The next cycle to charge: its number and due date (null: none left).
    nextCycle: integer("next_cycle").notNull().default(1),
    nextDueDate: date("next_due_date", { mode: "string" }),
    cancelledBy: text("cancelled_by", { enum: ["merchant", "payer"] }),
    closure: jsonb("closure").$type<StoredClosure>(),
    checkedAt: ts("checked_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    closedAt: ts("closed_at"),
  },
  (t) => [
    uniqueIndex("subscriptions_id_rec").on(t.idRec),
    // The payer's page (/pay/{paymentLinkId}) finds its subscription by it.
    uniqueIndex("subscriptions_payment_link").on(t.paymentLinkId),
    index("subscriptions_merchant_created").on(t.merchantId, t.createdAt, t.id),
    index("subscriptions_awaiting")
      .on(t.createdAt)
      .where(sql`status = 'AWAITING_AUTHORISATION'`),
    index("subscriptions_active_next")
      .on(t.nextDueDate)
      .where(sql`status = 'ACTIVE'`),
    check("subscriptions_status", inList("status", SUBSCRIPTION_STATUSES)),
    check("subscriptions_one_document", sql`(payer_cpf is null) <> (payer_cnpj is null)`),
    check("subscriptions_amount", sql`fixed_centavos is null or (fixed_centavos > 0 and minimum_centavos is null)`),
    check("subscriptions_charge_positive", sql`charge_centavos > 0`),
  ],
);

/** Each cycle's charge at the PSP (API Pix cobr; journey 3's immediate cob as cycle 0) and its order. */
export const subscriptionCycles = pgTable(
  "subscription_cycles",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    subscriptionId: uuid("subscription_id")
      .notNull()
      .references(() => subscriptions.id),
    merchantId: uuid("merchant_id")
      .notNull()
      .references(() => merchants.id),
    cycle: integer("cycle").notNull(),
    kind: text("kind", { enum: CYCLE_KINDS }).notNull(),
    status: text("status", { enum: CYCLE_STATUSES }).notNull(),
    dueDate: date("due_date", { mode: "string" }).notNull(),
    txid: text("txid").notNull(),
    // The PIX order a payment completes: credited once, with its own payment link for the receipt.
    orderId: uuid("order_id")
      .notNull()
      .references(() => orders.id),
    valueCentavos: centavos("value_centavos").notNull(),
    // Retries asked for under PERMITE_3R_7D, and the day the last one settles.
    retries: integer("retries").notNull().default(0),
    retryDate: date("retry_date", { mode: "string" }),
    attempts: jsonb("attempts").$type<StoredAttempt[]>().notNull().default([]),
    payment: jsonb("payment").$type<StoredPayment>(),
    failure: text("failure"),
    sentAt: ts("sent_at"),
    checkedAt: ts("checked_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    closedAt: ts("closed_at"),
  },
  (t) => [
    uniqueIndex("subscription_cycles_number").on(t.subscriptionId, t.cycle),
    uniqueIndex("subscription_cycles_txid").on(t.txid),
    uniqueIndex("subscription_cycles_order").on(t.orderId),
    index("subscription_cycles_open")
      .on(t.dueDate)
      .where(sql`status in ('CREATING', 'SCHEDULED', 'RETRYING')`),
    // The overview's failed cycles of the last 30 days (lib/dashboard/server/subscriptions.ts).
    index("subscription_cycles_merchant_failed")
      .on(t.merchantId, t.dueDate)
      .where(sql`status = 'FAILED'`),
    check("subscription_cycles_status", inList("status", CYCLE_STATUSES)),
    check("subscription_cycles_retries", sql`retries between 0 and 3`),
  ],
);

/**
 * A subscription being made at the PSP (docs/api.md#subscriptions): recorded, and committed, before
 * anything is sent, with each id as soon as it is known (the locrec's, journey 3's immediate charge
 * txid, which is ours, then the recurrence's), so a retry of the same request (merchant and
 * Idempotency-Key) resumes from what is recorded instead of making a second recurrence. CREATING:
 * under way; DONE: the subscription (same id) is recorded; ABANDONED: refused, what was made at the
 * PSP cancelled.
 */
export const SUBSCRIPTION_CREATION_STATES = ["CREATING", "DONE", "ABANDONED"] as const;
export const subscriptionCreations = pgTable(
  "subscription_creations",
  {
    // The subscription's id once it is recorded.
    id: uuid("id").primaryKey(),
    merchantId: uuid("merchant_id")
      .notNull()
      .references(() => merchants.id),
    idempotencyKey: text("idempotency_key"),
    // The PSP it is made at: only a process configured for it resumes or ends it.
    provider: text("provider").notNull(),
    state: text("state", { enum: SUBSCRIPTION_CREATION_STATES }).notNull(),
    locationId: text("location_id"),
    immediateTxid: text("immediate_txid"),
    idRec: text("id_rec"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("subscription_creations_key")
      .on(t.merchantId, t.idempotencyKey)
      .where(sql`idempotency_key is not null`),
    index("subscription_creations_creating")
      .on(t.updatedAt)
      .where(sql`state = 'CREATING'`),
    check("subscription_creations_state", inList("state", SUBSCRIPTION_CREATION_STATES)),
  ],
);

/**
 * The sandbox's recurring PSP keeps what it was asked in its own tables, as a real PSP does on its
 * side: the domain reads it back through the provider like any PSP, so restarts change nothing.
 */
export const sandboxRecurrences = pgTable("sandbox_recurrences", {
  idRec: text("id_rec").primaryKey(),
  status: text("status").notNull(),
  journey: text("journey").notNull(),
  tipoJornada: text("tipo_jornada").notNull(),
  retryPolicy: text("retry_policy").notNull(),
  immediateTxid: text("immediate_txid"),
  immediateCentavos: centavos("immediate_centavos"),
  immediatePayment: jsonb("immediate_payment").$type<StoredPayment>(),
  history: jsonb("history").$type<{ status: string; at: string }[]>().notNull().default([]),
  closure: jsonb("closure").$type<StoredClosure>(),
  createdAt: createdAt(),
});

export const sandboxRecurringCharges = pgTable("sandbox_recurring_charges", {
  txid: text("txid").primaryKey(),
  idRec: text("id_rec").notNull(),
  status: text("status").notNull(),
  dueDate: date("due_date", { mode: "string" }).notNull(),
  valueCentavos: centavos("value_centavos").notNull(),
  attempts: jsonb("attempts").$type<StoredAttempt[]>().notNull().default([]),
  payments: jsonb("payments").$type<StoredPayment[]>().notNull().default([]),
  history: jsonb("history").$type<{ status: string; at: string }[]>().notNull().default([]),
  closure: jsonb("closure").$type<StoredClosure>(),
  createdAt: createdAt(),
});

export type Subscription = typeof subscriptions.$inferSelect;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];
export type SubscriptionCycle = typeof subscriptionCycles.$inferSelect;
export type SubscriptionCreation = typeof subscriptionCreations.$inferSelect;
export type CycleStatus = (typeof CYCLE_STATUSES)[number];
