import { sql } from "drizzle-orm";
import { check, date, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt, inList, ts, updatedAt } from "./columns";
import { merchants } from "./merchants";

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
    // Set while the provider's answer could not be read (lib/attention): an operator is told once.
    attention: text("attention"),
    attentionAt: ts("attention_at"),
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

export type ReconRun = typeof reconRuns.$inferSelect;
export type ReconMismatch = typeof reconMismatches.$inferSelect;
