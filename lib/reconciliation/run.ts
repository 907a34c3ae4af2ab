import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { db } from "@/db";
import { reconMismatches, reconRuns, reconSeen, type ReconMismatch, type ReconRun } from "@/db/schema";
import { clearAttention, raiseAttention } from "@/lib/attention/attention";
import { UnreadableAnswer } from "@/lib/errors";
import { log } from "@/lib/log";
import { Decimal, formatBrl } from "@/lib/money";
import { observeRunFailure } from "./metrics";

// Reconciliation (docs/operations.md "Reconciliation"): for one São Paulo day, a provider's own records
// are read page by page and matched one to one, by the id both sides know, against ours. What does not
// match is stored once per (source, ref, kind) with the reason, alerted (attention: the operator is
// mailed, the metric counts it) and kept until an operator resolves it with a note. A run is one row
// per (source, day): its cursor is the next page to read and every ref it read is kept, so a run that
// died resumes where it stopped, and a re-run of a day reports nothing twice. Reading the provider's
// list runs outside any transaction; each page's writes are one short transaction.

export type ReconSourceName = ReconRun["source"];
export type MismatchKind = ReconMismatch["kind"];

/** A movement as one side records it: its amount in centavos (or the source's unit, see formatValue) and its state in that side's words. */
export type Movement = {
  ref: string;
  valueCentavos: number;
  /** A token amount as a decimal string, compared instead of valueCentavos when both sides give one (chain transfers: 18 decimals do not fit a number). */
  amount?: string;
  state: string;
  merchantId?: string | null;
  detail?: Record<string, unknown>;
};
export type ProviderMovement = Movement & { at: Date };

export interface ReconSource {
  readonly name: ReconSourceName;
  /** Whether this server has the provider (its rail configured). */
  enabled(): boolean;
  /** One page of the provider's movements in [from, to]; `next` is the next page, null after the last. */
  page(window: { from: Date; to: Date }, page: number): Promise<{ items: ProviderMovement[]; next: number | null }>;
  /**
   * Before matching: what the provider has that our usual paths would have applied (a received PIX, a
   * MED devolução). Returns true when it was missing here and is applied now.
   */
  applyMissing?(item: ProviderMovement): Promise<boolean>;
  /** Our records of these refs. */
  ours(refs: string[]): Promise<Map<string, Movement>>;
  /** Our movements of [from, to] that the provider must have (to find those missing there). */
  oursIn(window: { from: Date; to: Date }): Promise<Movement[]>;
  /** Whether our state and the provider's say the same. */
  sameState(ours: string, theirs: string): boolean;
  /** How a movement's value reads in a mismatch's detail: BRL centavos unless the source counts in another unit (satoshis). */
  formatValue?(value: number): string;
}

/** The provider cannot judge the day yet (a chain whose blocks after it lack their confirmations): expected, tried again later. */
export class DayNotFinal extends Error {}

/** The provider's list is read this much wider than the day: a movement near midnight may be dated on either side of it. */
const MARGIN_MS = 60 * 60 * 1000;
const LEASE_MS = 5 * 60 * 1000;
const MAX_PAGES = 10_000;

/** [00:00, 24:00) of a São Paulo calendar day (UTC−3 all year since 2019). */
export function dayWindow(day: string): { from: Date; to: Date } {
  const from = new Date(`${day}T00:00:00-03:00`);
  return { from, to: new Date(from.getTime() + 24 * 60 * 60 * 1000) };
}

export type RunSummary = {
  source: ReconSourceName;
  day: string;
  status: ReconRun["status"];
  seen: number;
  mismatches: number;
  resumed: boolean;
} | null;

/**
 * Reconciles `source` for `day`. `again`: a day already done is read again from its first page (an
 * operator's re-run); otherwise a done day is left as it is. Returns null when another worker holds
 * the run.
 */
export async function reconcileDay(
  source: ReconSource,
  day: string,
  opts: { again?: boolean } = {},
): Promise<RunSummary> {
  await db().insert(reconRuns).values({ source: source.name, day }).onConflictDoNothing();
  // Take the run: one worker at a time, a dead one's lease expires.
  const [run] = await db()
    .update(reconRuns)
    .set({
      leaseUntil: sql`now() + ${`${LEASE_MS} milliseconds`}::interval`,
      updatedAt: sql`now()`,
      ...(opts.again ? { status: "running" as const, cursor: {}, seen: 0, error: null, finishedAt: null } : {}),
    })
    .where(
      and(
        eq(reconRuns.source, source.name),
        eq(reconRuns.day, day),
        sql`(${reconRuns.leaseUntil} is null or ${reconRuns.leaseUntil} < now())`,
        opts.again ? sql`true` : sql`${reconRuns.status} <> 'done'`,
      ),
    )
    .returning();
  if (!run) {
    const [existing] = await db()
      .select()
      .from(reconRuns)
      .where(and(eq(reconRuns.source, source.name), eq(reconRuns.day, day)));
    if (existing?.status === "done")
      return {
        source: source.name,
        day,
        status: "done",
        seen: existing.seen,
        mismatches: existing.mismatches,
        resumed: false,
      };
    return null;
  }
  if (opts.again) await db().delete(reconSeen).where(eq(reconSeen.runId, run.id));
  const resumed = typeof run.cursor.page === "number" && run.cursor.page > 0;
  const window = dayWindow(day);
  const wide = { from: new Date(window.from.getTime() - MARGIN_MS), to: new Date(window.to.getTime() + MARGIN_MS) };
  try {
    let page: number | null = typeof run.cursor.page === "number" ? run.cursor.page : 0;
    for (let n = 0; page !== null && n < MAX_PAGES; n++) {
      const listed = await source.page(wide, page);
      await matchPage(source, run, window, listed.items);
      page = listed.next;
      await db()
        .update(reconRuns)
        .set({
          cursor: page === null ? { page: -1 } : { page },
          seen: sql`${reconRuns.seen} + ${listed.items.length}`,
          leaseUntil: sql`now() + ${`${LEASE_MS} milliseconds`}::interval`,
          updatedAt: sql`now()`,
        })
        .where(eq(reconRuns.id, run.id));
    }
    await findMissingThere(source, run, window);
    const [open] = await db()
      .select({ n: sql<number>`count(*)::int` })
      .from(reconMismatches)
      .where(
        and(eq(reconMismatches.source, source.name), eq(reconMismatches.day, day), isNull(reconMismatches.resolvedAt)),
      );
    const [done] = await db()
      .update(reconRuns)
      .set({
        status: "done",
        mismatches: open.n,
        finishedAt: sql`now()`,
        leaseUntil: null,
        error: null,
        updatedAt: sql`now()`,
      })
      .where(eq(reconRuns.id, run.id))
      .returning();
    await clearAttention("recon_run", run.id);
    log.info("reconciliation done", { source: source.name, day, seen: done.seen, mismatches: done.mismatches });
    return { source: source.name, day, status: "done", seen: done.seen, mismatches: done.mismatches, resumed };
  } catch (err) {
    // The cursor stays where the last complete page left it: the next run resumes there.
    await db()
      .update(reconRuns)
      .set({
        status: "failed",
        error: err instanceof Error ? err.message.slice(0, 500) : String(err),
        leaseUntil: null,
        updatedAt: sql`now()`,
      })
      .where(eq(reconRuns.id, run.id));
    // An answer we cannot read is not a provider that is down for a while: it will not read better
    // by itself, and read as empty it would report every one of our movements missing there.
    const unreadable = err instanceof UnreadableAnswer;
    observeRunFailure(source.name, unreadable ? "unreadable_answer" : "error");
    if (unreadable)
      await raiseAttention("recon_run", run.id, `${source.name} ${day}: reconciliation stopped: ${err.message}`);
    throw err;
  }
}

const money = (source: ReconSource, value: number) =>
  source.formatValue ? source.formatValue(value) : formatBrl(value);
const shown = (source: ReconSource, m: Movement) => m.amount ?? money(source, m.valueCentavos);
const sameAmount = (a: Movement, b: Movement) =>
  a.amount !== undefined && b.amount !== undefined
    ? new Decimal(a.amount).equals(b.amount)
    : a.valueCentavos === b.valueCentavos;
const within = (at: Date, w: { from: Date; to: Date }) =>
  at.getTime() >= w.from.getTime() && at.getTime() < w.to.getTime();

async function matchPage(
  source: ReconSource,
  run: ReconRun,
  day: { from: Date; to: Date },
  items: ProviderMovement[],
): Promise<void> {
  if (items.length === 0) return;
  const applied = new Set<string>();
  for (const item of items)
    if (within(item.at, day) && source.applyMissing && (await source.applyMissing(item))) applied.add(item.ref);
  const ours = await source.ours(items.map((i) => i.ref));
  for (const item of items) {
    // Read for the margin only: it belongs to the next or the previous day, which judges it.
    if (!within(item.at, day)) continue;
    const mine = ours.get(item.ref);
    const theirs = {
      value: item.valueCentavos,
      ...(item.amount !== undefined ? { amount: item.amount } : {}),
      state: item.state,
      at: item.at.toISOString(),
      ...item.detail,
    };
    if (applied.has(item.ref)) {
      await report(
        source,
        run,
        item.ref,
        "missing_here",
        mine?.merchantId ?? null,
        mine ?? null,
        theirs,
        "we had no record of it: applied now by reconciliation",
      );
    } else if (!mine) {
      await report(
        source,
        run,
        item.ref,
        "missing_here",
        null,
        null,
        theirs,
        `the provider has ${shown(source, item)} (${item.state}); we have no record of it`,
      );
    } else {
      const held: MismatchKind[] = ["missing_here", "missing_there"];
      if (!sameAmount(mine, item)) {
        await report(
          source,
          run,
          item.ref,
          "amount_differs",
          mine.merchantId ?? null,
          mine,
          theirs,
          `we have ${shown(source, mine)}, the provider ${shown(source, item)}`,
        );
      } else held.push("amount_differs");
      if (!source.sameState(mine.state, item.state)) {
        await report(
          source,
          run,
          item.ref,
          "state_differs",
          mine.merchantId ?? null,
          mine,
          theirs,
          `ours is ${mine.state}, the provider's ${item.state}`,
        );
      } else held.push("state_differs");
      // What an earlier run reported that no longer holds (one side caught up) is marked cleared; it
      // stays listed until an operator resolves it, who may still want to know why it happened.
      await clear(source, item.ref, held);
    }
  }
  await db()
    .insert(reconSeen)
    .values(items.map((i) => ({ runId: run.id, ref: i.ref })))
    .onConflictDoNothing();
}

async function findMissingThere(source: ReconSource, run: ReconRun, day: { from: Date; to: Date }): Promise<void> {
  const ours = await source.oursIn(day);
  for (let i = 0; i < ours.length; i += 1000) {
    const chunk = ours.slice(i, i + 1000);
    const seen = new Set(
      (
        await db()
          .select({ ref: reconSeen.ref })
          .from(reconSeen)
          .where(
            and(
              eq(reconSeen.runId, run.id),
              inArray(
                reconSeen.ref,
                chunk.map((m) => m.ref),
              ),
            ),
          )
      ).map((r) => r.ref),
    );
    for (const m of chunk) {
      if (seen.has(m.ref)) continue;
      await report(
        source,
        run,
        m.ref,
        "missing_there",
        m.merchantId ?? null,
        m,
        null,
        `we have ${shown(source, m)} (${m.state}); the provider has no record of it`,
      );
    }
  }
}

/** Stores a mismatch once (a later run only refreshes when it was last seen) and alerts an operator the first time. */
async function report(
  source: ReconSource,
  run: ReconRun,
  ref: string,
  kind: MismatchKind,
  merchantId: string | null,
  ours: Movement | null,
  theirs: Record<string, unknown> | null,
  detail: string,
): Promise<void> {
  // Stored and announced together: a mismatch is never kept without its operator's attention.
  await db().transaction(async (tx) => {
    const [row] = await tx
      .insert(reconMismatches)
      .values({
        source: source.name,
        day: run.day,
        kind,
        ref,
        merchantId,
        ours: ours ? { ...ours } : null,
        theirs,
        detail,
        runId: run.id,
      })
      .onConflictDoUpdate({
        target: [reconMismatches.source, reconMismatches.ref, reconMismatches.kind],
        set: { lastSeenAt: sql`now()` },
      })
      .returning({ id: reconMismatches.id, inserted: sql<boolean>`(xmax = 0)` });
    if (!row.inserted) return;
    log.warn("reconciliation mismatch", { source: source.name, day: run.day, kind, ref, detail });
    await raiseAttention("recon_mismatch", row.id, `${source.name} ${run.day}: ${kind} ${ref}: ${detail}`, tx);
  });
}

async function clear(source: ReconSource, ref: string, kinds: MismatchKind[]): Promise<void> {
  await db()
    .update(reconMismatches)
    .set({ clearedAt: sql`now()` })
    .where(
      and(
        eq(reconMismatches.source, source.name),
        eq(reconMismatches.ref, ref),
        inArray(reconMismatches.kind, kinds),
        isNull(reconMismatches.resolvedAt),
        isNull(reconMismatches.clearedAt),
      ),
    );
}
