import { and, asc, eq, gt, sql } from "drizzle-orm";
import { db, type Tx } from "@/db";
import { merchants, recipientPayouts, recipients, type Recipient } from "@/db/schema";
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
import { dueSlot, scheduleOf } from "./schedule";

// Automatic payouts (docs/api.md#automatic-payouts): a recurring job pays each recipient with a
// schedule its whole balance, by PIX to its key, once per slot (./schedule.ts), through the same
// payout path as a payout asked for (./payouts.ts payOutLocked). The job is pg-boss's: it survives
// restarts and runs on one instance at a time ("stately"), but nothing here relies on that: each
// recipient is decided under its row lock, a slot already paid is skipped, and the unique
// (recipient_id, schedule_slot) makes a second payout of a slot impossible even if two runs overlap.
// A slot is not paid — and stays due until the next one begins, so a later run may still pay it —
// while the recipient is DISABLED, its balance is below the minimum (or not positive), or its key is
// held (or, with the API allow-list on, not confirmed by an owner).

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

/** Recipients with a schedule and a balance a slot could pay, in id order after `after`. */
async function candidates(after: string | null): Promise<Recipient[]> {
  return db()
    .select()
    .from(recipients)
    .where(
      and(
        sql`${recipients.payoutInterval} is not null`,
        eq(recipients.status, "ACTIVE"),
        sql`${recipients.balanceCentavos} >= greatest(coalesce(${recipients.payoutMinimumCentavos}, 1), 1)`,
        after ? gt(recipients.id, after) : undefined,
      ),
    )
    .orderBy(asc(recipients.id))
    .limit(PAGE);
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
    if (r.balanceCentavos <= 0 || r.balanceCentavos < (schedule.minimumCentavos ?? 1)) return "belowMinimum" as const;
    if (!(await keyUsable(tx, r))) return "keyHeld" as const;
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
    for (const r of page) {
      const schedule = scheduleOf(r);
      if (!schedule || !dueSlot(schedule, at)) {
        run.notDue++;
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
