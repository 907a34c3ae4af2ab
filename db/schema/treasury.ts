import { sql } from "drizzle-orm";
import {
  bigserial,
  boolean,
  check,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  uuid,
} from "drizzle-orm/pg-core";
import { centavos, createdAt, crypto, inList, ts } from "./columns";
import { depositAddresses } from "./onchain";

/** pending: its transactions are not decided; swept: the token transfer confirmed; failed: it did not (the tokens stay, a later run tries again). */
export const SWEEP_STATUSES = ["pending", "swept", "failed"] as const;
/**
 * The hot wallet's float per network and asset (a token, or "gas": the native coin), as the last check
 * read it from the node, against the configured minimum and target. `below_since` marks a crossing
 * below the minimum: set once (the operator is mailed then), cleared when the balance is back.
 */
export const hotWalletFloat = pgTable(
  "hot_wallet_float",
  {
    network: text("network").notNull(),
    asset: text("asset").notNull(),
    balance: crypto("balance").notNull(),
    minimum: crypto("minimum").notNull(),
    target: crypto("target").notNull(),
    belowSince: ts("below_since"),
    checkedAt: ts("checked_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.network, t.asset] })],
);
export type HotWalletFloat = typeof hotWalletFloat.$inferSelect;

/**
 * One solvency report (lib/treasury/solvency.ts): what we owe against what we hold, in BRL centavos,
 * with every line that made them up. `short` is a shortfall beyond the tolerance; `alerted` marks the
 * report that crossed into it (the operator was mailed then, once).
 */
export const solvencyReports = pgTable(
  "solvency_reports",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    liabilitiesCentavos: centavos("liabilities_centavos").notNull(),
    assetsCentavos: centavos("assets_centavos").notNull(),
    // Negative merchant balances (MED debits below zero): owed to us, never counted as an asset.
    receivablesCentavos: centavos("receivables_centavos").notNull(),
    shortfallCentavos: centavos("shortfall_centavos").notNull(),
    toleranceCentavos: centavos("tolerance_centavos").notNull(),
    short: boolean("short").notNull(),
    alerted: boolean("alerted").notNull().default(false),
    lines: jsonb("lines").notNull(),
    // Sources that could not be read (no call for it, or it failed): counted as zero, named here.
    notRead: jsonb("not_read").$type<string[]>().notNull(),
    takenAt: ts("taken_at").notNull().defaultNow(),
  },
  (t) => [
    index("solvency_reports_taken").on(t.takenAt),
    check("solvency_reports_shortfall", sql`shortfall_centavos >= 0`),
  ],
);

/**
 * One sweep of a deposit address's token (lib/treasury/sweep.ts): the gas sent to it first when it
 * had too little, and the token transfer. What the gas cost is the service's, never a merchant's:
 * `fee_wei` (both transactions' fees, read from their receipts) and `gas_left_wei` (what the top-up
 * left at the address) are the service's ledger of sweeping.
 */
export const sweeps = pgTable(
  "sweeps",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    network: text("network").notNull(),
    walletIndex: integer("wallet_index")
      .notNull()
      .references(() => depositAddresses.walletIndex),
    address: text("address").notNull(),
    asset: text("asset").notNull(),
    tokenAddress: text("token_address").notNull(),
    amount: crypto("amount").notNull(),
    toAddress: text("to_address").notNull(),
    status: text("status", { enum: SWEEP_STATUSES }).notNull().default("pending"),
    gasChainTxId: uuid("gas_chain_tx_id"),
    chainTxId: uuid("chain_tx_id").notNull(),
    // Native coin (wei) sent to the address for the transfer's gas; 0 when it had enough.
    gasSentWei: numeric("gas_sent_wei", { precision: 78, scale: 0 }).notNull().default("0"),
    // Once decided: the fees both transactions paid, and the native coin the top-up left behind.
    feeWei: numeric("fee_wei", { precision: 78, scale: 0 }),
    gasLeftWei: numeric("gas_left_wei", { precision: 78, scale: 0 }),
    createdAt: createdAt(),
    finishedAt: ts("finished_at"),
  },
  (t) => [
    index("sweeps_pending")
      .on(t.createdAt)
      .where(sql`status = 'pending'`),
    index("sweeps_address").on(t.network, sql`lower(${t.address})`),
    check("sweeps_status", inList("status", SWEEP_STATUSES)),
  ],
);
export type Sweep = typeof sweeps.$inferSelect;
