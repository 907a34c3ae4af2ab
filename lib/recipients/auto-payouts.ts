import { and, asc, eq, gt, inArray, sql } from "drizzle-orm";
import { db, type Tx } from "@/db";
import {
  merchants,
  recipientPayoutSkips,
  recipientPayouts,
  recipients,
  type PayoutSkipReason,
  type Recipient,
} from "@/db/schema";
import { recordEvent } from "@/lib/events/outbox";
import { now } from "@/lib/clock";
import type { Actor } from "@/lib/identity/audit";
import { DEFAULT_LOCALE } from "@/lib/i18n";
import { jobQueue } from "@/lib/jobs/queue";
import { log } from "@/lib/log";
import { deliverQueuedSoon } from "@/lib/mail/mailer";
import { railEnabled } from "@/lib/providers/rails";
import { requestPixOut } from "@/lib/withdrawals/service";
import { isHolding, lockDestination } from "@/lib/withdrawals/destinations";
import { payOutLocked } from "./payouts";
import { lockRecipient } from "./queries";
import { payoutSkipView } from "./views";
import { dueSlot, scheduleOf } from "./schedule";

// Automatic payouts (docs/api.md#automatic-payouts): a recurring job pays each recipient with a
// schedule its whole balance, by PIX to its key, once per slot (./schedule.ts), through the same
// payout path as a payout asked for (./payouts.ts payOutLocked). The job is pg-boss's: it survives
// restarts and runs on one instance at a time ("stately"), but nothing here relies on that: each
// recipient is decided under its row lock, a slot already paid is skipped, and the unique
// (recipient_id, schedule_slot) makes a second payout of a slot impossible even if two runs overlap.
// A slot is not paid — and stays due until the next one begins, so a later run may still pay it —
// while the recipient is DISABLED, its balance is below the minimum (or not positive), or its key is
// held (or, with the API allow-list on, not confirmed by an owner). Each of the last three is recorded
// once per slot (recipient_payout_skips) with a recipient.payout.skipped event, so the merchant learns
// why a payday passed without a payout; a DISABLED recipient is the merchant's own doing and is not.

/** Recurring: every minute, like the solvency report's tick; one run at a time across instances. */
export const autoPayoutQueue = jobQueue<object>("recipient-auto-payouts", {
  policy: "stately",
  retryLimit: 0,
  expireInSeconds: 600,
});
export const AUTO_PAYOUT_TICK_SECONDS = 60;

/** Named in the audit trail and the owners' mail where the schedule acts (it never adds a destination). */
const scheduleActor = (merchantId: string): Actor & { merchantId: string } => ({
  merchantId,
  userId: null,
  email: "automatic payout schedule",
  ip: null,
});

export type AutoPayoutOutcome = "paid" | "alreadyPaid" | "notDue" | "belowMinimum" | "keyHeld" | "disabled";
export type AutoPayoutRun = Record<AutoPayoutOutcome, number>;

const PAGE = 200;

/** Active recipients with a schedule, in id order after `after` (a slot that cannot pay is still recorded). */
async function candidates(after: string | null): Promise<Recipient[]> {
  return db()
    .select()
    .from(recipients)
    .where(
      and(
        // recipients_payout_schedule's predicate, as literals: a parameter would not prove it.
        sql`${recipients.payoutInterval} is not null and ${recipients.status} = 'ACTIVE'`,
        after ? gt(recipients.id, after) : undefined,
      ),
    )
    .orderBy(asc(recipients.id))
    .limit(PAGE);
}

/** Why a balance cannot pay the slot, or null when it can. */
function balanceShort(balance: number, minimum: number | null): PayoutSkipReason | null {
  if (balance <= 0) return "no_balance";
  return balance < (minimum ?? 1) ? "below_minimum" : null;
}

type Due = { r: Recipient; slot: string };

/**
 * What a page's due slots already have: those paid, and the balance-based skips already recorded,
 * read in two statements so a run does not lock every recipient with nothing to do each minute.
 */
async function settled(due: Due[]): Promise<{ paid: Set<string>; skipped: Set<string> }> {
  const ids = due.map((d) => d.r.id);
  const slots = [...new Set(due.map((d) => d.slot))];
  if (ids.length === 0) return { paid: new Set(), skipped: new Set() };
  const [paid, skipped] = await Promise.all([
    db()
      .select({ recipientId: recipientPayouts.recipientId, slot: recipientPayouts.scheduleSlot })
      .from(recipientPayouts)
      .where(and(inArray(recipientPayouts.recipientId, ids), inArray(recipientPayouts.scheduleSlot, slots))),
    db()
      .select({
        recipientId: recipientPayoutSkips.recipientId,
        slot: recipientPayoutSkips.scheduleSlot,
        reason: recipientPayoutSkips.reason,
      })
      .from(recipientPayoutSkips)
      .where(and(inArray(recipientPayoutSkips.recipientId, ids), inArray(recipientPayoutSkips.scheduleSlot, slots))),
  ]);
  return {
    paid: new Set(paid.map((p) => `${p.recipientId} ${p.slot}`)),
    skipped: new Set(skipped.map((s) => `${s.recipientId} ${s.slot} ${s.reason}`)),
  };
}

/** The slot's skip for `reason`, once: the row and its event commit with the decision, or not at all. */
async function recordSkip(tx: Tx, r: Recipient, slot: string, reason: PayoutSkipReason): Promise<void> {
  const [row] = await tx
    .insert(recipientPayoutSkips)
    .values({
      merchantId: r.merchantId,
      recipientId: r.id,
      scheduleSlot: slot,
      reason,
      balanceCentavos: r.balanceCentavos,
      minimumCentavos: r.payoutMinimumCentavos,
    })
    .onConflictDoNothing()
    .returning();
  if (!row) return;
  await recordEvent(tx, {
    merchantId: r.merchantId,
    type: "recipient.payout.skipped",
    subjectType: "recipient",
    subjectId: r.id,
    data: payoutSkipView(row),
  });
}

/** Whether the recipient's key may be paid now, without recording anything (./key-hold.ts gateRecipientKey's rule). */
async function keyUsable(tx: Tx, r: Recipient): Promise<boolean> {
  const dest = await lockDestination(tx, r.merchantId, { kind: "pix_key", value: r.pixKey });
  // Not in the address book (an owner removed it): a payout asked for would record it held.
  if (!dest || isHolding(dest)) return false;
  const [m] = await tx
    .select({ allowlist: merchants.apiDestinationAllowlist })
    .from(merchants)
    .where(eq(merchants.id, r.merchantId));
  return !(m?.allowlist && dest.status !== "confirmed");
}

/** One recipient's due slot, decided under its lock; the PIX is sent after commit. */
async function payDueSlot(candidate: Recipient, at: Date): Promise<AutoPayoutOutcome> {
  const made = await db().transaction(async (tx) => {
    const r = await lockRecipient(tx, candidate.merchantId, candidate.id);
    const schedule = r ? scheduleOf(r) : null;
    if (!r || !schedule) return "notDue" as const;
    if (r.status !== "ACTIVE") return "disabled" as const;
    const slot = dueSlot(schedule, at);
    if (!slot) return "notDue" as const;
    const [paid] = await tx
      .select({ id: recipientPayouts.id })
      .from(recipientPayouts)
      .where(and(eq(recipientPayouts.recipientId, r.id), eq(recipientPayouts.scheduleSlot, slot)));
    if (paid) return "alreadyPaid" as const;
    const short = balanceShort(r.balanceCentavos, schedule.minimumCentavos);
    if (short) {
      await recordSkip(tx, r, slot, short);
      return "belowMinimum" as const;
    }
    if (!(await keyUsable(tx, r))) {
      await recordSkip(tx, r, slot, "key_held");
      return "keyHeld" as const;
    }
    const origin = { actor: scheduleActor(r.merchantId), locale: DEFAULT_LOCALE };
    return payOutLocked(tx, origin, r, r.balanceCentavos, slot);
  });
  if (typeof made === "string") return made;
  deliverQueuedSoon();
  await requestPixOut(made.pixPayoutId);
  return "paid";
}

/**
 * One run of the schedule at `at` (the job's tick; tests pass a moved clock): every recipient whose
 * due slot is unpaid and payable is paid its balance. One recipient that fails is logged and the
 * others go on; the next run tries it again while its slot is due.
 */
export async function runAutoPayouts(at: Date = now()): Promise<AutoPayoutRun> {
  const run: AutoPayoutRun = { paid: 0, alreadyPaid: 0, notDue: 0, belowMinimum: 0, keyHeld: 0, disabled: 0 };
  // Live mode without PIX payouts configured pays no one (a payout asked for answers its 400).
  if (!railEnabled("pix_out")) return run;
  let after: string | null = null;
  for (;;) {
    const page = await candidates(after);
    const due: Due[] = [];
    for (const r of page) {
      const schedule = scheduleOf(r);
      const slot = schedule ? dueSlot(schedule, at) : null;
      if (slot) due.push({ r, slot });
      else run.notDue++;
    }
    const { paid, skipped } = await settled(due);
    for (const { r, slot } of due) {
      if (paid.has(`${r.id} ${slot}`)) {
        run.alreadyPaid++;
        continue;
      }
      // Short of the minimum and already said so: nothing changed that the lock would tell us.
      const short = balanceShort(r.balanceCentavos, r.payoutMinimumCentavos);
      if (short && skipped.has(`${r.id} ${slot} ${short}`)) {
        run.belowMinimum++;
        continue;
      }
      try {
        run[await payDueSlot(r, at)]++;
      } catch (err) {
        log.error("automatic recipient payout failed; the next run tries again", { recipientId: r.id, err });
      }
    }
    if (page.length < PAGE) return run;
    after = page[page.length - 1].id;
  }
}
