import { sql } from "drizzle-orm";
import { db, type Tx } from "@/db";
import type { CryptoPixPayment } from "@/db/schema";
import type { Network } from "@/lib/chain/tokens";
import { Conflict, NotFound } from "@/lib/errors";
import type { ChainTxOwners } from "@/lib/hot-wallet/tracker";
import { createChainTx, planSend, sendChainTx } from "@/lib/hot-wallet/transactions";
import { chainPayment } from "./kinds";
import { log } from "@/lib/log";
import { isHolding, lockDestination } from "@/lib/withdrawals/destinations";
import { transferById } from "@/lib/chain/transfers";
import { cryptoCompare } from "@/lib/money";
import { emitRefundChange, emitStatusChange } from "./events";
import {
  closePayment,
  firstSender,
  lockPayment,
  paymentById,
  refundsToSend,
  setTransferRefund,
  updatePayment,
} from "./queries";

// Crypto-PIX refunds (docs/api.md#states-expiry-and-money, docs/providers.md#an-outcome-we-do-not-know-is-not-a-failure). A refund is decided in the transaction that decides the
// payment's fate (expired partly paid, PIX not made, money after it closed): that transaction only
// records the decision (refund PENDING). Sending is a second step, outside any lock: the node is
// asked for fees, then, in a short transaction that re-checks nothing else sent it, the hot-wallet
// transaction is recorded and broadcast (lib/hot-wallet). Its receipt decides the refund: mined →
// the payment becomes REFUNDED; reverted or cancelled → the refund is FAILED and an operator sees it.

/** In the caller's transaction: the payment's received crypto goes back. The payment closes now; it is REFUNDED once the refund is mined. */
export async function decideRefund(tx: Tx, p: CryptoPixPayment, reason: string): Promise<CryptoPixPayment> {
  const after = p.closedAt
    ? await updatePayment(tx, p.id, { refundStatus: "PENDING", failureReason: reason })
    : await closePayment(tx, p.id, { refundStatus: "PENDING", failureReason: reason });
  if (!after) return p;
  await emitRefundChange(tx, after, {
    status: "PENDING",
    amount: after.receivedAmount,
    to: after.refundAddress,
    txHash: null,
    transferId: null,
    reason,
  });
  return after;
}

/** Sends every decided refund (of one payment, or all) that has no transaction yet; returns the transactions made. */
export async function sendDecidedRefunds(paymentId: string | null = null, limit = 100): Promise<string[]> {
  const made: string[] = [];
  for (const intent of await refundsToSend(db(), paymentId, limit)) {
    try {
      const id = await sendRefund(intent.paymentId, intent.transferId);
      if (id) made.push(id);
    } catch (err) {
      log.error("refund could not be sent; it is tried again", {
        paymentId: intent.paymentId,
        transferId: intent.transferId,
        err,
      });
    }
  }
  return made;
}

async function sendRefund(paymentId: string, transferId: string | null): Promise<string | null> {
  const p = await paymentById(db(), paymentId);
  if (!p) return null;
  const plan = await planSend(p.network as Network);
  const chainTxId = await db().transaction(async (tx) => {
    const payment = await lockPayment(tx, paymentId);
    if (!payment) return null;
    // Re-checked under the payment's lock: two senders cannot both send it.
    const [pending] = await refundsToSend(tx, paymentId, 100).then((all) =>
      all.filter((i) => i.transferId === transferId),
    );
    if (!pending) return null;
    const transfer = transferId ? await transferById(tx, transferId) : undefined;
    const amount = transfer ? transfer.unappliedAmount : payment.receivedAmount;
    const to = transfer ? transfer.fromAddress : (payment.refundAddress ?? (await firstSender(tx, payment.id)));
    // A pasted refund address held as a new destination (lib/withdrawals/destination-gate.ts): the
    // refund stays decided and unsent, and the sweep sends it once an owner confirms it or the hold ends.
    if (!transfer && payment.refundAddress && to === payment.refundAddress) {
      const row = await lockDestination(tx, payment.merchantId, { kind: "chain_address", value: to.toLowerCase() });
      if (row && isHolding(row)) {
        log.info("crypto-pix refund waits for its refund address to be confirmed", { paymentId: payment.id });
        return null;
      }
    }
    if (!to || cryptoCompare(amount, "0") <= 0) {
      await refundFailed(
        tx,
        payment,
        transferId,
        amount,
        to,
        null,
        to ? "nothing to send back" : "no address to send the refund to",
      );
      return null;
    }
    const { chainTx } = await createChainTx(tx, plan, {
      purpose: "refund",
      ownerKind: "crypto_pix",
      ownerId: payment.id,
      transferId: transferId ?? undefined,
      token: { address: chainPayment(payment).tokenAddress, decimals: chainPayment(payment).tokenDecimals },
      to,
      amount,
    });
    return chainTx.id;
  });
  if (chainTxId) await sendChainTx(chainTxId);
  return chainTxId;
}

async function refundFailed(
  tx: Tx,
  p: CryptoPixPayment,
  transferId: string | null,
  amount: string,
  to: string | null,
  hash: string | null,
  reason: string,
) {
  if (transferId) await setTransferRefund(tx, transferId, "FAILED", `refund failed: ${reason}`);
  const after = transferId
    ? p
    : ((await updatePayment(tx, p.id, { refundStatus: "FAILED", failureReason: `refund failed: ${reason}` })) ?? p);
  await emitRefundChange(tx, after, { status: "FAILED", amount, to, txHash: hash, transferId, reason });
  log.error("crypto-pix refund failed; an operator must resolve it", { paymentId: p.id, transferId, reason });
}

/** A refund's hot-wallet transaction was decided (lib/hot-wallet/tracker.ts). */
export const onRefundChainTx: NonNullable<ChainTxOwners["refund"]> = async (tx, chainTx, decision) => {
  const p = chainTx.ownerId ? await lockPayment(tx, chainTx.ownerId) : undefined;
  if (!p) return;
  const amount = chainTx.amount ?? "0";
  if (decision.status !== "confirmed") {
    await refundFailed(tx, p, chainTx.transferId, amount, chainTx.toAddress, decision.hash, decision.reason);
    return;
  }
  if (chainTx.transferId) {
    await setTransferRefund(tx, chainTx.transferId, "COMPLETED", `refunded to its sender in ${decision.hash}`);
    await emitRefundChange(tx, p, {
      status: "COMPLETED",
      amount,
      to: chainTx.toAddress,
      txHash: decision.hash,
      transferId: chainTx.transferId,
    });
    return;
  }
  const after = await updatePayment(tx, p.id, {
    status: "REFUNDED",
    refundStatus: "COMPLETED",
    refundTxHash: decision.hash,
  });
  if (!after) return;
  await emitRefundChange(tx, after, {
    status: "COMPLETED",
    amount,
    to: chainTx.toAddress,
    txHash: decision.hash,
    transferId: null,
  });
  await emitStatusChange(tx, after, p.status);
};

/** Operator: a refund the chain refused (FAILED) is decided again and sent anew, at a new nonce. */
export async function retryRefund(paymentId: string): Promise<string[]> {
  const retried = await db().transaction(async (tx) => {
    const p = await lockPayment(tx, paymentId);
    if (!p) throw new NotFound("Crypto-PIX payment not found");
    let any = false;
    if (p.refundStatus === "FAILED") {
      await updatePayment(tx, p.id, { refundStatus: "PENDING" });
      any = true;
    }
    const transfers = await tx.execute<{ id: string }>(
      sql`update chain_transfers set refund_status = 'PENDING' where owner_id = ${p.id} and refund_status = 'FAILED' returning id`,
    );
    return any || transfers.length > 0;
  });
  if (!retried) throw new Conflict("This payment has no failed refund to retry");
  return sendDecidedRefunds(paymentId);
}
