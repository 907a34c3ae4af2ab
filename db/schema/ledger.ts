import { sql } from "drizzle-orm";
import { bigint, bigserial, check, index, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { centavos, createdAt, inList } from "./columns";
import { merchants } from "./merchants";

export const LEDGER_KINDS = [
  "order_credit",
  "deposit_credit",
  "partial_deposit_credit",
  "refund_debit",
  "withdrawal_debit",
  "withdrawal_reversal",
  "refund_reversal",
  "adjustment",
  // A devolução the PSP made without our asking (the Central Bank's MED): may take the balance below zero.
  "med_debit",
  // An open MED infraction's disputed amount, held out of the available balance (lib/med/holds.ts), and
  // its release: when the infraction closes without a return, or when the return's med_debit replaces it.
  "med_hold",
  "med_hold_release",
  // On-chain money that arrived late or beyond what was due, accepted by the merchant as payment (lib/onchain/unapplied.ts).
  "unapplied_credit",
] as const;

/**
 * Append-only: the balance is its sum. The unique (kind, ref) makes "credit once" a database rule:
 * a second credit for the same order fails instead of doubling money.
 */
export const ledgerEntries = pgTable(
  "ledger_entries",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    merchantId: uuid("merchant_id")
      .notNull()
      .references(() => merchants.id),
    kind: text("kind", { enum: LEDGER_KINDS }).notNull(),
    amountCentavos: centavos("amount_centavos").notNull(),
    refType: text("ref_type").notNull(),
    refId: text("ref_id").notNull(),
    description: text("description"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("ledger_entries_once").on(t.kind, t.refType, t.refId),
    index("ledger_entries_merchant").on(t.merchantId, t.id),
    // The statement of one kind, newest first, without walking the merchant's other entries.
    index("ledger_entries_merchant_kind").on(t.merchantId, t.kind, t.id),
    // The statement's date filter (São Paulo days) and its CSV export of a range.
    index("ledger_entries_merchant_created").on(t.merchantId, t.createdAt),
    check("ledger_entries_kind", inList("kind", LEDGER_KINDS)),
    check("ledger_entries_non_zero", sql`amount_centavos <> 0`),
  ],
);

/**
 * Credits not yet folded into merchants.balance_centavos: written with their ledger entry instead of
 * updating the merchant row, so a merchant's incoming payments never wait on each other or on its
 * debits. A debit (under the merchant row's lock) or the sweep moves them into the row and deletes
 * them in one transaction. The merchant is the entry's, copied so a balance read sums by index.
 */
export const unfoldedCredits = pgTable(
  "unfolded_credits",
  {
    entryId: bigint("entry_id", { mode: "number" })
      .primaryKey()
      .references(() => ledgerEntries.id),
    merchantId: uuid("merchant_id").notNull(),
    amountCentavos: centavos("amount_centavos").notNull(),
  },
  (t) => [
    index("unfolded_credits_merchant").on(t.merchantId),
    check("unfolded_credits_positive", sql`amount_centavos > 0`),
  ],
);

export type LedgerEntry = typeof ledgerEntries.$inferSelect;
