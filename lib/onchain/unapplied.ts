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
import { audit, type Actor } from "@/lib/identity/audit";
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
      ...depositView(order),
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

/**
 * Returns one transfer's unapplied tokens, less the network fee, to `to` (the sender when absent):
 * the resolution, its hot-wallet transaction (nonce and first signed version), the event and the
 * audit row commit together; the broadcast comes after. The node is asked for fees before.
 */
export async function returnUnapplied(
  actor: Actor & { merchantId: string },
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
    });
    if (!r) throw Conflict.of("unapplied.alreadyResolved");
    const { chainTx, hash } = await createChainTx(tx, plan, {
      purpose: "refund",
      ownerKind: "unapplied_return",
      ownerId: r.id,
      transferId: transfer.id,
      token: { address: locked.tokenAddress, decimals: locked.tokenDecimals },
      to: destination,
      amount: quote.sent,
    });
    await setResolutionChainTx(tx, r.id, chainTx.id, hash);
    await setTransferReturn(tx, transfer.id, "PENDING", `being returned to ${destination}`);
    const withTx = { ...r, chainTxId: chainTx.id, txHash: hash };
    await emit(tx, locked, withTx);
    await audit(
      actor,
      "unapplied.returned",
      locked.id,
      { transferId: transfer.id, to: destination, amount: transfer.unappliedAmount, fee: quote.fee },
      tx,
    );
    return { resolution: withTx, chainTxId: chainTx.id };
  });
  await sendChainTx(made.chainTxId);
  return made.resolution;
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
