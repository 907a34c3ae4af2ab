import { sql } from "drizzle-orm";
import { db } from "@/db";
import type { Withdrawal } from "@/db/schema";
import { resolveToken } from "@/lib/chain/networks";
import { Conflict, NotFound } from "@/lib/errors";
import { planSend, sendChainTx } from "@/lib/hot-wallet/transactions";
import { audit, releaseActor, type Actor } from "@/lib/identity/audit";
import { isUuid } from "@/lib/ids";
import { postLedgerEntry } from "@/lib/ledger/ledger";
import { log } from "@/lib/log";
import { touchDestination } from "./destinations";
import { updatePending, withdrawalById } from "./queries";
import { WITHDRAW_NETWORKS } from "./schemas";
import { emit, makeChainTx, makePayout, requestPixOut } from "./service";

// Withdrawals that wait for a held destination (./destination-gate.ts): recorded and debited, with
// neither a payout nor a chain transaction. Released here once an owner confirms the destination or
// its hold ends (the sweep, and the confirmation itself, call releaseWaitingWithdrawals), or
// cancelled by the merchant meanwhile: the debit credited back, the event, the audit row.

/** Withdrawals whose destination is confirmed or whose hold is over, oldest first. */
async function releasable(merchantId: string | null, limit: number): Promise<string[]> {
  const rows = await db().execute<{ id: string }>(sql`
    select w.id from withdrawals w
    where w.status = 'PENDING' and w.waiting_destination_id is not null
      -- A probe per waiting row (a subquery with LIMIT is never made a join), so the few waiting rows are
      -- read in order through withdrawals_waiting, whatever the planner knows of the tables.
      and (select 1 from payout_destinations d where d.id = w.waiting_destination_id
             and (d.status = 'confirmed' or d.hold_until is null or d.hold_until <= now()) limit 1) is not null
      ${merchantId ? sql`and w.merchant_id = ${merchantId}` : sql``}
    order by w.created_at limit ${limit}`);
  return rows.map((r) => r.id);
}

/** The condition a release re-checks under the row's lock: still waiting, and its destination released. */
const stillReleasable = sql`waiting_destination_id is not null and exists (
  select 1 from payout_destinations d where d.id = withdrawals.waiting_destination_id
    and (d.status = 'confirmed' or d.hold_until is null or d.hold_until <= now()))`;

/** Sends one waiting withdrawal: its payout or chain transaction recorded with the wait cleared, then sent after commit. */
async function release(id: string): Promise<boolean> {
  const w = await withdrawalById(db(), id);
  if (!w || w.status !== "PENDING" || !w.waitingDestinationId) return false;
  // The node is asked for nonce and fees before the transaction, as at request time.
  const chain =
    w.kind === "onchain"
      ? {
          plan: await planSend(w.network as (typeof WITHDRAW_NETWORKS)[number]),
          ...resolveToken(w.network!, w.token!, WITHDRAW_NETWORKS),
        }
      : null;
  const made = await db().transaction(async (tx) => {
    const released = await updatePending(tx, id, { waitingDestinationId: null, waitingReason: null }, stillReleasable);
    if (!released) return null;
    await touchDestination(tx, w.waitingDestinationId!);
    await audit(releaseActor(w.merchantId), "withdrawal.released", w.id, { destinationId: w.waitingDestinationId }, tx);
    if (chain) {
      const sent = await makeChainTx(tx, chain.plan, released, chain.token.decimals);
      await tx.execute(
        sql`update withdrawals set tx_hash = ${sent.hash}, nonce = ${sent.chainTx.nonce} where id = ${id}`,
      );
      return { chainTxId: sent.chainTx.id, payoutId: null };
    }
    return { chainTxId: null, payoutId: (await makePayout(tx, released)).id };
  });
  if (!made) return false;
  if (made.chainTxId) await sendChainTx(made.chainTxId);
  if (made.payoutId) await requestPixOut(made.payoutId);
  return true;
}

/** Releases every waiting withdrawal (of one merchant, or all) whose destination may now be paid; returns how many left. */
export async function releaseWaitingWithdrawals(merchantId: string | null = null, limit = 100): Promise<number> {
  let sent = 0;
  for (const id of await releasable(merchantId, limit)) {
    try {
      if (await release(id)) sent++;
    } catch (err) {
      log.error("a waiting withdrawal could not be released; the sweep tries again", { withdrawalId: id, err });
    }
  }
  return sent;
}

/** The reason a cancelled withdrawal carries (GET /withdrawals/{id} `failureReason`). */
export const CANCELLED_REASON = "cancelled by the merchant while it waited for its destination to be confirmed";

/**
 * The merchant cancels a withdrawal that waits for its destination: FAILED, its debit credited back
 * (which frees the day's limit), the event (and so the webhook) and the audit row, together. One
 * already released or decided is a Conflict; another merchant's is not found.
 */
export async function cancelWaitingWithdrawal(actor: Actor & { merchantId: string }, id: string): Promise<Withdrawal> {
  if (!isUuid(id)) throw NotFound.of("withdrawals.notFound");
  return db().transaction(async (tx) => {
    const w = await updatePending(
      tx,
      id,
      { status: "FAILED", failureReason: CANCELLED_REASON, waitingDestinationId: null, waitingReason: null },
      sql`merchant_id = ${actor.merchantId} and waiting_destination_id is not null`,
    );
    if (!w) {
      const existing = await withdrawalById(tx, id);
      if (!existing || existing.merchantId !== actor.merchantId) throw NotFound.of("withdrawals.notFound");
      throw Conflict.of("withdrawals.notWaiting");
    }
    await postLedgerEntry(tx, {
      merchantId: w.merchantId,
      kind: "withdrawal_reversal",
      amountCentavos: w.debitCentavos,
      refType: "withdrawal",
      refId: w.id,
    });
    await emit(tx, w, "PENDING");
    await audit(actor, "withdrawal.cancelled", w.id, { kind: w.kind, valueCentavos: w.valueCentavos }, tx);
    return w;
  });
}
