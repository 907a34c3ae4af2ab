import { db, type Tx } from "@/db";
import type { ChainTx, ChainTxAttempt } from "@/db/schema";
import { maxFeeCapWei } from "@/lib/chain/config";
import { depositPrivateKeyOf } from "@/lib/chain/deposit-keys";
import type { Network } from "@/lib/chain/tokens";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { providers } from "@/lib/providers";
import type { Fees } from "@/lib/providers/chain/types";
import { attemptsOf, chainTxById, decideChainTx, insertAttempt, leaseChainTx, releaseChainTx } from "./queries";
import { heldBefore } from "./float";
import { broadcastAttempt } from "./transactions";

// Follows a hot-wallet transaction to its end, deciding by receipts only (docs/providers.md#chain-evm):
//  - one of its versions mined with success and confirmed → confirmed;
//  - mined and reverted, confirmed → reverted (the nonce is used and the gas spent);
//  - its nonce used, at the safe head, by a transaction that is none of its payment versions (its
//    cancellation, or one sent outside this service) → superseded;
//  - otherwise pending: sent again when no node holds its newest version, replaced at the same nonce
//    with fees at least 12.5% higher when CHAIN_REPLACE_AFTER_BLOCKS blocks pass without it being
//    mined (never above CHAIN_MAX_FEE_GWEI_<NET>: there it waits, and `attention` says why).
// A timeout or a reset from the node is never a decision: the next check asks again.

/** The decision a transaction came to, handed to its owner in the same database transaction. */
export type ChainTxDecision =
  | { status: "confirmed"; hash: string }
  | { status: "reverted"; hash: string; reason: string }
  | { status: "superseded"; hash: string | null; reason: string };

/** What each kind of owner does when its transaction is decided (the worker's composition root supplies them). */
export type ChainTxOwners = Partial<
  Record<"withdrawal" | "refund", (tx: Tx, chainTx: ChainTx, decision: ChainTxDecision) => Promise<void>>
>;

const LEASE_SECONDS = 60;
/** Replacements must pay at least this much more than what they replace (geth asks 10%, some nodes more). */
const BUMP_NUMERATOR = 1125n;
const BUMP_DENOMINATOR = 1000n;

/** Checks one transaction once; true when it is decided (or was already). */
export async function advanceChainTx(id: string, owners: ChainTxOwners): Promise<boolean> {
  const chainTx = await leaseChainTx(db(), id, LEASE_SECONDS);
  if (!chainTx) {
    // Decided, or another worker holds it right now.
    const row = await chainTxById(db(), id);
    return row !== undefined && row.status !== "pending";
  }
  // Left as it is unless this check learns something new about it.
  let attention: { attention: string | null } | undefined;
  try {
    const attempts = await attemptsOf(db(), id);
    const outcome = await check(chainTx, attempts);
    if (outcome.kind === "decided") {
      await decide(chainTx, outcome.decision, owners);
      return true;
    }
    attention = { attention: outcome.attention };
    return false;
  } catch (err) {
    log.warn("chain transaction check failed; it is checked again", { chainTxId: id, err });
    return false;
  } finally {
    await releaseChainTx(db(), id, attention).catch(() => {});
  }
}

type Outcome = { kind: "decided"; decision: ChainTxDecision } | { kind: "waiting"; attention: string | null };

async function check(chainTx: ChainTx, attempts: ChainTxAttempt[]): Promise<Outcome> {
  const chain = providers().chain;
  const network = chainTx.network as Network;
  const latest = attempts[attempts.length - 1];
  const state = await chain.nonceState(network, {
    nonce: chainTx.nonce,
    hashes: attempts.map((a) => a.hash),
    sentAt: attempts[0].createdAt,
    from: chainTx.fromAddress as `0x${string}`,
  });

  if (state.state === "mined") {
    if (!state.final) return { kind: "waiting", attention: null };
    const mined = attempts.find((a) => a.hash === state.hash);
    if (mined?.kind === "cancellation")
      return decided({
        status: "superseded",
        hash: state.hash,
        reason: "cancelled: a zero-value transaction at its nonce was mined instead",
      });
    return decided(
      state.success
        ? { status: "confirmed", hash: state.hash }
        : { status: "reverted", hash: state.hash, reason: "transaction reverted on-chain" },
    );
  }
  if (state.state === "taken") {
    return decided({
      status: "superseded",
      hash: null,
      reason: "another transaction used its nonce (sent outside this service)",
    });
  }

  // Pending. Not mined CHAIN_REPLACE_AFTER_BLOCKS blocks after this version was first sent (nodes
  // may also drop one that pays too little): a new version at the same nonce pays more.
  const head = await chain.headBlock(network);
  const dropped = !latest.broadcastAt || !state.known.includes(latest.hash);
  let attention: string | null = null;
  const due =
    latest.broadcastBlock !== null && head - BigInt(latest.broadcastBlock) >= BigInt(env().CHAIN_REPLACE_AFTER_BLOCKS);
  const signer = unsignableReason(chainTx);
  if (due && signer) attention = signer;
  else if (due && !(await heldBefore(db(), chainTx.nonceScope, chainTx.nonce))) {
    const replaced = await replace(chainTx, latest, latest.kind);
    if (replaced.replaced || !dropped) return replaced.outcome;
    attention = replaced.outcome.kind === "waiting" ? replaced.outcome.attention : null;
  }
  // A version no node holds any more (dropped, or never broadcast) is sent again.
  if (dropped) {
    const answer = await broadcastAttempt(chainTx, latest);
    if (answer.result === "rejected")
      return { kind: "waiting", attention: attention ?? `the node refuses it: ${answer.reason}` };
  }
  return { kind: "waiting", attention };
}

const decided = (decision: ChainTxDecision): Outcome => ({ kind: "decided", decision });

/** Fees for the next version: the current estimate, but at least 12.5% over the one it replaces, and never over the cap. */
export function replacementFees(previous: Fees, estimate: Fees, capWei: bigint): Fees | null {
  const bump = (v: bigint) => (v * BUMP_NUMERATOR + BUMP_DENOMINATOR - 1n) / BUMP_DENOMINATOR;
  const maxFeePerGas = maxBig(estimate.maxFeePerGas, bump(previous.maxFeePerGas));
  const maxPriorityFeePerGas = maxBig(estimate.maxPriorityFeePerGas, bump(previous.maxPriorityFeePerGas));
  if (maxFeePerGas > capWei) return null;
  return { maxFeePerGas, maxPriorityFeePerGas: minBig(maxPriorityFeePerGas, maxFeePerGas) };
}

/** Signs a new version at the same nonce (a payment, or a cancellation) with higher fees, records it, and broadcasts it. */
async function replace(
  chainTx: ChainTx,
  latest: ChainTxAttempt,
  kind: ChainTxAttempt["kind"],
): Promise<{ replaced: boolean; outcome: Outcome }> {
  const chain = providers().chain;
  const network = chainTx.network as Network;
  const previous = {
    maxFeePerGas: BigInt(latest.maxFeePerGas),
    maxPriorityFeePerGas: BigInt(latest.maxPriorityFeePerGas),
  };
  const unsignable = unsignableReason(chainTx);
  if (unsignable) return { replaced: false, outcome: { kind: "waiting", attention: unsignable } };
  const fees = replacementFees(previous, await chain.fees(network, { fresh: true }), maxFeeCapWei(network));
  if (!fees) {
    const message = `not mined after ${env().CHAIN_REPLACE_AFTER_BLOCKS} blocks, and a replacement would pay more than CHAIN_MAX_FEE_GWEI_${network.toUpperCase()}: waiting`;
    if (chainTx.attention !== message)
      log.error("hot-wallet transaction stuck at the fee cap", {
        chainTxId: chainTx.id,
        network,
        nonce: chainTx.nonce,
      });
    return { replaced: false, outcome: { kind: "waiting", attention: message } };
  }
  const signed = await signVersion(chainTx, kind, fees);
  const attempt = await insertAttempt(db(), {
    chainTxId: chainTx.id,
    kind,
    hash: signed.hash,
    rawTransaction: signed.rawTransaction,
    maxFeePerGas: fees.maxFeePerGas.toString(),
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString(),
  });
  log.info("hot-wallet transaction replaced with higher fees", {
    chainTxId: chainTx.id,
    network,
    nonce: chainTx.nonce,
    kind,
    hash: signed.hash,
  });
  const answer = await broadcastAttempt(chainTx, attempt);
  if (answer.result === "underpriced")
    return {
      replaced: true,
      outcome: {
        kind: "waiting",
        attention: "the node refused the replacement as underpriced; the next check raises the fees again",
      },
    };
  if (answer.result === "rejected")
    return {
      replaced: true,
      outcome: { kind: "waiting", attention: `the node refuses the replacement: ${answer.reason}` },
    };
  return { replaced: true, outcome: { kind: "waiting", attention: null } };
}

/**
 * Why no new version of this transaction can be signed here, or null. A hot-wallet transaction is
 * signed with the configured hot wallet's key: one sent from another address (the wallet before its
 * key was changed) would get a version paying from the new wallet, at a nonce of the old one's
 * sequence, while the old version can still be mined: paid twice, and the new wallet's own
 * transaction at that nonce lost. Its signed versions are still sent again; nothing new is signed.
 */
function unsignableReason(chainTx: ChainTx): string | null {
  if (chainTx.purpose === "sweep") return null; // signed with the deposit address's own key
  const configured = providers().chain.hotWalletAddress(chainTx.network as Network);
  if (configured.toLowerCase() === chainTx.fromAddress.toLowerCase()) return null;
  return `sent from ${chainTx.fromAddress}, not the configured hot wallet ${configured}: its signed versions are sent again, and no replacement or cancellation can be signed without that wallet's key`;
}

async function signVersion(chainTx: ChainTx, kind: ChainTxAttempt["kind"], fees: Fees) {
  const chain = providers().chain;
  const network = chainTx.network as Network;
  // A sweep is the deposit address's own transaction: its versions are signed with its key (only a
  // process holding DEPOSIT_XPRV_FILE can; elsewhere this throws and the check is tried again later).
  const privateKey = chainTx.purpose === "sweep" ? await depositPrivateKeyOf(db(), chainTx.fromAddress) : undefined;
  if (kind === "cancellation" || !chainTx.tokenAddress) {
    if (chainTx.purpose === "sweep_gas" && kind === "payment")
      return chain.signGasTransfer({
        network,
        to: chainTx.toAddress as `0x${string}`,
        value: BigInt(chainTx.amountBaseUnits!),
        nonce: chainTx.nonce,
        fees,
      });
    return chain.signSelfTransfer({ network, nonce: chainTx.nonce, fees, privateKey });
  }
  return chain.signTransfer({
    privateKey,
    network,
    token: chainTx.tokenAddress as `0x${string}`,
    to: chainTx.toAddress as `0x${string}`,
    amount: BigInt(chainTx.amountBaseUnits!),
    nonce: chainTx.nonce,
    fees,
  });
}

/** Records the decision and hands it to the transaction's owner, in one database transaction. */
async function decide(chainTx: ChainTx, decision: ChainTxDecision, owners: ChainTxOwners): Promise<void> {
  await db().transaction(async (tx) => {
    const row = await decideChainTx(tx, chainTx.id, {
      status: decision.status,
      minedHash: decision.hash,
      failureReason: decision.status === "confirmed" ? null : decision.reason,
      attention:
        chainTx.purpose === "refund" && decision.status !== "confirmed"
          ? `refund ${decision.status}: ${decision.reason}`
          : null,
    });
    // No owner decides anything on these: sweeps are finished by the sweeper's next run (lib/treasury/sweep.ts).
    if (
      !row ||
      row.purpose === "filler" ||
      row.purpose === "treasury" ||
      row.purpose === "sweep_gas" ||
      row.purpose === "sweep"
    )
      return;
    const owner = owners[row.purpose];
    // Rolled back, so the transaction stays pending: a caller that cannot finish it must not decide it.
    if (!owner) throw new Error(`no handler for ${row.purpose} transactions was given`);
    await owner(tx, row, decision);
  });
  log.info("hot-wallet transaction decided", {
    chainTxId: chainTx.id,
    purpose: chainTx.purpose,
    status: decision.status,
    hash: decision.hash,
  });
}

/**
 * Operator: cancels a pending transaction by replacing it, at its nonce, with a zero-value transfer to
 * the hot wallet paying higher fees. Its owner learns the outcome as usual: if the cancellation is
 * mined, the transaction is superseded (a withdrawal fails and is credited back); if the original
 * is mined after all, it stands.
 */
export async function cancelChainTx(id: string): Promise<{ hash: string } | { refused: string }> {
  const chainTx = await leaseChainTx(db(), id, LEASE_SECONDS);
  if (!chainTx) return { refused: "not pending, or being checked right now: try again" };
  try {
    const attempts = await attemptsOf(db(), id);
    const { replaced, outcome } = await replace(chainTx, attempts[attempts.length - 1], "cancellation");
    if (!replaced)
      return {
        refused: outcome.kind === "waiting" && outcome.attention ? outcome.attention : "could not sign a cancellation",
      };
    return { hash: (await attemptsOf(db(), id)).at(-1)!.hash };
  } finally {
    await releaseChainTx(db(), id);
  }
}

const maxBig = (a: bigint, b: bigint) => (a > b ? a : b);
const minBig = (a: bigint, b: bigint) => (a < b ? a : b);
