import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  boolean,
  check,
  date,
  index,
  integer,
  jsonb,
  numeric,
  pgSequence,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";

// Money: BRL as integer centavos in bigint columns (read as JS numbers: every figure we store
// stays far below 2^53 centavos). Crypto: numeric(38,18) read as exact decimal strings.
const centavos = (name: string) => bigint(name, { mode: "number" });
const crypto = (name: string) => numeric(name, { precision: 38, scale: 18 });
// Millisecond precision: a JS Date round-trips exactly, so (created_at, id) cursors are exact.
const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date", precision: 3 });
const createdAt = () => ts("created_at").notNull().defaultNow();
const updatedAt = () => ts("updated_at").notNull().defaultNow();

export const ACCOUNT_TYPES = ["standard", "verified", "business"] as const;
/** Dashboard roles, most powerful first (lib/identity/roles.ts says what each may do). */
export const USER_ROLES = ["owner", "admin", "finance", "developer", "viewer"] as const;
export const API_KEY_SCOPES = ["full", "read"] as const;
export const API_KEY_SCOPE_NAMES = ["read", "payments", "refunds", "withdrawals"] as const;
export const ORDER_KINDS = ["pix", "exchange", "lightning"] as const;
export const ORDER_STATUSES = ["PENDING", "COMPLETED", "CANCELLED", "FAILED", "REFUND"] as const;
export const CHAIN_STATUSES = ["PENDING", "COMPLETED", "REFUNDED", "PARTIAL_ORDER", "FAILED"] as const;
export const WITHDRAWAL_KINDS = ["onchain", "pix_out"] as const;
export const WITHDRAWAL_STATUSES = ["PENDING", "COMPLETED", "FAILED"] as const;
/** A refund's own progress (Crypto-PIX and order refunds): PENDING until the chain or the provider decides it. */
export const REFUND_STATUSES = ["PENDING", "COMPLETED", "FAILED"] as const;
/**
 * What a hot-wallet transaction is for: a withdrawal, a refund, a filler for a nonce gap, the float's
 * excess sent to the cold address, gas sent to a deposit address about to be swept (sweep_gas), or a
 * deposit address's tokens sent to the hot wallet (sweep: signed by the deposit address, in its own nonce scope).
 */
export const CHAIN_TX_PURPOSES = ["withdrawal", "refund", "filler", "treasury", "sweep_gas", "sweep"] as const;
/** pending: its transactions are not decided; swept: the token transfer confirmed; failed: it did not (the tokens stay, a later run tries again). */
export const SWEEP_STATUSES = ["pending", "swept", "failed"] as const;
/** A version of a transaction: its payment, or a zero-value self-transfer at its nonce that cancels it. */
export const CHAIN_TX_ATTEMPT_KINDS = ["payment", "cancellation"] as const;
/**
 * pending: not decided; confirmed: mined with success and its confirmations; reverted: mined and
 * failed (the nonce is used, the gas spent); superseded: another transaction took its nonce (a
 * cancellation of ours, or one sent outside this service).
 */
export const CHAIN_TX_STATUSES = ["pending", "confirmed", "reverted", "superseded"] as const;
/** created: recorded, not yet accepted by the provider (or its answer was lost); processing: accepted, not final. */
export const PIX_PAYOUT_STATUSES = ["created", "processing", "completed", "failed"] as const;
export const PIX_PAYOUT_PURPOSES = ["withdrawal", "crypto_pix"] as const;
/**
 * An Idempotency-Key's claim. in_flight: its request is running (or died) and has committed nothing;
 * committed: the request's business transaction committed `resource` and bound the key to it, but no
 * response is stored yet; done: the response is stored and every retry gets it back.
 */
export const IDEMPOTENCY_STATES = ["in_flight", "committed", "done"] as const;
/** What a request bound to its Idempotency-Key created or changed: the endpoint rebuilds its answer from it. */
export const IDEMPOTENT_RESOURCE_TYPES = [
  "order",
  "onchain_order",
  "crypto_pix_payment",
  "withdrawal",
  "refund",
  "webhook_endpoint",
  "webhook_delivery",
  "chain_transfer",
] as const;
/** Why a received PIX was not applied to an order (it stays on record, for a refund or an operator). */
export const PIX_RECEIPT_REASONS = ["wrong_value", "unknown_txid", "order_not_pending", "after_expiry"] as const;
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
  // On-chain money that arrived late or beyond what was due, accepted by the merchant as payment (lib/onchain/unapplied.ts).
  "unapplied_credit",
] as const;

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

const inList = (column: string, values: readonly string[]) =>
  sql.raw(`${column} in (${values.map((v) => `'${v}'`).join(", ")})`);

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

export const users = pgTable(
  "users",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    merchantId: uuid("merchant_id")
      .notNull()
      .references(() => merchants.id),
    email: text("email").notNull(),
    name: text("name"),
    passwordHash: text("password_hash").notNull(),
    role: text("role", { enum: USER_ROLES }).notNull().default("owner"),
    // TOTP secret, sealed with a key derived from AUTH_SECRET (lib/identity/sealed.ts); set while
    // enrolling, live once totp_enabled_at is set. totp_last_step stops a code from being used twice.
    totpSecret: text("totp_secret"),
    totpEnabledAt: ts("totp_enabled_at"),
    totpLastStep: bigint("totp_last_step", { mode: "number" }),
    // When a second factor was last enrolled, replaced or removed, and whether another owner (or the
    // link mailed to the owners) has confirmed it since: money moves by this user wait until then, for
    // FACTOR_CHANGE_HOLD_HOURS (docs/security.md).
    factorChangedAt: ts("factor_changed_at"),
    factorConfirmedAt: ts("factor_confirmed_at"),
    factorConfirmedBy: uuid("factor_confirmed_by"),
    passwordChangedAt: ts("password_changed_at"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("users_email_lower").on(sql`lower(${t.email})`),
    check("users_role", inList("role", USER_ROLES)),
    index("users_merchant").on(t.merchantId),
  ],
);

/** One-time recovery codes for a lost authenticator: only their SHA-256 is kept. */
export const recoveryCodes = pgTable(
  "recovery_codes",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    codeHash: text("code_hash").notNull(),
    usedAt: ts("used_at"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("recovery_codes_user_hash").on(t.userId, t.codeHash)],
);

/**
 * Dashboard sessions. The signed cookie names a row here; a session is valid only while its row is
 * neither revoked nor expired, so signing out ends it on the server. step_up_at is when the session
 * last proved a second factor (money moves need it recent).
 */
export const userSessions = pgTable(
  "user_sessions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    lastSeenAt: ts("last_seen_at").notNull().defaultNow(),
    expiresAt: ts("expires_at").notNull(),
    revokedAt: ts("revoked_at"),
    stepUpAt: ts("step_up_at"),
    // A factor enrolled in this session: a code from it proves nothing the password did not, so this
    // session never counts as stepped up.
    factorEnrolledAt: ts("factor_enrolled_at"),
    ip: text("ip"),
    userAgent: text("user_agent"),
  },
  (t) => [index("user_sessions_user").on(t.userId, t.createdAt)],
);

/** Password reset links: single use, short-lived, only the token's SHA-256 stored. */
export const passwordResets = pgTable(
  "password_resets",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull(),
    expiresAt: ts("expires_at").notNull(),
    usedAt: ts("used_at"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("password_resets_token").on(t.tokenHash)],
);

export const EMAIL_CODE_PURPOSES = ["enrol_factor"] as const;

/** One-time codes mailed to a user (to enrol a second factor: a stolen password does not open the mailbox). Only the SHA-256 is kept. */
export const emailCodes = pgTable(
  "email_codes",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    purpose: text("purpose", { enum: EMAIL_CODE_PURPOSES }).notNull(),
    codeHash: text("code_hash").notNull(),
    attempts: integer("attempts").notNull().default(0),
    expiresAt: ts("expires_at").notNull(),
    usedAt: ts("used_at"),
    createdAt: createdAt(),
  },
  (t) => [
    index("email_codes_user").on(t.userId, t.purpose, t.createdAt),
    check("email_codes_purpose", inList("purpose", EMAIL_CODE_PURPOSES)),
  ],
);

/** Wrong second-factor codes per user (sign-in, step-up, disabling, recovery codes): lockout with backoff. */
export const factorFailures = pgTable("factor_failures", {
  userId: uuid("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  failures: integer("failures").notNull().default(0),
  lockedUntil: ts("locked_until"),
  lastFailureAt: ts("last_failure_at"),
});

export const SECURITY_LINK_KINDS = ["factor_change", "destination"] as const;

/** Links mailed to owners to confirm a change (a new second factor, a new withdrawal destination): once, short-lived, only the token's SHA-256 stored. */
export const securityLinks = pgTable(
  "security_links",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    merchantId: uuid("merchant_id")
      .notNull()
      .references(() => merchants.id),
    kind: text("kind", { enum: SECURITY_LINK_KINDS }).notNull(),
    // What it confirms: the user whose factor changed, the destination's id.
    subjectId: uuid("subject_id").notNull(),
    tokenHash: text("token_hash").notNull(),
    expiresAt: ts("expires_at").notNull(),
    usedAt: ts("used_at"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("security_links_token").on(t.tokenHash),
    check("security_links_kind", inList("kind", SECURITY_LINK_KINDS)),
  ],
);

export const DESTINATION_KINDS = ["pix_key", "chain_address"] as const;
export const DESTINATION_STATUSES = ["held", "confirmed"] as const;

/**
 * A merchant's withdrawal destinations (PIX keys and chain addresses). One first used from the
 * dashboard is held until an owner confirms it or its hold ends; with the API allow-list on, API
 * withdrawals go only to confirmed ones (docs/security.md).
 */
export const payoutDestinations = pgTable(
  "payout_destinations",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    merchantId: uuid("merchant_id")
      .notNull()
      .references(() => merchants.id),
    kind: text("kind", { enum: DESTINATION_KINDS }).notNull(),
    // Normalised: a PIX key as the service sends it, a chain address lower-case (one address on every EVM network).
    value: text("value").notNull(),
    label: text("label"),
    status: text("status", { enum: DESTINATION_STATUSES }).notNull().default("held"),
    holdUntil: ts("hold_until"),
    createdBy: uuid("created_by"),
    confirmedBy: uuid("confirmed_by"),
    confirmedAt: ts("confirmed_at"),
    lastUsedAt: ts("last_used_at"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("payout_destinations_value").on(t.merchantId, t.kind, t.value),
    check("payout_destinations_kind", inList("kind", DESTINATION_KINDS)),
    check("payout_destinations_status", inList("status", DESTINATION_STATUSES)),
  ],
);

/** Invitations to join a merchant's team with a role; accepted once, through a link sent by e-mail. */
export const teamInvitations = pgTable(
  "team_invitations",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    merchantId: uuid("merchant_id")
      .notNull()
      .references(() => merchants.id),
    email: text("email").notNull(),
    role: text("role", { enum: USER_ROLES }).notNull(),
    tokenHash: text("token_hash").notNull(),
    invitedBy: uuid("invited_by").references(() => users.id, { onDelete: "set null" }),
    expiresAt: ts("expires_at").notNull(),
    acceptedAt: ts("accepted_at"),
    revokedAt: ts("revoked_at"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("team_invitations_token").on(t.tokenHash),
    index("team_invitations_merchant").on(t.merchantId),
    check("team_invitations_role", inList("role", USER_ROLES)),
  ],
);

/**
 * Every security- and money-relevant action: who, what, when, from which address. Append-only: a
 * trigger (migration) refuses UPDATE and DELETE.
 */
export const auditEvents = pgTable(
  "audit_events",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    merchantId: uuid("merchant_id").references(() => merchants.id),
    userId: uuid("user_id"),
    actor: text("actor").notNull(),
    action: text("action").notNull(),
    target: text("target"),
    details: jsonb("details").$type<Record<string, unknown>>(),
    ip: text("ip"),
    createdAt: createdAt(),
  },
  (t) => [index("audit_events_merchant").on(t.merchantId, t.id)],
);

/**
 * Mail the service sends. With SMTP_URL set a row records the attempt (its body cleared once sent:
 * reset links must not rest in the database); without it (sandbox) the body stays, and the
 * dashboard's outbox shows it.
 */
export const mailOutbox = pgTable(
  "mail_outbox",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    merchantId: uuid("merchant_id").references(() => merchants.id),
    toAddress: text("to_address").notNull(),
    subject: text("subject").notNull(),
    body: text("body"),
    status: text("status", { enum: ["outbox", "sent", "failed"] }).notNull(),
    error: text("error"),
    createdAt: createdAt(),
  },
  (t) => [index("mail_outbox_merchant").on(t.merchantId, t.createdAt)],
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
    expiresAt: ts("expires_at").notNull(),
    completedAt: ts("completed_at"),
    // Set when the order can no longer change: COMPLETED, FAILED, or a PARTIAL_ORDER closed at expiry.
    closedAt: ts("closed_at"),
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
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("unapplied_resolutions_transfer").on(t.transferId),
    index("unapplied_resolutions_order").on(t.orderId),
    check("unapplied_resolutions_kind", inList("kind", UNAPPLIED_RESOLUTION_KINDS)),
    check("unapplied_resolutions_status", inList("status", REFUND_STATUSES)),
  ],
);

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
    // Why an on-chain withdrawal is not sent yet (the hot wallet cannot pay it); null once it is.
    waitingReason: text("waiting_reason"),
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
    uniqueIndex("withdrawals_tx_hash").on(t.txHash),
    check("withdrawals_kind", inList("kind", WITHDRAWAL_KINDS)),
    check("withdrawals_status", inList("status", WITHDRAWAL_STATUSES)),
    check("withdrawals_value_positive", sql`value_centavos > 0`),
  ],
);

/** Next nonce of the hot wallet per network, taken under a row lock so concurrent sends never collide. */
export const hotWalletNonces = pgTable("hot_wallet_nonces", {
  network: text("network").primaryKey(),
  address: text("address").notNull(),
  nextNonce: integer("next_nonce").notNull().default(0),
});

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

/** The outbox: written in the transaction of the change it describes, delivered afterwards. */
export const events = pgTable(
  "events",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    seq: bigserial("seq", { mode: "number" }).notNull(),
    merchantId: uuid("merchant_id")
      .notNull()
      .references(() => merchants.id),
    type: text("type").notNull(),
    subjectType: text("subject_type").notNull(),
    subjectId: text("subject_id").notNull(),
    data: jsonb("data").$type<Record<string, unknown>>().notNull(),
    // Assigned after commit, in commit order, by one publisher at a time: a reader paging by
    // position never skips an event whose transaction committed late (seq is taken at insert).
    position: bigint("position", { mode: "number" }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("events_seq").on(t.seq),
    uniqueIndex("events_position").on(t.position),
    index("events_unpublished")
      .on(t.seq)
      .where(sql`position is null`),
    index("events_merchant_position").on(t.merchantId, t.position),
    index("events_merchant_seq").on(t.merchantId, t.seq),
    index("events_subject").on(t.subjectId, t.seq),
  ],
);

export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    merchantId: uuid("merchant_id")
      .notNull()
      .references(() => merchants.id),
    url: text("url").notNull(),
    description: text("description"),
    secret: text("secret").notNull(),
    disabledAt: ts("disabled_at"),
    createdAt: createdAt(),
    deletedAt: ts("deleted_at"),
  },
  (t) => [index("webhook_endpoints_merchant").on(t.merchantId)],
);

export const WEBHOOK_DELIVERY_STATUSES = ["pending", "succeeded", "failed", "cancelled"] as const;

/** One event to one endpoint: retried until a 2xx or the schedule runs out. */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    merchantId: uuid("merchant_id")
      .notNull()
      .references(() => merchants.id),
    endpointId: uuid("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id),
    eventId: uuid("event_id")
      .notNull()
      .references(() => events.id),
    eventSeq: bigint("event_seq", { mode: "number" }).notNull(),
    subjectId: text("subject_id").notNull(),
    status: text("status", { enum: WEBHOOK_DELIVERY_STATUSES }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: ts("next_attempt_at"),
    lastAttemptAt: ts("last_attempt_at"),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    redeliveryOf: uuid("redelivery_of"),
    createdAt: createdAt(),
    completedAt: ts("completed_at"),
  },
  (t) => [
    index("webhook_deliveries_due")
      .on(t.nextAttemptAt)
      .where(sql`status = 'pending'`),
    index("webhook_deliveries_order").on(t.endpointId, t.subjectId, t.eventSeq),
    index("webhook_deliveries_event").on(t.eventId),
    check("webhook_deliveries_status", inList("status", WEBHOOK_DELIVERY_STATUSES)),
  ],
);

/** Every HTTP attempt of a delivery, for the merchant's delivery log. */
export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    deliveryId: uuid("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id),
    attempt: integer("attempt").notNull(),
    startedAt: ts("started_at").notNull(),
    durationMs: integer("duration_ms").notNull(),
    statusCode: integer("status_code"),
    error: text("error"),
    responseExcerpt: text("response_excerpt"),
    nextAttemptAt: ts("next_attempt_at"),
  },
  (t) => [index("webhook_attempts_delivery").on(t.deliveryId, t.attempt)],
);

/** Fixed one-minute windows; one upsert per request (docs/api.md#rate-limits). */
export const rateLimits = pgTable(
  "rate_limits",
  {
    key: text("key").notNull(),
    windowStart: ts("window_start").notNull(),
    count: integer("count").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.key, t.windowStart] })],
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

/**
 * Every PIX the service sends (pix-out withdrawals, Crypto-PIX payouts): written in the transaction
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

/** Where each provider poll or stream has read up to (the API Pix reconciliation window, LND's settle index, …). */
export const providerCursors = pgTable("provider_cursors", {
  name: text("name").primaryKey(),
  position: ts("position").notNull(),
  // A provider's own counter, for streams that resume from one (LND's settle_index).
  sequence: bigint("sequence", { mode: "number" }),
  updatedAt: updatedAt(),
});

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

/** Facts about this deployment's database: which modes have written to it (live mode refuses a database sandbox used). */
export const deploymentMarks = pgTable("deployment_marks", {
  name: text("name").primaryKey(),
  value: text("value").notNull(),
  createdAt: createdAt(),
});

export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    merchantId: uuid("merchant_id")
      .notNull()
      .references(() => merchants.id),
    key: text("key").notNull(),
    method: text("method").notNull(),
    path: text("path").notNull(),
    bodyHash: text("body_hash").notNull(),
    state: text("state", { enum: IDEMPOTENCY_STATES }).notNull().default("in_flight"),
    responseStatus: integer("response_status"),
    responseBody: text("response_body"),
    // While in flight or committed: which request holds the key, and until when. The holder renews the
    // lease while it runs; a lease that ran out means its holder died, and a retry may take the key over.
    claimId: uuid("claim_id"),
    leaseUntil: ts("lease_until"),
    // Which instance (INSTANCE_NAME) holds the claim: a restarted instance ends its predecessor's
    // leases at start-up, so their clients' retries run at once instead of after the lease.
    holder: text("holder"),
    // Written by the business transaction itself (lib/idempotency-binding.ts), so a key whose request
    // died after moving money points at what it made, and a retry answers with that instead of running.
    resourceType: text("resource_type", { enum: IDEMPOTENT_RESOURCE_TYPES }),
    resourceId: uuid("resource_id"),
    createdAt: createdAt(),
    /** When the row is forgotten (24 h): a retry after that runs as new. */
    expiresAt: ts("expires_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.merchantId, t.key, t.method, t.path] }),
    // The sweep forgets expired keys: one row per keyed request for a day.
    index("idempotency_keys_expiry").on(t.expiresAt),
    check("idempotency_keys_state", inList("state", IDEMPOTENCY_STATES)),
    check("idempotency_keys_resource_type", inList("resource_type", IDEMPOTENT_RESOURCE_TYPES)),
    check(
      "idempotency_keys_committed_resource",
      sql`state <> 'committed' or (resource_type is not null and resource_id is not null)`,
    ),
  ],
);

/** What the PSP says a devolução is (API Pix `natureza`); the MED ones are made without our asking. */
export const PIX_RETURN_NATURES = [
  "ORIGINAL",
  "RETIRADA",
  "MED_OPERACIONAL",
  "MED_FRAUDE",
  "MED_PIX_AUTOMATICO",
] as const;
export const PIX_RETURN_STATUSES = ["EM_PROCESSAMENTO", "DEVOLVIDO", "NAO_REALIZADO"] as const;
export const PIX_RETURN_SOURCES = ["notification", "read", "poll", "reconciliation"] as const;

/**
 * Devoluções of received PIX that we did not request (the MED's, mostly), as the PSP reports them
 * inside the Pix they return: one row each (the Pix's end-to-end id and the devolução's id), so one
 * found by a notification, by reading the Pix back and by reconciliation is applied once. A returned
 * PIX that had credited an order debits that order's merchant (ledger kind med_debit) once the PSP
 * says it was returned (DEVOLVIDO).
 */
export const pixReturns = pgTable(
  "pix_returns",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    endToEndId: text("end_to_end_id").notNull(),
    // The devolução's id at the PSP, and its rtrId (the SPI's return id), once given.
    returnId: text("return_id").notNull(),
    rtrId: text("rtr_id"),
    natureza: text("natureza", { enum: PIX_RETURN_NATURES }).notNull(),
    valueCentavos: centavos("value_centavos").notNull(),
    status: text("status", { enum: PIX_RETURN_STATUSES }).notNull(),
    orderId: uuid("order_id").references(() => orders.id),
    merchantId: uuid("merchant_id").references(() => merchants.id),
    description: text("description"),
    requestedAt: ts("requested_at"),
    returnedAt: ts("returned_at"),
    // When the merchant was debited (null: not returned yet, not made, or no merchant was credited for the Pix).
    debitedAt: ts("debited_at"),
    source: text("source", { enum: PIX_RETURN_SOURCES }).notNull(),
    attention: text("attention"),
    attentionAt: ts("attention_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("pix_returns_once").on(t.endToEndId, t.returnId),
    index("pix_returns_order").on(t.orderId),
    index("pix_returns_merchant").on(t.merchantId, t.createdAt),
    check("pix_returns_natureza", inList("natureza", PIX_RETURN_NATURES)),
    check("pix_returns_status", inList("status", PIX_RETURN_STATUSES)),
    check("pix_returns_value_positive", sql`value_centavos > 0`),
  ],
);

/** A MED defence: none sent, committed and being sent (no answer yet), taken by the PSP, refused by it. */
export const INFRACTION_DEFENCE_STATES = ["none", "sending", "sent", "refused"] as const;
export const INFRACTION_DEFENCE_MAX = 1000;

/**
 * MED infractions the PSP reports against PIX we received (docs/providers.md "MED infractions"),
 * synced from its list and linked through pix_receipts to the merchant the PIX credited, who may
 * defend one once until its deadline. The defence is committed here before it is sent, so a lost
 * answer is read back rather than sent twice.
 */
export const medInfractions = pgTable(
  "med_infractions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    provider: text("provider").notNull(),
    infractionId: text("infraction_id").notNull(),
    endToEndId: text("end_to_end_id").notNull(),
    orderId: uuid("order_id").references(() => orders.id),
    merchantId: uuid("merchant_id").references(() => merchants.id),
    valueCentavos: centavos("value_centavos").notNull(),
    // The PSP's own status word, and whether it still takes a defence.
    status: text("status").notNull(),
    open: boolean("open").notNull(),
    reason: text("reason").notNull(),
    situation: text("situation"),
    openedAt: ts("opened_at").notNull(),
    deadline: ts("deadline").notNull(),
    defence: text("defence"),
    defenceState: text("defence_state", { enum: INFRACTION_DEFENCE_STATES }).notNull().default("none"),
    defenceRefusal: text("defence_refusal"),
    defendedBy: uuid("defended_by").references(() => users.id),
    defendedAt: ts("defended_at"),
    syncedAt: ts("synced_at").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("med_infractions_once").on(t.provider, t.infractionId),
    index("med_infractions_merchant").on(t.merchantId, t.deadline),
    check("med_infractions_defence_state", inList("defence_state", INFRACTION_DEFENCE_STATES)),
    check("med_infractions_value_positive", sql`value_centavos > 0`),
    check("med_infractions_defence_length", sql`char_length(defence) <= 1000`),
  ],
);
export type MedInfraction = typeof medInfractions.$inferSelect;

/** What each provider's records are reconciled against (lib/reconciliation). */
export const RECON_SOURCES = ["pix_received", "pix_sent", "exchange", "lightning", "chain"] as const;
export const RECON_RUN_STATUSES = ["running", "done", "failed"] as const;
/**
 * missing_here: the provider has it, we have no record; missing_there: we have it, the provider has
 * none; amount_differs / state_differs: both have it and disagree.
 */
export const RECON_MISMATCH_KINDS = ["missing_here", "missing_there", "amount_differs", "state_differs"] as const;

/**
 * One reconciliation of one provider's records for one São Paulo day. Re-running the same day
 * continues or repeats it in the same row; `cursor` is how far the provider's list has been read, so a
 * run that died resumes there. One worker at a time holds it (`lease_until`).
 */
export const reconRuns = pgTable(
  "recon_runs",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    source: text("source", { enum: RECON_SOURCES }).notNull(),
    day: date("day", { mode: "string" }).notNull(),
    status: text("status", { enum: RECON_RUN_STATUSES }).notNull().default("running"),
    cursor: jsonb("cursor").$type<Record<string, unknown>>().notNull().default({}),
    seen: integer("seen").notNull().default(0),
    mismatches: integer("mismatches").notNull().default(0),
    error: text("error"),
    leaseUntil: ts("lease_until"),
    startedAt: ts("started_at").notNull().defaultNow(),
    finishedAt: ts("finished_at"),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("recon_runs_day").on(t.source, t.day),
    check("recon_runs_source", inList("source", RECON_SOURCES)),
    check("recon_runs_status", inList("status", RECON_RUN_STATUSES)),
  ],
);

/** The provider's records a run has read (their refs): what is ours and was not among them is missing there. */
export const reconSeen = pgTable(
  "recon_seen",
  {
    runId: uuid("run_id")
      .notNull()
      .references(() => reconRuns.id, { onDelete: "cascade" }),
    ref: text("ref").notNull(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.ref] })],
);

/**
 * A disagreement between a provider's records and ours, stored once per (source, ref, kind) however
 * often it is found again, until an operator resolves it with a note (audited). One that a later run
 * finds matched is marked cleared.
 */
export const reconMismatches = pgTable(
  "recon_mismatches",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    source: text("source", { enum: RECON_SOURCES }).notNull(),
    day: date("day", { mode: "string" }).notNull(),
    kind: text("kind", { enum: RECON_MISMATCH_KINDS }).notNull(),
    // The movement's id as both sides can name it (an end-to-end id, our payout's idEnvio, …).
    ref: text("ref").notNull(),
    merchantId: uuid("merchant_id").references(() => merchants.id),
    ours: jsonb("ours").$type<Record<string, unknown>>(),
    theirs: jsonb("theirs").$type<Record<string, unknown>>(),
    detail: text("detail").notNull(),
    runId: uuid("run_id").references(() => reconRuns.id, { onDelete: "set null" }),
    lastSeenAt: ts("last_seen_at").notNull().defaultNow(),
    clearedAt: ts("cleared_at"),
    resolvedAt: ts("resolved_at"),
    resolvedBy: text("resolved_by"),
    resolution: text("resolution"),
    attention: text("attention"),
    attentionAt: ts("attention_at"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("recon_mismatches_once").on(t.source, t.ref, t.kind),
    index("recon_mismatches_open")
      .on(t.createdAt)
      .where(sql`resolved_at is null`),
    check("recon_mismatches_source", inList("source", RECON_SOURCES)),
    check("recon_mismatches_kind", inList("kind", RECON_MISMATCH_KINDS)),
  ],
);

export type Merchant = typeof merchants.$inferSelect;
export type User = typeof users.$inferSelect;
export type UserRole = (typeof USER_ROLES)[number];
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];
export type AuditEvent = typeof auditEvents.$inferSelect;
/** What an API request knows of its merchant: everything but the balance, which is always read fresh. */
export type MerchantProfile = Omit<Merchant, "balanceCentavos" | "updatedAt">;
export type Order = typeof orders.$inferSelect;
export type OnchainOrder = typeof onchainOrders.$inferSelect;
export type CryptoPixPayment = typeof cryptoPixPayments.$inferSelect;
export type Withdrawal = typeof withdrawals.$inferSelect;
export type LedgerEntry = typeof ledgerEntries.$inferSelect;
export type Event = typeof events.$inferSelect;
export type WebhookEndpoint = typeof webhookEndpoints.$inferSelect;
export type WebhookDelivery = typeof webhookDeliveries.$inferSelect;
export type WebhookAttempt = typeof webhookAttempts.$inferSelect;
export type OrderKind = (typeof ORDER_KINDS)[number];
export type OrderStatus = (typeof ORDER_STATUSES)[number];
export type ChainStatus = (typeof CHAIN_STATUSES)[number];
export type AccountType = (typeof ACCOUNT_TYPES)[number];
export type ChainTx = typeof chainTxs.$inferSelect;
export type ChainTxAttempt = typeof chainTxAttempts.$inferSelect;
export type PixPayout = typeof pixPayouts.$inferSelect;
export type ChainTransfer = typeof chainTransfers.$inferSelect;
export type UnappliedResolution = typeof unappliedResolutions.$inferSelect;
export type PixReceipt = typeof pixReceipts.$inferSelect;
export type OrderRefund = typeof orderRefunds.$inferSelect;
export type OrderReceipt = typeof orderReceipts.$inferSelect;
export type CryptoPixInvoice = typeof cryptoPixInvoices.$inferSelect;
export type PixReturn = typeof pixReturns.$inferSelect;
export type ReconRun = typeof reconRuns.$inferSelect;
export type ReconMismatch = typeof reconMismatches.$inferSelect;
