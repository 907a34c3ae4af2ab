import { db, type Tx } from "@/db";
import type { PixPayout } from "@/db/schema";
import { jobQueue } from "@/lib/jobs/queue";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { raiseAttention } from "@/lib/attention/attention";
import { providers } from "@/lib/providers";
import { stepMoneyOut, type MoneyOutStep } from "@/lib/providers/outcome";
import { finishPayout, insertPayout, leasedPayouts, leasePayout, notePayout, payoutById } from "./queries";

// Every PIX the service sends, as one state machine (docs/providers.md "PIX payouts": an outcome we
// do not know is not a failure). A payout is recorded (status created) in the same database
// transaction as the decision to pay (a pix-out withdrawal, a fully paid Crypto-PIX payment); its id
// is the idempotent id the provider gets. Then, outside any transaction, each step
// (lib/providers/outcome stepMoneyOut) reads it back by id when it may have reached the provider,
// sends it (same id) only while the provider has no record of it, and judges the answer: a refusal of
// a repeat or "id already used" is unknown, never "not made".
//   created    → sent: accepted (processing), decided at once, or unknown (read at the next step).
//   processing → read until the provider says made (completed) or not made (failed).
// Money goes back (a withdrawal credited, a Crypto-PIX payer refunded) only on "not made", in the
// database transaction that records it, through the owner's handler. A payout open too long, or sent
// MONEY_OUT_MAX_SENDS times without an answer the provider stands by, needs an operator (lib/attention/attention.ts).

/** Sends and follows one payout (lib/worker works it with advancePayout); retried with backoff until final. */
export const payoutQueue = jobQueue<{ id: string }>("pix-payout", {
  retryLimit: 10_000,
  retryDelay: 2,
  retryBackoff: true,
  retryDelayMax: 60,
  expireInSeconds: 120,
});

export type PayoutDecision =
  | { status: "completed"; providerRef: string | null }
  | { status: "failed"; providerRef: string | null; reason: string };

/** What each kind of owner does when its payout is decided (the worker's composition root supplies them). */
export type PayoutOwners = Partial<
  Record<PixPayout["purpose"], (tx: Tx, payout: PixPayout, decision: PayoutDecision) => Promise<void>>
>;

/**
 * Asked once, before a payout's first send: null to send it, or why it must not go out any more (the
 * Lightning payment it pays for may be given back by the node before the PIX could be settled against it).
 * Since nothing was sent, that is "not made". Throwing defers the question to the next try.
 */
export type PayoutGuards = Partial<Record<PixPayout["purpose"], (payout: PixPayout) => Promise<string | null>>>;

// How long one worker may talk to the provider about a payout before another may: also how long a
// payout held by a dead instance waits to be taken over (within 30 s: docs/architecture.md#work-held-by-an-instance-that-dies). A call that outlives
// it costs at most a second read, or a second send under the same idempotent id: never a second
// payment, and the decision is written once (WHERE status is open).
const LEASE_SECONDS = 15;
// Once sending stopped (lib/providers/outcome), the payout is still read this often.
const STOPPED_READ_SECONDS = 300;

export type NewPayout = {
  purpose: PixPayout["purpose"];
  ownerId: string;
  merchantId: string;
  valueCentavos: number;
} & ({ pixKey: string } | { brcode: string });

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
  for (const { id, secondsLeft } of leased)
    await payoutQueue.send({ id }, { startAfterSeconds: secondsLeft + 1, singletonKey: `${id}:lease` });
  return leased.length;
}

/**
 * A provider said something happened to this payout (Efí's SOLICITACAO notification): its job reads it
 * back now. Only the read decides; an id that is not one of ours (or no longer open) does nothing.
 */
export async function wakePayout(id: string): Promise<void> {
  const payout = await payoutById(db(), id);
  if (!payout || (payout.status !== "created" && payout.status !== "processing")) return;
  // Its own singleton key: a job already waiting out a retry's backoff must not swallow this one.
  await payoutQueue.send({ id }, { singletonKey: `${id}:notified` });
}

/** The provider's id for a payout: ours without dashes (PSPs take 1–35 alphanumerics). */
export const providerPayoutId = (payout: Pick<PixPayout, "id">) => payout.id.replace(/-/g, "");

/** Moves one payout forward once; true when it is final (or was already). */
export async function advancePayout(id: string, owners: PayoutOwners, guards: PayoutGuards = {}): Promise<boolean> {
  const payout = await leasePayout(db(), id, LEASE_SECONDS);
  if (!payout) {
    const row = await payoutById(db(), id);
    return row !== undefined && row.status !== "created" && row.status !== "processing";
  }
  const provider = providers().payout;
  const guard = payout.attempts === 0 ? guards[payout.purpose] : undefined;
  if (guard) {
    let refusal: string | null;
    try {
      refusal = await guard(payout);
    } catch (err) {
      log.warn("pix payout not sent yet: whether it may still go out could not be told", { payoutId: id, err });
      await notePayout(db(), id, { lastError: err instanceof Error ? err.message.slice(0, 500) : String(err) });
      return false;
    }
    if (refusal) {
      await decidePayout(id, { status: "failed", providerRef: null, reason: refusal }, owners);
      return true;
    }
  }
  const ref = providerPayoutId(payout);
  const step = await stepMoneyOut(
    {
      read: () => provider.read(ref),
      beforeSend: () => notePayout(db(), id, { tried: true, lastError: null, keepLease: true }),
      send: () =>
        provider.send({
          id: ref,
          destination: payout.pixKey ? { pixKey: payout.pixKey } : { brcode: payout.brcode! },
          valueCentavos: payout.valueCentavos,
        }),
    },
    // Sent before, or accepted before: an answer may have been lost, so it is read first.
    {
      sends: payout.attempts,
      mayHaveReachedProvider: payout.status === "processing" || payout.attempts > 0,
      maxSends: env().MONEY_OUT_MAX_SENDS,
    },
  );
  if (step.kind === "final") {
    const { state } = step;
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
  if (step.kind === "processing") {
    await notePayout(db(), id, {
      status: "processing",
      provider: provider.name,
      providerRef: step.providerRef,
      lastError: null,
    });
  } else {
    // Unknown: never a failure. It is read back by its id at the next try (after the provider's
    // Retry-After, or a while once sending stopped, so a payout nobody can decide does not spin).
    log.warn("pix payout outcome unknown; it is read back by its id", { payoutId: id, reason: step.reason });
    const holdSeconds = step.stopped ? STOPPED_READ_SECONDS : step.retryAfterSeconds;
    await notePayout(db(), id, { lastError: step.reason, ...(holdSeconds > 0 ? { holdSeconds } : {}) });
  }
  const why = step.kind === "unknown" && step.stopped ? step.reason : overdue(payout.createdAt, step);
  if (why) await raiseAttention("pix_payout", id, why);
  return false;
}

/** Why a payout still open this long needs an operator, or null while it is young. */
function overdue(createdAt: Date, step: Exclude<MoneyOutStep, { kind: "final" }>): string | null {
  const minutes = (Date.now() - createdAt.getTime()) / 60_000;
  if (minutes < env().MONEY_OUT_ATTENTION_MINUTES) return null;
  const age = `open for ${Math.floor(minutes)} minutes`;
  return step.kind === "processing"
    ? `${age}: the provider still reports it processing`
    : `${age}, outcome unknown: ${step.reason}`;
}

/**
 * Records a final outcome and hands it to the owner in one database transaction. Exported for the
 * sandbox's failPix, which decides a payout as failed without asking the provider.
 */
export async function decidePayout(
  id: string,
  decision: PayoutDecision,
  owners: PayoutOwners,
  provider?: string,
): Promise<void> {
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
