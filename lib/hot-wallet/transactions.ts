import { sql } from "drizzle-orm";
import { db, type Tx } from "@/db";
import type { ChainTx } from "@/db/schema";
import { reserveNonce } from "@/lib/chain/nonces";
import type { Network } from "@/lib/chain/tokens";
import { jobQueue } from "@/lib/jobs/queue";
import { log } from "@/lib/log";
import { fromBaseUnits, toBaseUnits } from "@/lib/money";
import { providers } from "@/lib/providers";
import type { BroadcastResult, Fees } from "@/lib/providers/chain/types";
import { clearHeld, holdReason, markHeld } from "./float";
import { attemptsOf, chainTxById, insertAttempt, insertChainTx, markBroadcast } from "./queries";

// Sending from the hot wallet (docs/providers.md#chain-evm). A transaction is recorded, with its nonce and its first
// signed version, in the same database transaction as the decision to send it (a withdrawal, a
// refund), before anything is broadcast; then it is broadcast, and the chain-tx job (./tracker.ts)
// follows it until a receipt decides it. The node is asked what it must be asked (fees, where the
// nonce count starts) before that database transaction begins, so no lock is ever held during a
// node call.

/** Follows one transaction to its end (lib/worker works it with advanceChainTx); retried with backoff until decided. */
export const chainTxQueue = jobQueue<{ id: string }>("chain-tx", {
  retryLimit: 10_000,
  retryDelay: 2,
  retryBackoff: true,
  retryDelayMax: 30,
  expireInSeconds: 120,
});

export type ChainSendPlan = {
  network: Network;
  fees: Fees;
  nonceScope: string;
  from: `0x${string}`;
  nonceStart: number | null;
};

/**
 * What must be read from the node before sending on `network`: the fees to offer, and, when the hot
 * wallet has no count of its own in this scope yet (or the key changed), the node's pending nonce.
 * `account` plans a send from another account of ours instead (a deposit address being swept), in
 * that account's own nonce scope.
 */
export async function planSend(network: Network, account?: `0x${string}`): Promise<ChainSendPlan> {
  const chain = providers().chain;
  const nonceScope = chain.nonceScope(network, account);
  const from = account ?? chain.hotWalletAddress(network);
  const fees = await chain.fees(network);
  const [row] = await db().execute<{ address: string }>(
    sql`select address from hot_wallet_nonces where network = ${nonceScope}`,
  );
  const nonceStart = row?.address === from ? null : await chain.pendingNonce(network, account);
  return { network, fees, nonceScope, from, nonceStart };
}

export type NewChainTx =
  | {
      purpose: "withdrawal" | "refund";
      ownerKind: "withdrawal" | "crypto_pix" | "unapplied_return";
      ownerId: string;
      transferId?: string;
      token: { address: string; decimals: number };
      to: string;
      /** Tokens, as an exact decimal string. */
      amount: string;
    }
  /** The float's excess over its target, to the cold address (lib/treasury): no owner decides anything on it. */
  | { purpose: "treasury"; token: { address: string; decimals: number }; to: string; amount: string }
  /** A zero-value transfer to the hot wallet at a nonce nothing of ours uses: fills a gap (./gaps.ts). */
  | { purpose: "filler"; nonce: number }
  /** Native coin from the hot wallet to a deposit address, for the gas of its sweep (lib/treasury/sweep.ts). */
  | { purpose: "sweep_gas"; to: string; valueWei: bigint }
  /** A deposit address's tokens to the hot wallet, signed with its own key: the plan is the deposit address's (planSend's `account`). */
  | {
      purpose: "sweep";
      token: { address: string; decimals: number };
      to: string;
      amount: string;
      privateKey: `0x${string}`;
    };

/**
 * In the caller's transaction: takes the next nonce, signs (locally), and records the transaction
 * and its first version. Nothing leaves the process here; `sendChainTx` broadcasts after commit.
 */
export async function createChainTx(
  tx: Tx,
  plan: ChainSendPlan,
  spec: NewChainTx,
): Promise<{ chainTx: ChainTx; hash: `0x${string}` }> {
  const chain = providers().chain;
  const network = plan.network;
  const account = spec.purpose === "sweep" ? (plan.from as `0x${string}`) : undefined;
  const nonce =
    spec.purpose === "filler"
      ? spec.nonce
      : await reserveNonce(
          tx,
          plan.nonceScope,
          plan.from,
          plan.nonceStart ?? (() => chain.pendingNonce(network, account)),
        );
  const fields =
    spec.purpose === "filler"
      ? { tokenAddress: null, toAddress: plan.from, amount: null, amountBaseUnits: null }
      : spec.purpose === "sweep_gas"
        ? {
            tokenAddress: null,
            toAddress: spec.to,
            amount: fromBaseUnits(spec.valueWei, 18),
            amountBaseUnits: spec.valueWei.toString(),
          }
        : {
            ownerKind: spec.purpose === "treasury" || spec.purpose === "sweep" ? null : spec.ownerKind,
            ownerId: spec.purpose === "treasury" || spec.purpose === "sweep" ? null : spec.ownerId,
            transferId: spec.purpose === "treasury" || spec.purpose === "sweep" ? null : (spec.transferId ?? null),
            tokenAddress: spec.token.address,
            toAddress: spec.to,
            amount: spec.amount,
            amountBaseUnits: toBaseUnits(spec.amount, spec.token.decimals).toString(),
          };
  const signed =
    spec.purpose === "filler"
      ? await chain.signSelfTransfer({ network, nonce, fees: plan.fees })
      : spec.purpose === "sweep_gas"
        ? await chain.signGasTransfer({
            network,
            to: spec.to as `0x${string}`,
            value: spec.valueWei,
            nonce,
            fees: plan.fees,
          })
        : await chain.signTransfer({
            network,
            token: spec.token.address as `0x${string}`,
            to: spec.to as `0x${string}`,
            amount: toBaseUnits(spec.amount, spec.token.decimals),
            nonce,
            fees: plan.fees,
            privateKey: spec.purpose === "sweep" ? spec.privateKey : undefined,
          });
  const chainTx = await insertChainTx(tx, {
    purpose: spec.purpose,
    network,
    nonceScope: plan.nonceScope,
    fromAddress: plan.from,
    nonce,
    ...fields,
  });
  await insertAttempt(tx, {
    chainTxId: chainTx.id,
    hash: signed.hash,
    rawTransaction: signed.rawTransaction,
    maxFeePerGas: plan.fees.maxFeePerGas.toString(),
    maxPriorityFeePerGas: plan.fees.maxPriorityFeePerGas.toString(),
  });
  return { chainTx, hash: signed.hash };
}

/**
 * After the record committed: broadcasts its newest version once and asks the job to follow it.
 * Never throws: the record is there, and the job sends it again while no node has it.
 */
export async function sendChainTx(id: string, opts: { followAfterSeconds?: number } = {}): Promise<void> {
  try {
    const chainTx = await chainTxById(db(), id);
    const latest = chainTx && (await attemptsOf(db(), id)).at(-1);
    if (chainTx && latest) await broadcastAttempt(chainTx, latest);
  } catch (err) {
    log.warn("broadcast failed; the chain-tx job sends it again", { chainTxId: id, err });
  }
  await chainTxQueue.send({ id }, { startAfterSeconds: opts.followAfterSeconds ?? 1, singletonKey: id });
}

/** A node's answer, or "held": not sent, because the hot wallet cannot pay it now (./float.ts). */
export type BroadcastAnswer = BroadcastResult | { result: "held"; reason: string };

/**
 * One broadcast of a signed version; records when (and at which head) the node took it. A token
 * transfer the hot wallet cannot pay is not sent but held, with its reason (./float.ts).
 */
export async function broadcastAttempt(
  chainTx: ChainTx,
  attempt: { id: number; rawTransaction: string },
): Promise<BroadcastAnswer> {
  const chain = providers().chain;
  const network = chainTx.network as Network;
  const held = await holdReason(chainTx, attempt.rawTransaction);
  if (held) {
    await markHeld(chainTx, held);
    return { result: "held", reason: held };
  }
  if (chainTx.heldReason) await clearHeld(chainTx);
  const answer = await chain.broadcast(network, attempt.rawTransaction);
  if (answer.result === "accepted" || answer.result === "known") {
    const head = await chain.headBlock(network).catch(() => null);
    await markBroadcast(db(), attempt.id, head);
  }
  return answer;
}
