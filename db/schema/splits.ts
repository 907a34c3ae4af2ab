import { sql } from "drizzle-orm";
import { check, date, index, integer, pgTable, smallint, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { centavos, createdAt, inList, ts, updatedAt } from "./columns";
import { merchants } from "./merchants";
import { onchainOrders } from "./onchain";
import { orders } from "./orders";

export const RECIPIENT_STATUSES = ["ACTIVE", "DISABLED"] as const;
export type RecipientStatus = (typeof RECIPIENT_STATUSES)[number];
export const PAYOUT_INTERVALS = ["daily", "weekly", "monthly"] as const;
export type PayoutInterval = (typeof PAYOUT_INTERVALS)[number];

/**
 * A merchant's recipient ("recebedor"): someone a payment's split sends part of it to.
 * Its balance is a ledger account of the merchant's (recipient_ledger_entries), never part of the
 * merchant's own GET /account balance. Its pixKey is one of the merchant's payout destinations
 * (payout_destinations): a changed key is held and confirmed there, like any new destination
 * (lib/recipients/key-hold.ts). The pending_* and pix_key_held_until columns predate that and are unused.
 */
export const recipients = pgTable(
  "recipients",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    merchantId: uuid("merchant_id")
      .notNull()
      .references(() => merchants.id),
    name: text("name").notNull(),
    email: text("email"),
    // CPF (11) or CNPJ (14) digits, check digits verified on the way in.
    document: text("document").notNull(),
    pixKey: text("pix_key").notNull(),
    pixKeyType: text("pix_key_type").notNull(),
    pendingPixKey: text("pending_pix_key"),
    pendingPixKeyType: text("pending_pix_key_type"),
    pixKeyHeldUntil: ts("pix_key_held_until"),
    // What the recipient is owed on the merchant's ledger: the sum of its recipient_ledger_entries.
    balanceCentavos: centavos("balance_centavos").notNull().default(0),
    // DISABLED: no new split names it and it is not paid out; its balance and statement remain.
    status: text("status", { enum: RECIPIENT_STATUSES }).notNull().default("ACTIVE"),
    // The merchant's own id for it (a seller id in its marketplace).
    reference: text("reference"),
    // The automatic payout schedule (lib/recipients/schedule.ts), all null when there is none: each
    // slot is a São Paulo calendar day; weekday 1 (Monday) to 7 (Sunday); a month_day past the end of
    // a month means its last day; only slots starting at or after payout_schedule_since are paid.
    payoutInterval: text("payout_interval", { enum: PAYOUT_INTERVALS }),
    payoutWeekday: smallint("payout_weekday"),
    payoutMonthDay: smallint("payout_month_day"),
    payoutMinimumCentavos: centavos("payout_minimum_centavos"),
    payoutScheduleSince: ts("payout_schedule_since"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("recipients_merchant").on(t.merchantId, t.createdAt, t.id),
    // The schedule's job reads only the active recipients that have one, in id order: both conditions
    // literal here and in its query, so the planner walks this index without statistics too.
    index("recipients_payout_schedule")
      .on(t.id)
      .where(sql`payout_interval is not null and status = 'ACTIVE'`),
    check(
      "recipients_payout_schedule",
      sql`(payout_interval is null and payout_weekday is null and payout_month_day is null and payout_minimum_centavos is null and payout_schedule_since is null)
        or (payout_schedule_since is not null and (
          (payout_interval = 'daily' and payout_weekday is null and payout_month_day is null)
          or (payout_interval = 'weekly' and payout_weekday between 1 and 7 and payout_month_day is null)
          or (payout_interval = 'monthly' and payout_weekday is null and payout_month_day between 1 and 31))
          and (payout_minimum_centavos is null or payout_minimum_centavos > 0))`,
    ),
    uniqueIndex("recipients_merchant_document").on(t.merchantId, t.document),
    check("recipients_status", inList("status", RECIPIENT_STATUSES)),
  ],
);

export const SPLIT_PART_STATUSES = ["PENDING", "CREDITED", "REFUNDED", "CANCELLED"] as const;

/**
 * One part of an order's split, as requested and (once paid) as credited: of a PIX, exchange-wallet or
 * Lightning order (order_id) or of an on-chain deposit (onchain_order_id), which live in two tables.
 */
export const orderSplits = pgTable(
  "order_splits",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orderId: uuid("order_id").references(() => orders.id),
    onchainOrderId: uuid("onchain_order_id").references(() => onchainOrders.id),
    merchantId: uuid("merchant_id")
      .notNull()
      .references(() => merchants.id),
    recipientId: uuid("recipient_id")
      .notNull()
      .references(() => recipients.id),
    position: integer("position").notNull(),
    // Exactly one of the two forms: a fixed value or a percentage in hundredths of a percent.
    requestedCentavos: centavos("requested_centavos"),
    percentageBasisPoints: integer("percentage_basis_points"),
    // What the part is worth: at creation, on the order's value; once credited, what was credited.
    valueCentavos: centavos("value_centavos").notNull(),
    refundedCentavos: centavos("refunded_centavos").notNull().default(0),
    status: text("status", { enum: SPLIT_PART_STATUSES }).notNull().default("PENDING"),
    creditedAt: ts("credited_at"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("order_splits_order_recipient").on(t.orderId, t.recipientId),
    uniqueIndex("order_splits_onchain_recipient")
      .on(t.onchainOrderId, t.recipientId)
      .where(sql`onchain_order_id is not null`),
    check("order_splits_one_order", sql`(order_id is null) <> (onchain_order_id is null)`),
    index("order_splits_recipient").on(t.recipientId, t.createdAt),
    check("order_splits_status", inList("status", SPLIT_PART_STATUSES)),
    check("order_splits_one_form", sql`(requested_centavos is null) <> (percentage_basis_points is null)`),
    check(
      "order_splits_percentage",
      sql`percentage_basis_points is null or percentage_basis_points between 1 and 10000`,
    ),
  ],
);

/**
 * A recipient's ledger: append-only, one entry per (kind, ref_type, ref_id) so a split part is
 * credited once (ref = the order_splits row) and refunded once per refund (ref = the refund row).
 * Its balance may go below zero after a refund, like a merchant's after a MED return.
 */
export const recipientLedgerEntries = pgTable(
  "recipient_ledger_entries",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    merchantId: uuid("merchant_id")
      .notNull()
      .references(() => merchants.id),
    recipientId: uuid("recipient_id")
      .notNull()
      .references(() => recipients.id),
    kind: text("kind").notNull(),
    amountCentavos: centavos("amount_centavos").notNull(),
    refType: text("ref_type").notNull(),
    refId: text("ref_id").notNull(),
    description: text("description"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("recipient_ledger_entries_ref").on(t.kind, t.refType, t.refId),
    index("recipient_ledger_entries_recipient").on(t.recipientId, t.createdAt, t.id),
  ],
);

export const RECIPIENT_PAYOUT_STATUSES = ["PENDING", "COMPLETED", "FAILED"] as const;

/**
 * A PIX payout of a recipient's balance to its key: debited from the recipient's ledger in the
 * transaction that records it (with its pix_payouts row, purpose recipient_payout), credited back
 * only when the provider says the PIX was not made (lib/recipients/payouts.ts).
 */
export const recipientPayouts = pgTable(
  "recipient_payouts",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    merchantId: uuid("merchant_id")
      .notNull()
      .references(() => merchants.id),
    recipientId: uuid("recipient_id")
      .notNull()
      .references(() => recipients.id),
    valueCentavos: centavos("value_centavos").notNull(),
    pixKey: text("pix_key").notNull(),
    pixKeyType: text("pix_key_type").notNull(),
    status: text("status", { enum: RECIPIENT_PAYOUT_STATUSES }).notNull().default("PENDING"),
    providerRef: text("provider_ref"),
    failureReason: text("failure_reason"),
    completedAt: ts("completed_at"),
    // The São Paulo day of the automatic schedule's slot it pays, null for a payout asked for: one
    // payout per slot however often the schedule's job runs (recipient_payouts_schedule_slot).
    scheduleSlot: date("schedule_slot", { mode: "string" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("recipient_payouts_recipient").on(t.recipientId, t.createdAt, t.id),
    uniqueIndex("recipient_payouts_schedule_slot")
      .on(t.recipientId, t.scheduleSlot)
      .where(sql`schedule_slot is not null`),
    check("recipient_payouts_status", inList("status", RECIPIENT_PAYOUT_STATUSES)),
    check("recipient_payouts_value_positive", sql`value_centavos > 0`),
  ],
);

export const PAYOUT_SKIP_REASONS = ["no_balance", "below_minimum", "key_held"] as const;
export type PayoutSkipReason = (typeof PAYOUT_SKIP_REASONS)[number];

/**
 * Why a due slot of a recipient's automatic schedule paid nothing (lib/recipients/auto-payouts.ts):
 * written once per (recipient, slot, reason) however often the job looks, with the balance and minimum
 * it saw, so the merchant sees it on the recipient's page and in a recipient.payout.skipped event.
 * The slot stays due: a later run in it may still pay (recipient_payouts.schedule_slot).
 */
export const recipientPayoutSkips = pgTable(
  "recipient_payout_skips",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    merchantId: uuid("merchant_id")
      .notNull()
      .references(() => merchants.id),
    recipientId: uuid("recipient_id")
      .notNull()
      .references(() => recipients.id),
    scheduleSlot: date("schedule_slot", { mode: "string" }).notNull(),
    reason: text("reason", { enum: PAYOUT_SKIP_REASONS }).notNull(),
    balanceCentavos: centavos("balance_centavos").notNull(),
    minimumCentavos: centavos("minimum_centavos"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("recipient_payout_skips_slot").on(t.recipientId, t.scheduleSlot, t.reason),
    check("recipient_payout_skips_reason", inList("reason", PAYOUT_SKIP_REASONS)),
  ],
);

export type Recipient = typeof recipients.$inferSelect;
export type RecipientPayoutSkip = typeof recipientPayoutSkips.$inferSelect;
export type RecipientPayout = typeof recipientPayouts.$inferSelect;
export type OrderSplit = typeof orderSplits.$inferSelect;
