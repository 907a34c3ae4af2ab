import { and, asc, desc, eq, gt, lt, sql } from "drizzle-orm";
import { db } from "@/db";
import { INFRACTION_DEFENCE_MAX, medInfractions, orders, pixReceipts, type MedInfraction } from "@/db/schema";
import { Conflict, InvalidInput, NotFound } from "@/lib/errors";
import { jobQueue } from "@/lib/jobs/queue";
import { log } from "@/lib/log";
import { providers } from "@/lib/providers";
import type { Infraction } from "@/lib/providers/payout/types";
import { audit, type Actor } from "@/lib/identity/audit";
import { lockBalance } from "@/lib/ledger/ledger";
import { settleHold } from "./holds";

// MED infractions (docs/providers.md "MED infractions"). Before the MED returns a PIX, the payer's
// bank files an infraction; the receiver may contest it until the PSP's deadline, after which the
// PSP decides without it. Where the PSP lists them (Efí), they are synced here and linked through
// pix_receipts to the merchant the PIX credited, who defends from the dashboard. A defence is
// committed (and audited) before it is sent: two submits race on the row's lock and only one is
// sent; one whose answer was lost stays `sending` and the sync reads it back (the PSP shows it
// defended) or, still open, sends it once more.

export const INFRACTION_SYNC_DAYS = 30;
export const INFRACTION_SYNC_SECONDS = 600;
/** A defence younger than this may still be on its way: the sync leaves it alone. */
const IN_FLIGHT_MS = 2 * 60_000;

// "stately": one sync queued and one running at most.
export const infractionSyncQueue = jobQueue<object>("med-infractions", {
  policy: "stately",
  retryLimit: 0,
  expireInSeconds: 600,
});

/** Whether the configured payout provider lists infractions at all (the job runs only then). */
export function infractionsSupported(): boolean {
  const p = providers().payout;
  return typeof p.listInfractions === "function" && typeof p.defendInfraction === "function";
}

export type SyncOutcome = { seen: number; resent: number };

let lastTick = 0;

/**
 * The job's tick: pg-boss's schedule fires every minute whatever the queue's own tick, so a sync runs
 * only once INFRACTION_SYNC_SECONDS have passed since this process's last one (deadlines are days away).
 */
export async function infractionSyncTick(now = Date.now()): Promise<SyncOutcome | null> {
  if (now - lastTick < INFRACTION_SYNC_SECONDS * 1000) return null;
  lastTick = now;
  return syncInfractions(new Date(now));
}

/** Reads the PSP's infractions of the last INFRACTION_SYNC_DAYS into med_infractions; idempotent. */
export async function syncInfractions(now = new Date()): Promise<SyncOutcome> {
  const provider = providers().payout;
  if (!provider.listInfractions) return { seen: 0, resent: 0 };
  const items = await provider.listInfractions({
    from: new Date(now.getTime() - INFRACTION_SYNC_DAYS * 86_400_000),
    to: now,
  });
  for (const item of items) await upsert(provider.name, item, now);
  // A defence whose answer was lost and that the PSP still shows open never arrived: sent once more.
  const stuck = await db()
    .select()
    .from(medInfractions)
    .where(
      and(
        eq(medInfractions.provider, provider.name),
        eq(medInfractions.defenceState, "sending"),
        eq(medInfractions.open, true),
        eq(medInfractions.syncedAt, now),
        lt(medInfractions.defendedAt, new Date(now.getTime() - IN_FLIGHT_MS)),
        gt(medInfractions.deadline, now),
      ),
    );
  for (const row of stuck) await deliver(row);
  return { seen: items.length, resent: stuck.length };
}

async function upsert(provider: string, item: Infraction, now: Date): Promise<void> {
  // The merchant the PIX credited, as for a MED devolução (lib/med/returns.ts): an unapplied receipt credited no one.
  const [receipt] = await db()
    .select({ orderId: pixReceipts.orderId, merchantId: pixReceipts.merchantId, applied: pixReceipts.applied })
    .from(pixReceipts)
    .where(eq(pixReceipts.endToEndId, item.endToEndId));
  const link = { orderId: receipt?.orderId ?? null, merchantId: receipt?.applied ? receipt.merchantId : null };
  const fields = {
    endToEndId: item.endToEndId,
    valueCentavos: item.valueCentavos,
    status: item.status,
    open: item.open,
    reason: item.reason.slice(0, 2000),
    situation: item.situation,
    openedAt: item.openedAt,
    deadline: item.deadline,
    syncedAt: now,
    ...link,
  };
  // With its hold, in one transaction: the row as the PSP shows it now, and the amount held or released.
  await db().transaction(async (tx) => {
    // The merchant's row first, as every debit takes it (a devolução's debit then locks its holds): one lock order.
    if (link.merchantId) await lockBalance(tx, link.merchantId);
    const [row] = await tx
      .insert(medInfractions)
      .values({ provider, infractionId: item.id, ...fields })
      .onConflictDoUpdate({
        target: [medInfractions.provider, medInfractions.infractionId],
        set: {
          ...fields,
          updatedAt: now,
          // A defence left `sending` that the PSP no longer shows open arrived: its answer was what got lost.
          defenceState: sql`case when ${medInfractions.defenceState} = 'sending' and not ${item.open} then 'sent' else ${medInfractions.defenceState} end`,
        },
      })
      .returning();
    await settleHold(tx, row);
  });
}

export type DefenceResult = { state: "sent" } | { state: "refused"; reason: string } | { state: "unanswered" };

/**
 * The merchant's defence of one of its infractions: refused here when it is not the merchant's, was
 * defended already (or is being), is closed, or is past its deadline; otherwise committed with its
 * audit line, then sent. The PSP's refusal is stored and returned with its reason.
 */
export async function defendInfraction(
  actor: Actor,
  merchantId: string,
  id: string,
  text: string,
  now = new Date(),
): Promise<DefenceResult> {
  const defence = text.trim();
  if (defence.length === 0 || defence.length > INFRACTION_DEFENCE_MAX) throw InvalidInput.of("disputes.error.length");
  const row = await db().transaction(async (tx) => {
    const [found] = await tx
      .select()
      .from(medInfractions)
      .where(and(eq(medInfractions.id, id), eq(medInfractions.merchantId, merchantId)))
      .for("update");
    if (!found) throw NotFound.of("disputes.error.notFound");
    if (found.defenceState === "sending" || found.defenceState === "sent")
      throw Conflict.of("disputes.error.alreadyDefended");
    if (found.deadline.getTime() <= now.getTime()) throw InvalidInput.of("disputes.error.late");
    if (!found.open) throw Conflict.of("disputes.error.closed");
    const [claimed] = await tx
      .update(medInfractions)
      .set({
        defence,
        defenceState: "sending",
        defenceRefusal: null,
        defendedBy: actor.userId,
        defendedAt: now,
        updatedAt: now,
      })
      .where(eq(medInfractions.id, found.id))
      .returning();
    await audit(
      actor,
      "infraction.defended",
      found.id,
      { infractionId: found.infractionId, orderId: found.orderId, endToEndId: found.endToEndId },
      tx,
    );
    return claimed;
  });
  return deliver(row);
}

/** Sends a committed defence and records the PSP's answer; no answer leaves it `sending` for the sync. */
async function deliver(row: MedInfraction): Promise<DefenceResult> {
  const provider = providers().payout;
  if (!provider.defendInfraction || provider.name !== row.provider) {
    const reason = `${row.provider} takes no defence through this service's configuration`;
    await db()
      .update(medInfractions)
      .set({ defenceState: "refused", defenceRefusal: reason, updatedAt: new Date() })
      .where(eq(medInfractions.id, row.id));
    return { state: "refused", reason };
  }
  let answer;
  try {
    answer = await provider.defendInfraction(row.infractionId, row.defence ?? "");
  } catch (err) {
    log.warn("MED defence sent without an answer; the infraction sync reads it back", { id: row.id, err });
    return { state: "unanswered" };
  }
  if (answer.status === "ACCEPTED") {
    await db()
      .update(medInfractions)
      .set({ defenceState: "sent", open: false, updatedAt: new Date() })
      .where(eq(medInfractions.id, row.id));
    return { state: "sent" };
  }
  await db()
    .update(medInfractions)
    .set({ defenceState: "refused", defenceRefusal: answer.reason.slice(0, 1000), updatedAt: new Date() })
    .where(eq(medInfractions.id, row.id));
  return { state: "refused", reason: answer.reason };
}

export type InfractionListItem = MedInfraction & { orderPaymentLinkId: string | null };

/** The merchant's infractions, the open ones first by deadline, then the rest newest first. */
export async function merchantInfractions(merchantId: string, limit = 100): Promise<InfractionListItem[]> {
  const rows = await db()
    .select({ infraction: medInfractions, orderPaymentLinkId: orders.paymentLinkId })
    .from(medInfractions)
    .leftJoin(orders, eq(orders.id, medInfractions.orderId))
    .where(eq(medInfractions.merchantId, merchantId))
    .orderBy(desc(medInfractions.open), asc(medInfractions.deadline), desc(medInfractions.openedAt))
    .limit(limit);
  return rows.map((r) => ({ ...r.infraction, orderPaymentLinkId: r.orderPaymentLinkId }));
}
