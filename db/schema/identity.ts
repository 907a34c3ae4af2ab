import { sql } from "drizzle-orm";
import { bigint, bigserial, check, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt, inList, ts } from "./columns";
import { merchants } from "./merchants";

/** Dashboard roles, most powerful first (lib/identity/roles.ts says what each may do). */
export const USER_ROLES = ["owner", "admin", "finance", "developer", "viewer"] as const;
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

export type User = typeof users.$inferSelect;
export type UserRole = (typeof USER_ROLES)[number];
export type AuditEvent = typeof auditEvents.$inferSelect;
