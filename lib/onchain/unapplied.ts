import { sql } from "drizzle-orm";
import { depositSplitViews } from "@/lib/splits/service";
import { isAddress } from "viem";
import { db, type Tx } from "@/db";
import type { ChainTransfer, OnchainOrder, UnappliedResolution } from "@/db/schema";
import type { Asset, Network } from "@/lib/chain/tokens";
import { transferById } from "@/lib/chain/transfers";
import { Conflict, InvalidInput, NotFound } from "@/lib/errors";
import { recordEvent } from "@/lib/events/outbox";
import type { ChainTxOwners } from "@/lib/hot-wallet/tracker";
import { createChainTx, planSend, sendChainTx, type ChainSendPlan } from "@/lib/hot-wallet/transactions";
import { postLedgerEntry } from "@/lib/ledger/ledger";
import { log } from "@/lib/log";
import { centavosForCrypto, cryptoCompare, cryptoDueFor, cryptoSub, cryptoToNumber } from "@/lib/money";
import { providers } from "@/lib/providers";
import { audit, releaseActor, type Actor } from "@/lib/identity/audit";
import { queueReturnMail } from "@/lib/identity/money-mail";
import type { Locale } from "@/lib/i18n";
import { deliverQueuedSoon } from "@/lib/mail/mailer";
import { gateDestinationOf, waitingReasonFor, type Gate } from "@/lib/withdrawals/destination-gate";
import { touchDestination } from "@/lib/withdrawals/destinations";
import { lockDeposit, merchantDepositById } from "./queries";
import {
  addCredited,
  decideResolution,
  insertResolution,
  lockResolution,
  setResolutionChainTx,
  setTransferReturn,
} from "./unapplied-queries";
import { depositView } from "./views";

// What a merchant does with tokens an on-chain deposit order received but did not apply (late, or
// beyond what was due: lib/onchain/service.ts applyDepositTransfer), one transfer at a time, since
// each came from its own sender (docs/dashboard.md#unapplied-on-chain-funds):
//  - accept: the tokens' BRL value at the order's fixed rate, rounded down to the centavo (as a
//    partial payment is credited at expiry), is credited; the order keeps its status, since final
//    states never change, and its creditedValue grows;
//  - return: the tokens, less the network fee, go back from the hot wallet to the sender or to an
//    address the merchant gives (the payer's own, when the sender was an exchange's hot wallet).
//    The resolution and the signed transaction commit together before anything is broadcast; the
//    receipt alone decides it (lib/hot-wallet/tracker.ts), so a send we cannot confirm stays PENDING.
//    Any address but the sender's goes through the destination rule of withdrawals
//    (lib/withdrawals/destination-gate.ts): a new one is held and announced, and the return waits
//    (PENDING, no transaction) until an owner confirms it or the hold ends (releaseWaitingReturns),
//    or the merchant cancels it (cancelWaitingReturn: the funds can be decided again).
// Either is one row per transfer (unique transfer_id), so a second click or a race does nothing twice.
// Errors carry catalog keys: these are dashboard actions, with no API endpoint.

export type ResolutionState = Pick<
  UnappliedResolution,
  "id" | "kind" | "status" | "amount" | "creditedCentavos" | "toAddress" | "feeAmount" | "txHash" | "transferId"
>;

/** The event every change of a resolution writes: the order's view, plus the resolution as it now stands. */
async function emit(tx: Tx, order: OnchainOrder, r: UnappliedResolution, reason?: string) {
  await recordEvent(tx, {
    merchantId: order.merchantId,
    type: "onchain.deposit.unapplied.status_changed",
    subjectType: "onchain_order",
    subjectId: order.id,
    data: {
      ...depositView(order, await depositSplitViews(tx, order)),
      resolution: {
        id: r.id,
        kind: r.kind,
        status: r.status,
        amount: cryptoToNumber(r.amount),
        value: r.creditedCentavos === null ? null : r.creditedCentavos / 100,
        fee: r.feeAmount === null ? null : cryptoToNumber(r.feeAmount),
        to: r.toAddress,
        txHash: r.txHash,
        transferId: r.transferId,
        // Recorded, not sent: its destination is new (lib/withdrawals/destination-gate.ts).
        ...(r.waitingDestinationId ? { waiting: true } : {}),
        ...(reason ? { reason } : {}),
      },
    },
  });
}

/** The order's own token on its own network, with tokens it did not apply: the only transfers these actions take. */
function resolvable(order: OnchainOrder, t: ChainTransfer | undefined): t is ChainTransfer {
  return (
    t !== undefined &&
    t.ownerId === order.id &&
    t.network === order.network &&
    t.tokenAddress.toLowerCase() === order.tokenAddress.toLowerCase() &&
    cryptoCompare(t.unappliedAmount, "0") > 0 &&
    t.refundStatus === null
  );
}

async function loadTransfer(
  ex: Tx | ReturnType<typeof db>,
  order: OnchainOrder,
  transferId: string,
): Promise<ChainTransfer> {
  const t = await transferById(ex, transferId);
  if (!resolvable(order, t)) throw Conflict.of("unapplied.notResolvable");
  return t;
}

async function merchantOrder(merchantId: string, orderId: string): Promise<OnchainOrder> {
  const order = await merchantDepositById(db(), merchantId, orderId);
  if (!order) throw new NotFound("Order not found");
  return order;
}

/** In a transaction: the order locked, and the transfer checked again under that lock. */
async function lockOwn(tx: Tx, merchantId: string, orderId: string, transferId: string) {
  const order = await lockDeposit(tx, orderId);
  if (!order || order.merchantId !== merchantId) throw new NotFound("Order not found");
  return { order, transfer: await loadTransfer(tx, order, transferId) };
}

/** Accepts one transfer's unapplied tokens as payment of the order: the credit, its ledger entry, the event and the audit row, together. */
export async function acceptUnapplied(
  actor: Actor & { merchantId: string },
  orderId: string,
  transferId: string,
): Promise<UnappliedResolution> {
  return db().transaction(async (tx) => {
    const { order, transfer } = await lockOwn(tx, actor.merchantId, orderId, transferId);
    const credit = centavosForCrypto(transfer.unappliedAmount, order.rate);
    if (credit <= 0) throw InvalidInput.of("unapplied.tooSmallToAccept");
    const r = await insertResolution(tx, {
      merchantId: order.merchantId,
      orderId: order.id,
      transferId: transfer.id,
      kind: "accept",
      status: "COMPLETED",
      amount: transfer.unappliedAmount,
      creditedCentavos: credit,
      userId: actor.userId,
    });
    if (!r) throw Conflict.of("unapplied.alreadyResolved");
    // The ledger's unique (kind, ref) is a second guard: one credit per transfer, whatever wrote the row.
    await postLedgerEntry(tx, {
      merchantId: order.merchantId,
      kind: "unapplied_credit",
      amountCentavos: credit,
      refType: "chain_transfer",
      refId: transfer.id,
      description: `unapplied funds of deposit ${order.paymentLinkId} accepted`,
    });
    const after = await addCredited(tx, order.id, credit);
    await emit(tx, after, r);
    await audit(
      actor,
      "unapplied.accepted",
      order.id,
      { transferId: transfer.id, amount: transfer.unappliedAmount, creditedCentavos: credit },
      tx,
    );
    return r;
  });
}

export type ReturnQuote = {
  amount: string;
  fee: string;
  sent: string;
  to: string | null;
  asset: string;
  network: string;
  /** The address the funds came from: a return there needs no confirmation. */
  sender: string | null;
};

/** The network fee, in the order's token at today's rate (rounded up), kept out of what goes back. */
async function quoteReturn(
  order: OnchainOrder,
  transfer: ChainTransfer,
  plan: ChainSendPlan | null,
): Promise<ReturnQuote> {
  const { chain, rates } = providers();
  const network = order.network as Network;
  const [feeCentavos, quote] = await Promise.all([
    chain.quoteNetworkFeeCentavos(network, plan?.fees),
    rates.quote(order.asset as Asset),
  ]);
  const fee = cryptoDueFor(feeCentavos, quote.rate);
  return {
    amount: transfer.unappliedAmount,
    fee,
    sent: cryptoSub(transfer.unappliedAmount, fee),
    to: transfer.fromAddress,
    asset: order.asset,
    network: order.network,
    sender: transfer.fromAddress,
  };
}

/** Where a return goes: the address given, else the sender. Mixed case must carry a valid EIP-55 checksum; the order's own address would only receive it again as unapplied funds. */
function destinationOf(order: OnchainOrder, transfer: ChainTransfer, to: string | undefined): string {
  const destination = to?.trim() || transfer.fromAddress;
  if (
    !destination ||
    !isAddress(destination, { strict: true }) ||
    destination.toLowerCase() === order.address.toLowerCase()
  ) {
    throw InvalidInput.of("unapplied.addressInvalid");
  }
  return destination;
}

/** What a return would send now, and where, for the review step; the return itself quotes again. */
export async function previewReturn(
  merchantId: string,
  orderId: string,
  transferId: string,
  to?: string,
): Promise<ReturnQuote> {
  const order = await merchantOrder(merchantId, orderId);
  const transfer = await loadTransfer(db(), order, transferId);
  const destination = destinationOf(order, transfer, to);
  const q = await quoteReturn(order, transfer, null);
  if (cryptoCompare(q.sent, "0") <= 0) throw InvalidInput.of("unapplied.feeAboveAmount");
  return { ...q, to: destination };
}

/** Whether `to` is where the transfer came from: the one destination a return needs no hold for. */
const toSender = (transfer: ChainTransfer, to: string) => transfer.fromAddress?.toLowerCase() === to.toLowerCase();

/**
 * Returns one transfer's unapplied tokens, less the network fee, to `to` (the sender when absent):
 * the resolution, its hot-wallet transaction (nonce and first signed version; none while it waits
 * for a held destination), the event, the audit row naming the destination and the owners' mail
 * commit together; the broadcast comes after. The node is asked for fees before.
 */
export async function returnUnapplied(
  actor: Actor & { merchantId: string },
  locale: Locale,
  orderId: string,
  transferId: string,
  to?: string,
): Promise<UnappliedResolution> {
  const order = await merchantOrder(actor.merchantId, orderId);
  const destination = destinationOf(order, await loadTransfer(db(), order, transferId), to);
  const plan = await planSend(order.network as Network);
  const quote = await quoteReturn(order, await loadTransfer(db(), order, transferId), plan);
  if (cryptoCompare(quote.sent, "0") <= 0) throw InvalidInput.of("unapplied.feeAboveAmount");
  const made = await db().transaction(async (tx) => {
    const { order: locked, transfer } = await lockOwn(tx, actor.merchantId, orderId, transferId);
    const gate: Gate = toSender(transfer, destination)
      ? { held: null, added: null }
      : await gateDestinationOf(
          tx,
          locked.merchantId,
          { kind: "chain_address", value: destination.toLowerCase() },
          { channel: "dashboard", actor, locale },
        );
    // The amount quoted is the transfer's; it cannot have changed, since a transfer's unapplied tokens are written once.
    const r = await insertResolution(tx, {
      merchantId: locked.merchantId,
      orderId: locked.id,
      transferId: transfer.id,
      kind: "return",
      status: "PENDING",
      amount: transfer.unappliedAmount,
      toAddress: destination,
      feeAmount: quote.fee,
      sentAmount: quote.sent,
      userId: actor.userId,
      ...(gate.held ? { waitingDestinationId: gate.held.id, waitingReason: waitingReasonFor(gate.held) } : {}),
    });
    if (!r) throw Conflict.of("unapplied.alreadyResolved");
    let made: { resolution: UnappliedResolution; chainTxId: string | null };
    if (gate.held) {
      await setTransferReturn(tx, transfer.id, "PENDING", `return to ${destination} waits for the destination`);
      made = { resolution: r, chainTxId: null };
    } else {
      made = await makeReturnTx(tx, plan, locked, r);
    }
    await emit(tx, locked, made.resolution);
    await audit(
      actor,
      "unapplied.returned",
      locked.id,
      {
        transferId: transfer.id,
        to: destination,
        toSender: toSender(transfer, destination),
        newDestination: gate.added !== null,
        ...(gate.held ? { waitsFor: gate.held.id, holdUntil: gate.held.holdUntil!.toISOString() } : {}),
        amount: transfer.unappliedAmount,
        fee: quote.fee,
      },
      tx,
    );
    await queueReturnMail(
      tx,
      actor,
      locale,
      { amount: quote.sent, asset: locked.asset, network: locked.network, to: destination },
      gate.held?.holdUntil ?? null,
    );
    return made;
  });
  deliverQueuedSoon();
  if (made.chainTxId) await sendChainTx(made.chainTxId);
  return made.resolution;
}

/** In the caller's transaction: the return's hot-wallet transaction, on the resolution and its transfer. */
async function makeReturnTx(tx: Tx, plan: ChainSendPlan, order: OnchainOrder, r: UnappliedResolution) {
  const { chainTx, hash } = await createChainTx(tx, plan, {
    purpose: "refund",
    ownerKind: "unapplied_return",
    ownerId: r.id,
    transferId: r.transferId,
    token: { address: order.tokenAddress, decimals: order.tokenDecimals },
    to: r.toAddress!,
    amount: r.sentAmount!,
  });
  await setResolutionChainTx(tx, r.id, chainTx.id, hash);
  await setTransferReturn(tx, r.transferId, "PENDING", `being returned to ${r.toAddress}`);
  return { resolution: { ...r, chainTxId: chainTx.id, txHash: hash }, chainTxId: chainTx.id };
}

/** Returns that wait for a destination now confirmed or out of its hold, oldest first. */
async function releasableReturns(merchantId: string | null, limit: number) {
  return db().execute<{ id: string; order_id: string; network: string; destination_id: string }>(sql`
    select r.id, r.order_id, (select o.network from onchain_orders o where o.id = r.order_id limit 1) as network,
           r.waiting_destination_id as destination_id
    from unapplied_resolutions r
    where r.status = 'PENDING' and r.waiting_destination_id is not null
      -- Probes, not joins (subqueries with LIMIT): the few waiting rows read in order through
      -- unapplied_resolutions_waiting, whatever the planner knows of the tables.
      and (select 1 from payout_destinations d where d.id = r.waiting_destination_id
             and (d.status = 'confirmed' or d.hold_until is null or d.hold_until <= now()) limit 1) is not null
      ${merchantId ? sql`and r.merchant_id = ${merchantId}` : sql``}
    order by r.created_at limit ${limit}`);
}

/**
 * Sends every waiting return (of one merchant, or all) whose destination an owner confirmed or whose
 * hold ended: its transaction made under the order's lock, the wait cleared, the event and an audit
 * row, then broadcast. Returns how many left.
 */
export async function releaseWaitingReturns(merchantId: string | null = null, limit = 100): Promise<number> {
  let sent = 0;
  for (const row of await releasableReturns(merchantId, limit)) {
    try {
      const plan = await planSend(row.network as Network);
      const chainTxId = await db().transaction(async (tx) => {
        const order = await lockDeposit(tx, row.order_id);
        const [r] = await tx.execute<{ id: string }>(sql`
          update unapplied_resolutions set waiting_destination_id = null, waiting_reason = null, updated_at = now()
          where id = ${row.id} and status = 'PENDING' and waiting_destination_id is not null and exists (
            select 1 from payout_destinations d where d.id = unapplied_resolutions.waiting_destination_id
              and (d.status = 'confirmed' or d.hold_until is null or d.hold_until <= now()))
          returning id`);
        const released = r && order ? await lockResolution(tx, r.id) : undefined;
        if (!released || !order) return null;
        const made = await makeReturnTx(tx, plan, order, released);
        await touchDestination(tx, row.destination_id);
        await emit(tx, order, made.resolution);
        await audit(
          releaseActor(order.merchantId),
          "unapplied.returnReleased",
          order.id,
          { to: released.toAddress },
          tx,
        );
        return made.chainTxId;
      });
      if (chainTxId) {
        await sendChainTx(chainTxId);
        sent++;
      }
    } catch (err) {
      log.error("a waiting return could not be released; the sweep tries again", { resolutionId: row.id, err });
    }
  }
  return sent;
}

/**
 * The merchant cancels a return that waits for its destination: the resolution is FAILED and set
 * aside (cancelled_at), so the transfer's funds can be accepted or returned again; the event and the
 * audit row in the same transaction.
 */
export async function cancelWaitingReturn(
  actor: Actor & { merchantId: string },
  orderId: string,
  resolutionId: string,
): Promise<UnappliedResolution> {
  return db().transaction(async (tx) => {
    const order = await lockDeposit(tx, orderId);
    if (!order || order.merchantId !== actor.merchantId) throw new NotFound("Order not found");
    const [row] = await tx.execute<{ id: string }>(sql`
      update unapplied_resolutions set status = 'FAILED', cancelled_at = now(), waiting_destination_id = null,
        waiting_reason = null, failure_reason = 'cancelled by the merchant while it waited for its destination', updated_at = now()
      where id = ${resolutionId} and order_id = ${order.id} and status = 'PENDING' and waiting_destination_id is not null
      returning id`);
    const r = row ? await lockResolution(tx, row.id) : undefined;
    if (!r) throw Conflict.of("unapplied.notWaiting");
    await tx.execute(sql`update chain_transfers set refund_status = null, note = null where id = ${r.transferId}`);
    await emit(tx, order, r, "cancelled");
    await audit(actor, "unapplied.returnCancelled", order.id, { transferId: r.transferId, to: r.toAddress }, tx);
    return r;
  });
}

/** A return's hot-wallet transaction was decided (lib/hot-wallet/tracker.ts): mined → COMPLETED; reverted or superseded → FAILED, for an operator. */
export const onUnappliedReturnChainTx: NonNullable<ChainTxOwners["refund"]> = async (tx, chainTx, decision) => {
  const r = chainTx.ownerId ? await lockResolution(tx, chainTx.ownerId) : undefined;
  if (!r) return;
  const confirmed = decision.status === "confirmed";
  const reason = decision.status === "confirmed" ? undefined : decision.reason;
  const after = await decideResolution(tx, r.id, {
    status: confirmed ? "COMPLETED" : "FAILED",
    txHash: decision.hash ?? r.txHash,
    failureReason: reason ?? null,
  });
  if (!after) return;
  await setTransferReturn(
    tx,
    r.transferId,
    confirmed ? "COMPLETED" : "FAILED",
    confirmed ? `returned in ${decision.hash}` : `return failed: ${reason}`,
  );
  const order = await lockDeposit(tx, r.orderId);
  if (order) await emit(tx, order, after, reason);
  if (!confirmed)
    log.error("a return of unapplied on-chain funds failed; an operator must resolve it", {
      resolutionId: r.id,
      reason,
    });
};
