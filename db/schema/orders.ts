import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { centavos, createdAt, inList, metadata, ts, updatedAt } from "./columns";
import { merchants } from "./merchants";

export const ORDER_KINDS = ["pix", "exchange", "lightning"] as const;
export const ORDER_STATUSES = ["PENDING", "COMPLETED", "CANCELLED", "FAILED", "REFUND"] as const;
/** A refund's own progress (Crypto-PIX and order refunds): PENDING until the chain or the provider decides it. */
export const REFUND_STATUSES = ["PENDING", "COMPLETED", "FAILED"] as const;
/** Why a received PIX was not applied to an order (it stays on record, for a refund or an operator). */
export const PIX_RECEIPT_REASONS = ["wrong_value", "unknown_txid", "order_not_pending", "after_expiry"] as const;
/**
 * What order search (lib/orders/search.ts) looks in for a substring, per table: the references the
 * client sent (orderId, name, e-mail, payer id, CPF/CNPJ stored bare, …), lower-cased and, where
 * people's names are, without accents: search_fold, from the search_without_accents migration, is
 * `unaccent` declared immutable so it can be indexed, and "Joao" finds "João" (a deposit's address has
 * no accents to drop). Each is the expression of a pg_trgm GIN index, so part of a name or reference
 * is an index lookup; queries must spell it exactly so the planner matches the index, hence one
 * definition for both. Ids are left out:
 * random text costs the most trigrams to index (measured: the order id and payment link id were ~60% of
 * an order's trigrams and of the index's cost per insert), and search finds them by prefix through
 * their own indexes instead.
 */
export const ORDER_SEARCH_TEXT = {
  orders: sql.raw(
    "search_fold(coalesce(reference->>'orderId', '') || ' ' || coalesce(reference->>'orderRequest', '') || ' ' || coalesce(reference->>'merchant', '') || ' ' || coalesce(reference->>'name', '') || ' ' || coalesce(reference->>'email', '') || ' ' || coalesce(reference->>'payerId', '') || ' ' || coalesce(reference->>'subMerchantId', '') || ' ' || coalesce(reference->>'cpf', '') || ' ' || coalesce(reference->>'cnpj', ''))",
  ),
  onchain_orders: sql.raw("lower(address)"),
  crypto_pix_payments: sql.raw(
    "search_fold(recipient_name || ' ' || pix_key || ' ' || coalesce(pix_txid, '') || ' ' || coalesce(tx_hash, '') || ' ' || address)",
  ),
};

/**
 * Which rows of each table have search text at all: the predicate of each trigram index, and what a
 * search must state beside its LIKE for the planner to reach a partial index. An order created without
 * references (most API orders) has only blanks to search, which no search text of three characters
 * matches; indexing it cost a GIN entry per order all the same (measured: ~15% of PostgreSQL's CPU
 * per created PIX order).
 */
export const ORDER_SEARCHABLE = {
  orders: sql.raw("reference <> '{}'::jsonb"),
  onchain_orders: sql.raw("true"),
  crypto_pix_payments: sql.raw("true"),
};

/** PIX, exchange-wallet and Lightning orders: the spec's "general orders". */
export const orders = pgTable(
  "orders",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    merchantId: uuid("merchant_id")
      .notNull()
      .references(() => merchants.id),
    kind: text("kind", { enum: ORDER_KINDS }).notNull(),
    paymentLinkId: text("payment_link_id").notNull(),
    hash: text("hash").notNull(),
    status: text("status", { enum: ORDER_STATUSES }).notNull().default("PENDING"),
    valueCentavos: centavos("value_centavos").notNull(),
    // The client's own references (orderRequest, orderId, name, cpf, payerId, email, …), echoed back.
    reference: jsonb("reference").$type<Record<string, string>>().notNull().default({}),
    metadata: metadata(),
    provider: text("provider").notNull(),
    providerRef: text("provider_ref"),
    brcode: text("brcode"),
    txid: text("txid"),
    invoice: text("invoice"),
    paymentHash: text("payment_hash"),
    satoshis: bigint("satoshis", { mode: "number" }),
    rate: numeric("rate", { precision: 38, scale: 18 }),
    rateSource: text("rate_source"),
    rateAt: ts("rate_at"),
    expiresAt: ts("expires_at"),
    paidAt: ts("paid_at"),
    // What the provider gave the payer beside the QR code (Binance Pay: checkoutUrl, deeplink, universalUrl).
    payLinks: jsonb("pay_links").$type<Record<string, string>>(),
    version: integer("version").notNull().default(0),
    // How many parts its split has (order_splits): 0 spares every payment and view of an order without one a query.
    splitCount: integer("split_count").notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("orders_payment_link_id").on(t.paymentLinkId),
    uniqueIndex("orders_hash").on(t.hash),
    // Partial: each kind has only one of txid (PIX) and payment hash (Lightning), and an order without
    // an expiry is never swept, so every order is written into the indexes it can be found by and no
    // others (measured: fewer index writes per created order).
    uniqueIndex("orders_txid")
      .on(t.txid)
      .where(sql`txid is not null`),
    uniqueIndex("orders_payment_hash")
      .on(t.paymentHash)
      .where(sql`payment_hash is not null`),
    index("orders_merchant_created").on(t.merchantId, t.createdAt, t.id),
    // The merchant first (btree_gin), so a search reads only the merchant's entries of the trigram
    // index, not every merchant's (docs/performance.md: 24 → 3.8 ms for a common name at 10 M orders).
    index("orders_search")
      .using("gin", t.merchantId, sql`(${ORDER_SEARCH_TEXT.orders}) gin_trgm_ops`)
      .where(ORDER_SEARCHABLE.orders),
    index("orders_merchant_value").on(t.merchantId, t.valueCentavos, t.createdAt),
    // Provider callbacks and polls find Lightning and exchange-wallet orders by the provider's id, and
    // the polls walk those a payment could still arrive for; PIX orders are found by txid instead.
    index("orders_provider_ref")
      .on(t.provider, t.providerRef)
      .where(sql`kind in ('lightning', 'exchange')`),
    index("orders_awaiting_provider")
      .on(t.provider, t.expiresAt)
      .where(sql`kind in ('lightning', 'exchange') and status in ('PENDING', 'CANCELLED')`),
    index("orders_pending_expiry")
      .on(t.expiresAt)
      .where(sql`status = 'PENDING' and expires_at is not null`),
    check("orders_kind", inList("kind", ORDER_KINDS)),
    check("orders_status", inList("status", ORDER_STATUSES)),
    check("orders_value_positive", sql`value_centavos > 0`),
  ],
);

/**
 * Every PIX received at the service's key, as the PSP reported it (confirmed by reading it back, or
 * from the PSP's own list): the end-to-end id makes a payment count once however often it is notified.
 * Applied to its order, or kept unapplied with the reason (a wrong value, no such order, …).
 */
export const pixReceipts = pgTable(
  "pix_receipts",
  {
    endToEndId: text("end_to_end_id").primaryKey(),
    txid: text("txid"),
    orderId: uuid("order_id").references(() => orders.id),
    merchantId: uuid("merchant_id").references(() => merchants.id),
    valueCentavos: centavos("value_centavos").notNull(),
    // The payment time the PSP reports (`horario`): what expiry is judged by.
    paidAt: ts("paid_at").notNull(),
    applied: boolean("applied").notNull(),
    unappliedReason: text("unapplied_reason", { enum: PIX_RECEIPT_REASONS }),
    // How we learnt of it: a notification (then confirmed by GET /pix/{e2eid}) or the reconciliation poll.
    source: text("source", { enum: ["notification", "poll", "sandbox"] }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index("pix_receipts_order").on(t.orderId),
    check("pix_receipts_reason", sql`applied = (unapplied_reason is null)`),
    check("pix_receipts_value_positive", sql`value_centavos > 0`),
  ],
);

/**
 * Refunds of PIX and exchange-wallet orders (docs/api.md#refunds). The merchant is debited when one is
 * requested and credited back if the provider says it was not made; its id (without dashes) is the
 * provider's idempotent id (API Pix `devolucao/{id}`, Binance Pay `refundRequestId`).
 */
export const orderRefunds = pgTable(
  "order_refunds",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orderId: uuid("order_id")
      .notNull()
      .references(() => orders.id),
    merchantId: uuid("merchant_id")
      .notNull()
      .references(() => merchants.id),
    valueCentavos: centavos("value_centavos").notNull(),
    reason: text("reason"),
    metadata: metadata(),
    status: text("status", { enum: REFUND_STATUSES }).notNull().default("PENDING"),
    provider: text("provider").notNull(),
    // What the provider refunds against: the PIX's end-to-end id, the exchange payment's id.
    paymentRef: text("payment_ref").notNull(),
    // The provider's id of the refund itself (API Pix rtrId), once it gave one.
    providerRef: text("provider_ref"),
    // Whether the provider has seen it: until then a read that finds nothing means "send it".
    sentAt: ts("sent_at"),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    failureReason: text("failure_reason"),
    leaseUntil: ts("lease_until"),
    // Why an operator must look, as for pix_payouts.
    attention: text("attention"),
    attentionAt: ts("attention_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    decidedAt: ts("decided_at"),
  },
  (t) => [
    index("order_refunds_order").on(t.orderId, t.createdAt),
    index("order_refunds_open")
      .on(t.createdAt)
      .where(sql`status = 'PENDING'`),
    check("order_refunds_status", inList("status", REFUND_STATUSES)),
    check("order_refunds_value_positive", sql`value_centavos > 0`),
  ],
);

/**
 * Payments a Lightning or exchange-wallet provider reported for an order, once each (provider,
 * its payment's id): applied (the order completed) or kept as unapplied funds with the reason (paid
 * after the expiry). PIX payments have their own record (pix_receipts), which also holds PIX that
 * belong to no order.
 */
export const orderReceipts = pgTable(
  "order_receipts",
  {
    provider: text("provider").notNull(),
    paymentRef: text("payment_ref").notNull(),
    orderId: uuid("order_id")
      .notNull()
      .references(() => orders.id),
    merchantId: uuid("merchant_id")
      .notNull()
      .references(() => merchants.id),
    // The provider's payment time: what expiry is judged by.
    paidAt: ts("paid_at").notNull(),
    applied: boolean("applied").notNull(),
    unappliedReason: text("unapplied_reason", { enum: PIX_RECEIPT_REASONS }),
    source: text("source", { enum: ["notification", "poll", "stream", "sandbox"] }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.provider, t.paymentRef] }),
    index("order_receipts_order").on(t.orderId),
    check("order_receipts_reason", sql`applied = (unapplied_reason is null)`),
  ],
);

export type Order = typeof orders.$inferSelect;
export type OrderKind = (typeof ORDER_KINDS)[number];
export type OrderStatus = (typeof ORDER_STATUSES)[number];
export type PixReceipt = typeof pixReceipts.$inferSelect;
export type OrderRefund = typeof orderRefunds.$inferSelect;
export type OrderReceipt = typeof orderReceipts.$inferSelect;
