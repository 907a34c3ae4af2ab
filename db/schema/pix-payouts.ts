import { sql } from "drizzle-orm";
import { check, index, integer, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { centavos, createdAt, inList, ts, updatedAt } from "./columns";
import { merchants } from "./merchants";

/** created: recorded, not yet accepted by the provider (or its answer was lost); processing: accepted, not final. */
export const PIX_PAYOUT_STATUSES = ["created", "processing", "completed", "failed"] as const;
export const PIX_PAYOUT_PURPOSES = ["withdrawal", "crypto_pix", "recipient_payout"] as const;
/**
 * Every PIX the service sends (pix-out withdrawals, Crypto-PIX and recipient payouts): written in the transaction
 * that decides to send it; its id is the idempotent id the provider is given, so sending again after
 * a lost answer cannot pay twice. Followed until the provider says it was made or not made.
 */
export const pixPayouts = pgTable(
  "pix_payouts",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    purpose: text("purpose", { enum: PIX_PAYOUT_PURPOSES }).notNull(),
    ownerId: uuid("owner_id").notNull(),
    merchantId: uuid("merchant_id")
      .notNull()
      .references(() => merchants.id),
    // To a key, or paying a BR Code (then the code carries the key, and the recipient's txid).
    pixKey: text("pix_key"),
    brcode: text("brcode"),
    valueCentavos: centavos("value_centavos").notNull(),
    status: text("status", { enum: PIX_PAYOUT_STATUSES }).notNull().default("created"),
    provider: text("provider"),
    // The provider's own id of the payment (an end-to-end id), once it gave one.
    providerRef: text("provider_ref"),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    failureReason: text("failure_reason"),
    leaseUntil: ts("lease_until"),
    // Why an operator must look (an outcome still unknown long after sending, sends that never got an
    // answer the provider stands by): set once with when, cleared when the payout is decided.
    attention: text("attention"),
    attentionAt: ts("attention_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    completedAt: ts("completed_at"),
  },
  (t) => [
    uniqueIndex("pix_payouts_owner").on(t.purpose, t.ownerId),
    index("pix_payouts_open")
      .on(t.createdAt)
      .where(sql`status in ('created', 'processing')`),
    check("pix_payouts_status", inList("status", PIX_PAYOUT_STATUSES)),
    check("pix_payouts_purpose", inList("purpose", PIX_PAYOUT_PURPOSES)),
    check("pix_payouts_destination", sql`(pix_key is not null) <> (brcode is not null)`),
    check("pix_payouts_value_positive", sql`value_centavos > 0`),
  ],
);

/** The sandbox PIX payout provider's own record of what it was asked to pay (a real PSP keeps this on its side). */
export const sandboxPixPayouts = pgTable("sandbox_pix_payouts", {
  id: text("id").primaryKey(),
  destination: text("destination").notNull(),
  valueCentavos: centavos("value_centavos").notNull(),
  status: text("status", { enum: ["REALIZADO", "NAO_REALIZADO"] }).notNull(),
  endToEndId: text("end_to_end_id").notNull(),
  reason: text("reason"),
  createdAt: createdAt(),
});

export type PixPayout = typeof pixPayouts.$inferSelect;
