import { sql } from "drizzle-orm";
import { check, date, index, integer, numeric, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { centavos, createdAt, crypto, inList, metadata, ts, updatedAt } from "./columns";
import { merchants } from "./merchants";

export const WITHDRAWAL_KINDS = ["onchain", "pix_out"] as const;
export const WITHDRAWAL_STATUSES = ["PENDING", "COMPLETED", "FAILED"] as const;
export const withdrawals = pgTable(
  "withdrawals",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    merchantId: uuid("merchant_id")
      .notNull()
      .references(() => merchants.id),
    kind: text("kind", { enum: WITHDRAWAL_KINDS }).notNull(),
    status: text("status", { enum: WITHDRAWAL_STATUSES }).notNull().default("PENDING"),
    // What counts against the limits: the BRL value the merchant asked to withdraw.
    valueCentavos: centavos("value_centavos").notNull(),
    serviceFeeCentavos: centavos("service_fee_centavos").notNull().default(0),
    networkFeeCentavos: centavos("network_fee_centavos").notNull().default(0),
    debitCentavos: centavos("debit_centavos").notNull(),
    // The calendar day in America/Sao_Paulo the daily limit counts it against.
    limitDay: date("limit_day", { mode: "string" }).notNull(),
    network: text("network"),
    token: text("token"),
    tokenAddress: text("token_address"),
    toAddress: text("to_address"),
    tokenAmount: crypto("token_amount"),
    rate: numeric("rate", { precision: 38, scale: 18 }),
    pixKey: text("pix_key"),
    pixKeyType: text("pix_key_type"),
    txHash: text("tx_hash"),
    nonce: integer("nonce"),
    rawTransaction: text("raw_transaction"),
    providerRef: text("provider_ref"),
    failureReason: text("failure_reason"),
    // Why a withdrawal is not sent yet (a new destination's hold, or the hot wallet cannot pay it); null once it is.
    waitingReason: text("waiting_reason"),
    metadata: metadata(),
    // The held destination (payout_destinations) it waits for, recorded and debited but not sent:
    // lib/withdrawals/release.ts sends it once an owner confirms it or the hold ends. Null once sent.
    waitingDestinationId: uuid("waiting_destination_id"),
    completedAt: ts("completed_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // What counts against today's limit: partial like the question asked of it, so that a plan made
    // before the table had statistics still prefers it to reading every withdrawal of the merchant.
    index("withdrawals_merchant_day")
      .on(t.merchantId, t.limitDay)
      .where(sql`status <> 'FAILED'`),
    index("withdrawals_merchant_created").on(t.merchantId, t.createdAt),
    // The few that wait for a destination, oldest first: the release sweep reads them in this order.
    index("withdrawals_waiting")
      .on(t.createdAt)
      .where(sql`status = 'PENDING' and waiting_destination_id is not null`),
    uniqueIndex("withdrawals_tx_hash").on(t.txHash),
    check("withdrawals_kind", inList("kind", WITHDRAWAL_KINDS)),
    check("withdrawals_status", inList("status", WITHDRAWAL_STATUSES)),
    check("withdrawals_value_positive", sql`value_centavos > 0`),
  ],
);

export type Withdrawal = typeof withdrawals.$inferSelect;
