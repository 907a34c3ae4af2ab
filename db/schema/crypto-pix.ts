import { sql } from "drizzle-orm";
import { bigint, check, index, integer, numeric, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { centavos, createdAt, crypto, inList, metadata, ts, updatedAt } from "./columns";
import { merchants } from "./merchants";
import { CHAIN_STATUSES, depositAddresses } from "./onchain";
import { ORDER_SEARCH_TEXT, REFUND_STATUSES } from "./orders";

export const cryptoPixPayments = pgTable(
  "crypto_pix_payments",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    merchantId: uuid("merchant_id")
      .notNull()
      .references(() => merchants.id),
    network: text("network").notNull(),
    asset: text("asset").notNull(),
    // On a chain: the token and the deposit address. Over Lightning there is neither: `address` holds
    // the invoice to pay, and crypto_pix_invoices the rest.
    tokenAddress: text("token_address"),
    tokenDecimals: integer("token_decimals"),
    address: text("address").notNull(),
    walletIndex: integer("wallet_index").references(() => depositAddresses.walletIndex),
    status: text("status", { enum: CHAIN_STATUSES }).notNull().default("PENDING"),
    qrcode: text("qrcode").notNull(),
    pixKey: text("pix_key").notNull(),
    recipientName: text("recipient_name").notNull(),
    recipientCity: text("recipient_city").notNull(),
    pixTxid: text("pix_txid"),
    valueCentavos: centavos("value_centavos").notNull(),
    cryptoAmount: crypto("crypto_amount").notNull(),
    rate: numeric("rate", { precision: 38, scale: 18 }).notNull(),
    rateSource: text("rate_source").notNull(),
    rateAt: ts("rate_at").notNull(),
    receivedAmount: crypto("received_amount").notNull().default("0"),
    unappliedAmount: crypto("unapplied_amount").notNull().default("0"),
    partialBrlCentavos: centavos("partial_brl_centavos"),
    partialUpdatedAt: ts("partial_updated_at"),
    txHash: text("tx_hash"),
    refundAddress: text("refund_address"),
    refundTxHash: text("refund_tx_hash"),
    refundStatus: text("refund_status", { enum: REFUND_STATUSES }),
    // When the full amount arrived: the block time of the transfer that completed it (expiry is judged by it).
    paidAt: ts("paid_at"),
    pixPayoutId: text("pix_payout_id"),
    failureReason: text("failure_reason"),
    metadata: metadata(),
    expiresAt: ts("expires_at").notNull(),
    closedAt: ts("closed_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("crypto_pix_wallet_index").on(t.walletIndex),
    index("crypto_pix_search").using("gin", t.merchantId, sql`(${ORDER_SEARCH_TEXT.crypto_pix_payments}) gin_trgm_ops`),
    index("crypto_pix_merchant_value").on(t.merchantId, t.valueCentavos, t.createdAt),
    index("crypto_pix_merchant_created").on(t.merchantId, t.createdAt, t.id),
    index("crypto_pix_open_expiry")
      .on(t.expiresAt)
      .where(sql`closed_at is null`),
    // Refunds decided and not yet sent: the sweep's work list.
    index("crypto_pix_refund_pending")
      .on(t.id)
      .where(sql`refund_status = 'PENDING'`),
    check("crypto_pix_status", inList("status", CHAIN_STATUSES)),
    check("crypto_pix_value_positive", sql`value_centavos > 0`),
  ],
);

/**
 * The hold invoice of a Crypto-PIX payment over Lightning: the payer's payment is held (ACCEPTED) until
 * the PIX is confirmed, then settled with the preimage; cancelled when the PIX was not made, so the
 * payer's sats go back by themselves. `action` is what still has to be done at the node.
 */
export const cryptoPixInvoices = pgTable(
  "crypto_pix_invoices",
  {
    paymentId: uuid("payment_id")
      .primaryKey()
      .references(() => cryptoPixPayments.id),
    provider: text("provider").notNull(),
    paymentHash: text("payment_hash").notNull(),
    // Only this settles the invoice: kept until it is used. It reveals nothing once the payment settled.
    preimage: text("preimage").notNull(),
    satoshis: bigint("satoshis", { mode: "number" }).notNull(),
    state: text("state", { enum: ["open", "accepted", "settled", "canceled"] })
      .notNull()
      .default("open"),
    acceptedAt: ts("accepted_at"),
    action: text("action", { enum: ["settle", "cancel"] }),
    lastError: text("last_error"),
    // The held HTLCs' earliest expiry (block height) and the height they were accepted at: lnd cancels a
    // held HTLC some blocks before it expires, so the PIX is paid only while enough blocks remain.
    htlcExpiryHeight: integer("htlc_expiry_height"),
    acceptHeight: integer("accept_height"),
    // Why an operator must look (a settle that keeps failing after the PIX was made), and since when.
    attention: text("attention"),
    attentionAt: ts("attention_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("crypto_pix_invoices_hash").on(t.paymentHash),
    index("crypto_pix_invoices_pending")
      .on(t.createdAt)
      .where(sql`action is not null or state in ('open', 'accepted')`),
    // What is left to do at the node, oldest change first: the sweep's work list. Named by its values,
    // not "is not null": without statistics PostgreSQL takes "is not null" for nearly every row.
    index("crypto_pix_invoices_action")
      .on(t.updatedAt)
      .where(sql`action in ('settle', 'cancel')`),
  ],
);

export type CryptoPixPayment = typeof cryptoPixPayments.$inferSelect;
export type CryptoPixInvoice = typeof cryptoPixInvoices.$inferSelect;
