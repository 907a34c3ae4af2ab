import { sql } from "drizzle-orm";
import { db } from "@/db";
import { providerCursors } from "@/db/schema";
import { jobQueue } from "@/lib/jobs/queue";
import { log } from "@/lib/log";
import { applyReceivedPix } from "@/lib/orders/pix-receipts";
import { applyPixReturns } from "@/lib/med/returns";
import { providers } from "@/lib/providers";

// Reconciliation (docs/providers.md#pix-collection-api-pix-any-psp): every PIX_POLL_SECONDS the PSP's own list of received PIX is read
// over a moving window and each one applied (once: its end-to-end id), so a notification that never
// came only delays a payment. The window starts where the last complete read ended, minus an overlap
// for payments the PSP lists late, and is read in slices of at most a day. The devoluções each Pix
// lists are applied too (lib/med/returns.ts); and since the MED returns a Pix weeks after it was
// paid, once an hour the Pix of the last RETURNS_LOOKBACK_DAYS that have a devolução are read as well.

const CURSOR = "api-pix:received";
const OVERLAP_MS = 10 * 60 * 1000;
const FIRST_LOOKBACK_MS = 24 * 60 * 60 * 1000;
const SLICE_MS = 24 * 60 * 60 * 1000;
const MAX_PAGES = 100;
const RETURNS_CURSOR = "api-pix:returns";
const RETURNS_EVERY_MS = 60 * 60 * 1000;
/** The MED takes claims for 80 days after a payment; the document allows devoluções for 90. */
export const RETURNS_LOOKBACK_DAYS = 90;

export const pixReconcileQueue = jobQueue<object>("pix-reconcile", {
  policy: "stately",
  retryLimit: 0,
  expireInSeconds: 600,
});

export type ReconcilePass = { from: Date; to: Date; seen: number; applied: number; unapplied: number };

export async function reconcileReceivedPix(now = new Date()): Promise<ReconcilePass | null> {
  const pix = providers().pix;
  if (!pix.listPayments) return null;
  const [cursor] = await db()
    .select()
    .from(providerCursors)
    .where(sql`${providerCursors.name} = ${CURSOR}`);
  const from = new Date((cursor?.position.getTime() ?? now.getTime() - FIRST_LOOKBACK_MS) - OVERLAP_MS);
  const pass: ReconcilePass = { from, to: now, seen: 0, applied: 0, unapplied: 0 };
  for (let start = from.getTime(); start < now.getTime(); start += SLICE_MS) {
    const window = { from: new Date(start), to: new Date(Math.min(start + SLICE_MS, now.getTime())) };
    for (let page = 0, pages = 1; page < pages && page < MAX_PAGES; page++) {
      const listed = await pix.listPayments({ ...window, page });
      pages = listed.pages;
      for (const item of listed.items) {
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
  }
  // Only a window read to its end moves the cursor: a failure above leaves it for the next pass.
  await db()
    .insert(providerCursors)
    .values({ name: CURSOR, position: now })
    .onConflictDoUpdate({ target: providerCursors.name, set: { position: now, updatedAt: sql`now()` } });
  await scanReturnsHourly(now);
  return pass;
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
