import { sql } from "drizzle-orm";
import { boolean, check, index, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { centavos, createdAt, inList, ts, updatedAt } from "./columns";

export const ACCOUNT_TYPES = ["standard", "verified", "business"] as const;
export const API_KEY_SCOPES = ["full", "read"] as const;
export const API_KEY_SCOPE_NAMES = ["read", "payments", "refunds", "withdrawals"] as const;
export const merchants = pgTable(
  "merchants",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    companyName: text("company_name").notNull(),
    pixKey: text("pix_key"),
    pixKeyType: text("pix_key_type"),
    // When the payout key last changed, and whether an owner has since confirmed it: a withdrawal
    // to a key changed recently needs that confirmation (lib/identity/payout-hold.ts).
    pixKeyChangedAt: ts("pix_key_changed_at"),
    pixKeyConfirmedAt: ts("pix_key_confirmed_at"),
    accountType: text("account_type", { enum: ACCOUNT_TYPES }).notNull().default("standard"),
    // On: API withdrawals go only to confirmed payout_destinations (off by default: the API takes any valid key).
    apiDestinationAllowlist: boolean("api_destination_allowlist").notNull().default(false),
    // On: the payer's receipt (/pay/{paymentLinkId} and GET /public/payments/{id}) names the order's
    // recipients and their parts. Off by default: a split is the merchant's business, not the payer's.
    receiptShowsSplits: boolean("receipt_shows_splits").notNull().default(false),
    // The folded part of the balance: the balance is this plus the merchant's unfolded_credits,
    // which always equals the ledger sum (lib/ledger/ledger.ts). Debits move it directly; the row is
    // also the lock that serialises a merchant's debits, and never one of its credits.
    balanceCentavos: centavos("balance_centavos").notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  // No CHECK on the balance: a debit the merchant did not initiate (a MED devolução) may take it below
  // zero. Debits the merchant initiates check it in code, under this row's lock (lib/ledger).
  () => [check("merchants_account_type", inList("account_type", ACCOUNT_TYPES))],
);

export const apiKeys = pgTable(
  "api_keys",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    merchantId: uuid("merchant_id")
      .notNull()
      .references(() => merchants.id),
    name: text("name").notNull(),
    prefix: text("prefix").notNull(),
    // The key's last four characters, so a person can tell keys apart as the Developers page shows them
    // ("sk_test_AbCd…wXyZ"); null for keys made before it was kept.
    lastFour: text("last_four"),
    keyHash: text("key_hash").notNull(),
    mode: text("mode", { enum: ["sandbox", "live"] }).notNull(),
    // "read": GET only; every write is refused with 403. Superseded by `scopes` (kept until the code reads only that).
    scope: text("scope", { enum: API_KEY_SCOPES }).notNull().default("full"),
    // What the key may do: read, payments (orders), refunds, withdrawals (docs/security.md). Keys made
    // before scopes existed got every scope their old `scope` gave.
    scopes: text("scopes", { enum: API_KEY_SCOPE_NAMES })
      .array()
      .notNull()
      .default(sql`'{read,payments,refunds,withdrawals}'::text[]`),
    createdAt: createdAt(),
    lastUsedAt: ts("last_used_at"),
    revokedAt: ts("revoked_at"),
  },
  (t) => [uniqueIndex("api_keys_hash").on(t.keyHash), index("api_keys_merchant").on(t.merchantId)],
);

export type Merchant = typeof merchants.$inferSelect;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];
/** What an API request knows of its merchant: everything but the balance, which is always read fresh. */
export type MerchantProfile = Omit<Merchant, "balanceCentavos" | "updatedAt">;
export type AccountType = (typeof ACCOUNT_TYPES)[number];
