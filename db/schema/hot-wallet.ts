import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  check,
  index,
  integer,
  numeric,
  pgTable,
  text,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { createdAt, crypto, inList, ts, updatedAt } from "./columns";

/**
 * What a hot-wallet transaction is for: a withdrawal, a refund, a filler for a nonce gap, the float's
 * excess sent to the cold address, gas sent to a deposit address about to be swept (sweep_gas), or a
 * deposit address's tokens sent to the hot wallet (sweep: signed by the deposit address, in its own nonce scope).
 */
export const CHAIN_TX_PURPOSES = ["withdrawal", "refund", "filler", "treasury", "sweep_gas", "sweep"] as const;
/** A version of a transaction: its payment, or a zero-value self-transfer at its nonce that cancels it. */
export const CHAIN_TX_ATTEMPT_KINDS = ["payment", "cancellation"] as const;
/**
 * pending: not decided; confirmed: mined with success and its confirmations; reverted: mined and
 * failed (the nonce is used, the gas spent); superseded: another transaction took its nonce (a
 * cancellation of ours, or one sent outside this service).
 */
export const CHAIN_TX_STATUSES = ["pending", "confirmed", "reverted", "superseded"] as const;
/** Next nonce of the hot wallet per network, taken under a row lock so concurrent sends never collide. */
export const hotWalletNonces = pgTable("hot_wallet_nonces", {
  network: text("network").primaryKey(),
  address: text("address").notNull(),
  nextNonce: integer("next_nonce").notNull().default(0),
});

/**
 * Every transaction the hot wallet signs, one row per nonce: written with its first signed attempt
 * in the transaction that decides to send it, before any broadcast, and followed by the chain-tx job
 * until a receipt decides it. Replacements at the same nonce are further attempts.
 */
export const chainTxs = pgTable(
  "chain_txs",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    purpose: text("purpose", { enum: CHAIN_TX_PURPOSES }).notNull(),
    // The withdrawal, Crypto-PIX payment or return of unapplied funds it serves (none for a filler).
    ownerKind: text("owner_kind", { enum: ["withdrawal", "crypto_pix", "unapplied_return"] }),
    ownerId: uuid("owner_id"),
    // For a refund of money that arrived late: the transfer it sends back.
    transferId: uuid("transfer_id"),
    network: text("network").notNull(),
    nonceScope: text("nonce_scope").notNull(),
    fromAddress: text("from_address").notNull(),
    nonce: integer("nonce").notNull(),
    // Null for a zero-value self-transfer (cancellation, filler).
    tokenAddress: text("token_address"),
    toAddress: text("to_address").notNull(),
    amount: crypto("amount"),
    amountBaseUnits: numeric("amount_base_units", { precision: 78, scale: 0 }),
    status: text("status", { enum: CHAIN_TX_STATUSES }).notNull().default("pending"),
    // The attempt that was mined (its hash); null until then.
    minedHash: text("mined_hash"),
    failureReason: text("failure_reason"),
    // Why an operator must look (fees above the cap, the node refusing it, a revert): null when all is well.
    attention: text("attention"),
    // Not broadcast because the hot wallet could not pay it (lib/hot-wallet/float.ts): why, and since when.
    heldReason: text("held_reason"),
    heldSince: ts("held_since"),
    // One worker at a time follows a transaction, without holding a lock during node calls.
    leaseUntil: ts("lease_until"),
    checkedAt: ts("checked_at"),
    decidedAt: ts("decided_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("chain_txs_nonce").on(t.nonceScope, t.nonce),
    index("chain_txs_owner").on(t.ownerId),
    index("chain_txs_pending")
      .on(t.createdAt)
      .where(sql`status = 'pending'`),
    check("chain_txs_purpose", inList("purpose", CHAIN_TX_PURPOSES)),
    check("chain_txs_status", inList("status", CHAIN_TX_STATUSES)),
  ],
);

/** Each signed version of a chain transaction: the first, and replacements with higher fees at its nonce. */
export const chainTxAttempts = pgTable(
  "chain_tx_attempts",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    chainTxId: uuid("chain_tx_id")
      .notNull()
      .references(() => chainTxs.id),
    kind: text("kind", { enum: CHAIN_TX_ATTEMPT_KINDS }).notNull().default("payment"),
    hash: text("hash").notNull(),
    rawTransaction: text("raw_transaction").notNull(),
    maxFeePerGas: numeric("max_fee_per_gas", { precision: 78, scale: 0 }).notNull(),
    maxPriorityFeePerGas: numeric("max_priority_fee_per_gas", { precision: 78, scale: 0 }).notNull(),
    // When the node last accepted it, and the head block then: replacement is judged from it.
    broadcastAt: ts("broadcast_at"),
    broadcastBlock: bigint("broadcast_block", { mode: "number" }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("chain_tx_attempts_hash").on(t.hash),
    index("chain_tx_attempts_tx").on(t.chainTxId, t.id),
    check("chain_tx_attempts_kind", inList("kind", CHAIN_TX_ATTEMPT_KINDS)),
  ],
);

export type ChainTx = typeof chainTxs.$inferSelect;
export type ChainTxAttempt = typeof chainTxAttempts.$inferSelect;
