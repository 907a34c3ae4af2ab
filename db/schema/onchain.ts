import { sql } from "drizzle-orm";
import {
  bigint,
  check,
  index,
  integer,
  numeric,
  pgSequence,
  pgTable,
  text,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { centavos, createdAt, crypto, inList, metadata, ts, updatedAt } from "./columns";
import { merchants } from "./merchants";
import { ORDER_SEARCH_TEXT, REFUND_STATUSES } from "./orders";

export const CHAIN_STATUSES = ["PENDING", "COMPLETED", "REFUNDED", "PARTIAL_ORDER", "FAILED"] as const;
/** The HD index sequence shared by deposit orders and Crypto-PIX payments. */
export const walletIndexSeq = pgSequence("wallet_index_seq", { startWith: 0, minValue: 0 });

/**
 * One row per HD index ever handed out, whatever it was for. The primary key on the index and the
 * unique address make reuse impossible even if two code paths race (docs/architecture.md#invariants-and-what-enforces-them).
 */
export const depositAddresses = pgTable(
  "deposit_addresses",
  {
    walletIndex: integer("wallet_index").primaryKey(),
    address: text("address").notNull(),
    ownerKind: text("owner_kind", { enum: ["onchain_order", "crypto_pix"] }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("deposit_addresses_address").on(sql`lower(${t.address})`)],
);

export const onchainOrders = pgTable(
  "onchain_orders",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    merchantId: uuid("merchant_id")
      .notNull()
      .references(() => merchants.id),
    paymentLinkId: text("payment_link_id").notNull(),
    network: text("network").notNull(),
    asset: text("asset").notNull(),
    tokenAddress: text("token_address").notNull(),
    tokenDecimals: integer("token_decimals").notNull(),
    address: text("address").notNull(),
    walletIndex: integer("wallet_index")
      .notNull()
      .references(() => depositAddresses.walletIndex),
    status: text("status", { enum: CHAIN_STATUSES }).notNull().default("PENDING"),
    valueCentavos: centavos("value_centavos").notNull(),
    cryptoAmount: crypto("crypto_amount").notNull(),
    rate: numeric("rate", { precision: 38, scale: 18 }).notNull(),
    rateSource: text("rate_source").notNull(),
    rateAt: ts("rate_at").notNull(),
    receivedAmount: crypto("received_amount").notNull().default("0"),
    // Money that arrived beyond what was due, or after the order was final: kept, never dropped.
    unappliedAmount: crypto("unapplied_amount").notNull().default("0"),
    creditedCentavos: centavos("credited_centavos").notNull().default(0),
    metadata: metadata(),
    expiresAt: ts("expires_at").notNull(),
    completedAt: ts("completed_at"),
    // Set when the order can no longer change: COMPLETED, FAILED, or a PARTIAL_ORDER closed at expiry.
    closedAt: ts("closed_at"),
    // How many parts its split has (order_splits): 0 spares every transfer and view of a deposit without one a query.
    splitCount: integer("split_count").notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("onchain_orders_payment_link_id").on(t.paymentLinkId),
    index("onchain_orders_search").using("gin", t.merchantId, sql`(${ORDER_SEARCH_TEXT.onchain_orders}) gin_trgm_ops`),
    index("onchain_orders_merchant_value").on(t.merchantId, t.valueCentavos, t.createdAt),
    uniqueIndex("onchain_orders_wallet_index").on(t.walletIndex),
    index("onchain_orders_merchant_created").on(t.merchantId, t.createdAt, t.id),
    index("onchain_orders_open_expiry")
      .on(t.expiresAt)
      .where(sql`closed_at is null`),
    check("onchain_orders_status", inList("status", CHAIN_STATUSES)),
    check("onchain_orders_value_positive", sql`value_centavos > 0`),
  ],
);

/** Every token transfer seen to one of our addresses, once, whatever became of it. */
export const chainTransfers = pgTable(
  "chain_transfers",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    network: text("network").notNull(),
    txHash: text("tx_hash").notNull(),
    logIndex: integer("log_index").notNull(),
    fromAddress: text("from_address"),
    toAddress: text("to_address").notNull(),
    tokenAddress: text("token_address").notNull(),
    amount: crypto("amount").notNull(),
    appliedAmount: crypto("applied_amount").notNull().default("0"),
    unappliedAmount: crypto("unapplied_amount").notNull().default("0"),
    ownerKind: text("owner_kind", { enum: ["onchain_order", "crypto_pix"] }).notNull(),
    ownerId: uuid("owner_id").notNull(),
    note: text("note"),
    blockNumber: bigint("block_number", { mode: "number" }),
    blockHash: text("block_hash"),
    // The payment time: the block's timestamp (the sandbox helpers' transfers: when they were made).
    blockTime: ts("block_time"),
    // Money that did not count (after a Crypto-PIX payment closed, or beyond what was due) is sent back
    // to its sender: PENDING until its refund transaction is decided.
    refundStatus: text("refund_status", { enum: REFUND_STATUSES }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("chain_transfers_unique").on(t.network, t.txHash, t.logIndex),
    index("chain_transfers_owner").on(t.ownerId),
    index("chain_transfers_refund_pending")
      .on(t.ownerId)
      .where(sql`refund_status = 'PENDING'`),
  ],
);

export const UNAPPLIED_RESOLUTION_KINDS = ["accept", "return"] as const;

/**
 * What the merchant did with one transfer's unapplied tokens on an on-chain deposit order: accepted
 * them as payment (credited at the order's fixed rate) or returned them to an address (a hot-wallet
 * transaction). One per transfer: the unique transfer_id makes a second click, or an accept racing a
 * return, fail in the database (lib/onchain/unapplied.ts).
 */
export const unappliedResolutions = pgTable(
  "unapplied_resolutions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    merchantId: uuid("merchant_id")
      .notNull()
      .references(() => merchants.id),
    orderId: uuid("order_id")
      .notNull()
      .references(() => onchainOrders.id),
    transferId: uuid("transfer_id")
      .notNull()
      .references(() => chainTransfers.id),
    kind: text("kind", { enum: UNAPPLIED_RESOLUTION_KINDS }).notNull(),
    // Accepted: COMPLETED at once. Returned: PENDING until a receipt decides its transaction.
    status: text("status", { enum: REFUND_STATUSES }).notNull(),
    // The transfer's unapplied tokens, all of them.
    amount: crypto("amount").notNull(),
    creditedCentavos: centavos("credited_centavos"),
    // A return: where to, the network fee kept out of it (tokens), what is sent, and its transaction.
    toAddress: text("to_address"),
    feeAmount: crypto("fee_amount"),
    sentAmount: crypto("sent_amount"),
    chainTxId: uuid("chain_tx_id"),
    txHash: text("tx_hash"),
    failureReason: text("failure_reason"),
    userId: uuid("user_id"),
    // A return to a held destination (payout_destinations): recorded, not sent, until an owner
    // confirms it or the hold ends (lib/withdrawals/release.ts); null once its transaction is made.
    waitingDestinationId: uuid("waiting_destination_id"),
    waitingReason: text("waiting_reason"),
    // A waiting return the merchant cancelled (FAILED): the transfer's funds can be decided again.
    cancelledAt: ts("cancelled_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("unapplied_resolutions_transfer")
      .on(t.transferId)
      .where(sql`cancelled_at is null`),
    // The few returns that wait for a destination, oldest first, as the release sweep reads them.
    index("unapplied_resolutions_waiting")
      .on(t.createdAt)
      .where(sql`status = 'PENDING' and waiting_destination_id is not null`),
    index("unapplied_resolutions_order").on(t.orderId),
    check("unapplied_resolutions_kind", inList("kind", UNAPPLIED_RESOLUTION_KINDS)),
    check("unapplied_resolutions_status", inList("status", REFUND_STATUSES)),
  ],
);

/** Where the chain watcher has read up to, per network. */
export const chainCursors = pgTable("chain_cursors", {
  network: text("network").primaryKey(),
  blockNumber: bigint("block_number", { mode: "number" }).notNull(),
  // That block's timestamp: every transfer mined up to this time has been applied, so an order whose
  // expiry is before it can be closed without losing a payment made in time.
  blockTime: ts("block_time"),
  updatedAt: updatedAt(),
});

export type OnchainOrder = typeof onchainOrders.$inferSelect;
export type ChainStatus = (typeof CHAIN_STATUSES)[number];
export type ChainTransfer = typeof chainTransfers.$inferSelect;
export type UnappliedResolution = typeof unappliedResolutions.$inferSelect;
