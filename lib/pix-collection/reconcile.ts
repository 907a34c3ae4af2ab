import { sql } from "drizzle-orm";
import { db } from "@/db";
import { providerCursors } from "@/db/schema";
import { jobQueue } from "@/lib/jobs/queue";
import { log } from "@/lib/log";
import { applyReceivedPix } from "@/lib/orders/pix-receipts";
import { applyPixReturns } from "@/lib/med/returns";
import { gauge, METRIC_PREFIX } from "@/lib/metrics/registry";
import { providers } from "@/lib/providers";
import type { ReceivedPix } from "@/lib/providers/pix/types";

// Reconciliation (docs/providers.md#pix-collection-api-pix-any-psp): every PIX_POLL_SECONDS the PSP's own list of received PIX is read
// over a moving window and each one applied (once: its end-to-end id), so a notification that never
// came only delays a payment. The window starts where the last pass's complete reading ended (minus an
// overlap for payments the PSP lists late, when that pass had caught up), and is read in slices of at
// most a day. A pass reads at most MAX_PAGES pages: a slice that would not fit in what is left is
// halved until it does, so the cursor moves to the end of the last slice read to its last page and
// never past what was read; the rest is read by the next pass, and how far behind the cursor is, is the
// backlog gauge. The devoluções each Pix lists are applied too (lib/med/returns.ts); and since the
// MED returns a Pix weeks after it was paid, once an hour the Pix of the last RETURNS_LOOKBACK_DAYS
// that have a devolução are read as well.

const CURSOR = "api-pix:received";
const OVERLAP_MS = 10 * 60 * 1000;
const FIRST_LOOKBACK_MS = 24 * 60 * 60 * 1000;
const SLICE_MS = 24 * 60 * 60 * 1000;
/** Below this a slice is read to its end whatever the budget, so a pass always moves the cursor. */
const MIN_SLICE_MS = 1000;
export const MAX_PAGES = 100;
/** `provider_cursors.sequence` of this cursor: 1 when the pass that wrote it read up to its `now` (the next one re-reads the overlap), 0 when it stopped short. */
const CAUGHT_UP = 1;
const RETURNS_CURSOR = "api-pix:returns";
const RETURNS_EVERY_MS = 60 * 60 * 1000;
/** The MED takes claims for 80 days after a payment; the document allows devoluções for 90. */
export const RETURNS_LOOKBACK_DAYS = 90;

export const pixReconcileQueue = jobQueue<object>("pix-reconcile", {
  policy: "stately",
  retryLimit: 0,
  expireInSeconds: 600,
});

const backlog = gauge({
  name: `${METRIC_PREFIX}pix_reconcile_backlog_seconds`,
  help: "How far behind its last pass the reconciliation poll of received PIX is: the time between the end of what it read completely and the pass's now (0 once caught up). Grows when the PSP lists more than a pass reads (MAX_PAGES pages)",
});

export type ReconcilePass = {
  from: Date;
  /** The end of what this pass read completely: where the cursor now is. */
  to: Date;
  /** Whether it reached `now`; false leaves the rest to the next pass. */
  complete: boolean;
  pages: number;
  seen: number;
  applied: number;
  unapplied: number;
};

export async function reconcileReceivedPix(now = new Date()): Promise<ReconcilePass | null> {
  const pix = providers().pix;
  if (!pix.listPayments) return null;
  const [cursor] = await db()
    .select()
    .from(providerCursors)
    .where(sql`${providerCursors.name} = ${CURSOR}`);
  const base = cursor?.position.getTime() ?? now.getTime() - FIRST_LOOKBACK_MS;
  // A pass that stopped short left nothing behind its cursor unread: the next one starts right there.
  const overlap = cursor && cursor.sequence !== CAUGHT_UP ? 0 : OVERLAP_MS;
  const from = new Date(base - overlap);
  const pass: ReconcilePass = { from, to: from, complete: false, pages: 0, seen: 0, applied: 0, unapplied: 0 };
  let readTo = from.getTime();
  let span = SLICE_MS;
  while (readTo < now.getTime() && pass.pages < MAX_PAGES) {
    const end = Math.min(readTo + span, now.getTime());
    const window = { from: new Date(readTo), to: new Date(end) };
    const first = await pix.listPayments({ ...window, page: 0 });
    pass.pages++;
    await applyPage(first.items, pass);
    const left = MAX_PAGES - pass.pages;
    if (first.pages - 1 > left && end - readTo > MIN_SLICE_MS) {
      // Would not be read to its end in this pass: a narrower slice (its first page is read again, applied once).
      span = Math.max(MIN_SLICE_MS, Math.floor((end - readTo) / 2));
      continue;
    }
    for (let page = 1; page < first.pages; page++) {
      const listed = await pix.listPayments({ ...window, page });
      pass.pages++;
      await applyPage(listed.items, pass);
    }
    readTo = end;
    span = SLICE_MS;
  }
  pass.complete = readTo >= now.getTime();
  pass.to = new Date(readTo);
  backlog.set(pass.complete ? 0 : (now.getTime() - readTo) / 1000);
  // Only slices read to their end move the cursor: a failure above, or the budget, leaves the rest for the next pass.
  const position = pass.complete ? now : new Date(readTo);
  const sequence = pass.complete ? CAUGHT_UP : 0;
  if (readTo > from.getTime() || !cursor)
    await db()
      .insert(providerCursors)
      .values({ name: CURSOR, position, sequence })
      .onConflictDoUpdate({ target: providerCursors.name, set: { position, sequence, updatedAt: sql`now()` } });
  if (!pass.complete)
    log.warn("PIX reconciliation has a backlog: the rest is read by the next pass", {
      readTo: pass.to,
      pages: pass.pages,
    });
  await scanReturnsHourly(now);
  return pass;
}

async function applyPage(items: ReceivedPix[], pass: ReconcilePass): Promise<void> {
  for (const item of items) {
    pass.seen++;
    const outcome = await applyReceivedPix(item, "poll");
    if (item.returns?.length) await applyPixReturns(item, "poll");
    if (outcome.duplicate) continue;
    if (outcome.applied) pass.applied++;
    else pass.unapplied++;
    log.info("PIX found by reconciliation", {
      endToEndId: item.endToEndId,
      applied: outcome.applied,
      reason: outcome.reason,
    });
  }
}

async function scanReturnsHourly(now: Date): Promise<void> {
  const [cursor] = await db()
    .select()
    .from(providerCursors)
    .where(sql`${providerCursors.name} = ${RETURNS_CURSOR}`);
  if (cursor && now.getTime() - cursor.position.getTime() < RETURNS_EVERY_MS) return;
  await scanReturns(new Date(now.getTime() - RETURNS_LOOKBACK_DAYS * SLICE_MS), now);
  await db()
    .insert(providerCursors)
    .values({ name: RETURNS_CURSOR, position: now })
    .onConflictDoUpdate({ target: providerCursors.name, set: { position: now, updatedAt: sql`now()` } });
}

/** Applies the devoluções of every Pix paid in [from, to] that has one (GET /pix?devolucaoPresente=true). */
export async function scanReturns(from: Date, to: Date): Promise<number> {
  const pix = providers().pix;
  if (!pix.listPayments) return 0;
  let recorded = 0;
  for (let start = from.getTime(); start < to.getTime(); start += SLICE_MS) {
    const window = {
      from: new Date(start),
      to: new Date(Math.min(start + SLICE_MS, to.getTime())),
      withReturnsOnly: true,
    };
    for (let page = 0, pages = 1; page < pages && page < MAX_PAGES; page++) {
      const listed = await pix.listPayments({ ...window, page });
      pages = listed.pages;
      for (const item of listed.items) recorded += (await applyPixReturns(item, "poll")).recorded;
    }
  }
  return recorded;
}
