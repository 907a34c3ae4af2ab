import { db, type Tx } from "@/db";
import type { PixPayout } from "@/db/schema";
import { jobQueue } from "@/lib/jobs/queue";
import { log } from "@/lib/log";
import { providers } from "@/lib/providers";
import type { PayoutState } from "@/lib/providers/payout/types";
import { finishPayout, insertPayout, leasedPayouts, leasePayout, notePayout, payoutById } from "./queries";

// Every PIX the service sends, as one state machine (CONTRACT §10: an outcome we do not know is not a
// failure). A payout is recorded (status created) in the same database transaction as the decision
// to pay (a pix-out withdrawal, a fully paid Crypto-PIX payment); its id is the idempotent id the
// provider gets. Then, outside any transaction:
//   created    → send. The provider accepts (processing), decides at once, or the call fails in
//                transport: then nothing is known, so the payout stays created and the next check
//                reads it by id first; a provider that never received it gets it again, same id.
//   processing → read until the provider says made (completed) or not made (failed).
// Money goes back (a withdrawal credited, a Crypto-PIX payer refunded) only on "not made", in the
// database transaction that records it, through the owner's handler.

/** Sends and follows one payout (lib/worker works it with advancePayout); retried with backoff until final. */
export const payoutQueue = jobQueue<{ id: string }>("pix-payout", {
  retryLimit: 10_000,
  retryDelay: 2,
  retryBackoff: true,
  retryDelayMax: 60,
  expireInSeconds: 120,
});

export type PayoutDecision = { status: "completed"; providerRef: string | null } | { status: "failed"; providerRef: string | null; reason: string };

/** What each kind of owner does when its payout is decided (the worker's composition root supplies them). */
export type PayoutOwners = Partial<Record<PixPayout["purpose"], (tx: Tx, payout: PixPayout, decision: PayoutDecision) => Promise<void>>>;

// How long one worker may talk to the provider about a payout before another may: also how long a
// payout held by a dead instance waits to be taken over (issue 15: within 30 s). A call that outlives
// it costs at most a second read, or a second send under the same idempotent id: never a second
// payment, and the decision is written once (WHERE status is open).
const LEASE_SECONDS = 15;

export type NewPayout = { purpose: PixPayout["purpose"]; ownerId: string; merchantId: string; valueCentavos: number } & ({ pixKey: string } | { brcode: string });

/** In the caller's transaction: the decision to pay, recorded before anyone is asked to pay. */
export function createPayout(tx: Tx, payout: NewPayout): Promise<PixPayout> {
  return insertPayout(tx, payout);
}

/** After the record committed: asks the job to send it (after `delaySeconds`). */
export function requestPayout(id: string, delaySeconds = 0): Promise<void> {
  return payoutQueue.send({ id }, { startAfterSeconds: delaySeconds, singletonKey: id });
}

/**
 * The sweep's follow-up of payouts leased right now: a job for each when its lease ends, so one held
 * by an instance that died is read back seconds after the lease, not at the next sweep. (One whose
 * call ends in time finds it final, or leases it again, and does what any job would.)
 */
export async function followLeasedPayouts(limit = 200): Promise<number> {
  const leased = await leasedPayouts(db(), limit);
  for (const { id, secondsLeft } of leased) await payoutQueue.send({ id }, { startAfterSeconds: secondsLeft + 1, singletonKey: `${id}:lease` });
  return leased.length;
}

/** The provider's id for a payout: ours without dashes (PSPs take 1–35 alphanumerics). */
export const providerPayoutId = (payout: Pick<PixPayout, "id">) => payout.id.replace(/-/g, "");

/** Moves one payout forward once; true when it is final (or was already). */
export async function advancePayout(id: string, owners: PayoutOwners): Promise<boolean> {
  const payout = await leasePayout(db(), id, LEASE_SECONDS);
  if (!payout) {
    const row = await payoutById(db(), id);
    return row !== undefined && row.status !== "created" && row.status !== "processing";
  }
  const provider = providers().payout;
  const ref = providerPayoutId(payout);
  let state: PayoutState | null;
  try {
    // Sent before (an answer may have been lost): ask first, and send only what it never received.
    state = payout.status === "processing" || payout.attempts > 0 ? await provider.read(ref) : null;
    if (state === null) {
      await notePayout(db(), id, { tried: true, lastError: null, status: "created", keepLease: true });
      const destination = payout.pixKey ? { pixKey: payout.pixKey } : { brcode: payout.brcode! };
      state = await provider.send({ id: ref, destination, valueCentavos: payout.valueCentavos });
    }
  } catch (err) {
    // Unknown outcome: never a failure. The next check reads it by id.
    const message = err instanceof Error ? err.message : String(err);
    log.warn("pix payout outcome unknown; it is read back by its id", { payoutId: id, err });
    await notePayout(db(), id, { lastError: message.slice(0, 500) });
    return false;
  }
  if (state.status === "PROCESSING") {
    await notePayout(db(), id, { status: "processing", provider: provider.name, providerRef: state.providerRef ?? null, lastError: null });
    return false;
  }
  await decidePayout(
    id,
    state.status === "COMPLETED"
      ? { status: "completed", providerRef: state.providerRef ?? null }
      : { status: "failed", providerRef: state.providerRef ?? null, reason: state.reason ?? "PIX payout not made" },
    owners,
    provider.name,
  );
  return true;
}

/**
 * Records a final outcome and hands it to the owner in one database transaction. Exported for the
 * sandbox's failPix, which decides a payout as failed without asking the provider.
 */
export async function decidePayout(id: string, decision: PayoutDecision, owners: PayoutOwners, provider?: string): Promise<void> {
  await db().transaction(async (tx) => {
    const row = await finishPayout(tx, id, {
      status: decision.status,
      provider,
      providerRef: decision.providerRef,
      failureReason: decision.status === "failed" ? decision.reason : null,
    });
    if (!row) return;
    const owner = owners[row.purpose];
    // Rolled back, so the payout stays open: a caller that cannot finish it must not decide it.
    if (!owner) throw new Error(`no handler for ${row.purpose} payouts was given`);
    await owner(tx, row, decision);
  });
  log.info("pix payout decided", { payoutId: id, status: decision.status });
}
