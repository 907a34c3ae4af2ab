import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { db, type Tx } from "@/db";
import { onReadReplica } from "@/db/replica";
import { type MerchantProfile, type Withdrawal } from "@/db/schema";
import { keysetPage } from "@/lib/paging";
import { isUuid } from "@/lib/ids";
import { resolveToken } from "@/lib/chain/networks";
import { chainTxsOfOwner } from "@/lib/hot-wallet/queries";
import { advanceChainTx, type ChainTxOwners } from "@/lib/hot-wallet/tracker";
import { createChainTx, planSend, sendChainTx } from "@/lib/hot-wallet/transactions";
import { payoutOf } from "@/lib/pix-payouts/queries";
import { advancePayout, createPayout, requestPayout, type PayoutOwners } from "@/lib/pix-payouts/machine";
import { env } from "@/lib/env";
import { InvalidInput, NotFound } from "@/lib/errors";
import { recordEvent } from "@/lib/events/outbox";
import { bindIdempotencyKey } from "@/lib/idempotency-binding";
import { postLedgerEntry } from "@/lib/ledger/ledger";
import { Decimal, serviceFeeCentavos, tokensForWithdrawal } from "@/lib/money";
import { classifyPixKey } from "@/lib/pix/keys";
import { providers } from "@/lib/providers";
import { audit } from "@/lib/identity/audit";
import { queueWithdrawalMail } from "@/lib/identity/money-mail";
import { deliverQueuedSoon } from "@/lib/mail/mailer";
import { gateDestination, originLocale, waitingReasonFor, type Gate, type WithdrawalOrigin } from "./destination-gate";
import { lockAndCheck } from "./limits";
import { insertWithdrawal, merchantWithdrawalById, updatePending, withdrawalById, withdrawalsPage } from "./queries";
import { WITHDRAW_NETWORKS, type OnchainWithdrawInput, type PixOutInput } from "./schemas";
import { withdrawalView } from "./views";
import { requireRail } from "@/lib/providers/rails";

const eventType = (w: Withdrawal) =>
  w.kind === "onchain" ? "withdrawal.onchain.status_changed" : "withdrawal.pix_out.status_changed";

export async function emit(tx: Tx, w: Withdrawal, previousStatus: string | null) {
  await recordEvent(tx, {
    merchantId: w.merchantId,
    type: eventType(w),
    subjectType: "withdrawal",
    subjectId: w.id,
    data: { ...withdrawalView(w), previousStatus },
  });
}

/** Fields of a withdrawal that waits for `held` (./release.ts sends it), or none when it goes now. */
const waiting = (gate: Gate) =>
  gate.held ? { waitingDestinationId: gate.held.id, waitingReason: waitingReasonFor(gate.held) } : {};

/**
 * In the withdrawal's transaction: its audit row, naming the destination and whether it waits, and
 * the mail to the owners and admins, so neither can be missing for a withdrawal that committed, and
 * a replayed Idempotency-Key (answered from the stored response) writes neither twice.
 */
async function recordRequest(tx: Tx, origin: WithdrawalOrigin, w: Withdrawal, gate: Gate) {
  const destination = w.kind === "onchain" ? { toAddress: w.toAddress, network: w.network } : { pixKey: w.pixKey };
  await audit(
    origin.actor,
    "withdrawal.requested",
    w.id,
    {
      kind: w.kind,
      valueCentavos: w.valueCentavos,
      ...destination,
      newDestination: gate.added !== null,
      ...(gate.held ? { waitsFor: gate.held.id, holdUntil: gate.held.holdUntil!.toISOString() } : {}),
    },
    tx,
  );
  await queueWithdrawalMail(tx, origin.actor, originLocale(origin), w, gate.held?.holdUntil ?? null);
}

/** In the caller's transaction: the on-chain withdrawal's hot-wallet transaction, nonce and first signed version. */
export async function makeChainTx(
  tx: Tx,
  plan: Awaited<ReturnType<typeof planSend>>,
  w: Pick<Withdrawal, "id" | "toAddress" | "tokenAmount" | "tokenAddress">,
  decimals: number,
) {
  return createChainTx(tx, plan, {
    purpose: "withdrawal",
    ownerKind: "withdrawal",
    ownerId: w.id,
    token: { address: w.tokenAddress!, decimals },
    to: w.toAddress!,
    amount: w.tokenAmount!,
  });
}

/** In the caller's transaction: the pix-out's payout, to be requested after commit. */
export function makePayout(tx: Tx, w: Pick<Withdrawal, "id" | "merchantId" | "pixKey" | "valueCentavos">) {
  return createPayout(tx, {
    purpose: "withdrawal",
    ownerId: w.id,
    merchantId: w.merchantId,
    pixKey: w.pixKey!,
    valueCentavos: w.valueCentavos,
  });
}

/** After commit: a sandbox pix-out stays PENDING a moment, as a PSP's would; a live one is sent at once. */
export const requestPixOut = (payoutId: string) =>
  requestPayout(payoutId, env().PAYMENTS_MODE === "sandbox" ? env().SANDBOX_SETTLE_SECONDS : 0);

/**
 * On-chain withdrawal: the debit (value + 0.5% + network fee, fixed now), the limit checks, the
 * destination's (./destination-gate.ts), the hot-wallet transaction with its nonce and signed first
 * version (none yet when it waits for a held destination), the withdrawal row, its event, its audit
 * row and mail, and the request's Idempotency-Key, bound to it, commit together; the transaction is broadcast after commit and followed by the chain-tx job until a
 * receipt decides it (lib/hot-wallet). The node is asked what it must be asked before the database
 * transaction begins.
 */
export async function initiateOnchainWithdrawal(
  merchant: MerchantProfile,
  input: OnchainWithdrawInput,
  origin: WithdrawalOrigin,
): Promise<Withdrawal> {
  requireRail("onchain_withdrawal");
  const { network, asset, token } = resolveToken(
    String(input.network ?? ""),
    input.token === undefined ? "USDT" : String(input.token),
    WITHDRAW_NETWORKS,
  );
  const { rates, chain } = providers();
  const quote = await rates.quote(asset);
  const tokenAmount = tokensForWithdrawal(input.value, quote.rate, token.decimals);
  if (!new Decimal(tokenAmount).gt(0))
    throw new InvalidInput("Withdrawal value is too small to send any tokens", { code: "amount.tooSmallForTokens" });
  const plan = await planSend(network);
  const networkFee = await chain.quoteNetworkFeeCentavos(network, plan.fees);
  const serviceFee = serviceFeeCentavos(input.value);
  const debit = input.value + serviceFee + networkFee;

  const id = randomUUID();
  const made = await db().transaction(async (tx) => {
    const { day, merchant: locked } = await lockAndCheck(tx, merchant.id, input.value, debit);
    const gate = await gateDestination(
      tx,
      locked,
      { kind: "chain_address", value: input.toAddress.toLowerCase() },
      origin,
    );
    const fields = {
      id,
      toAddress: input.toAddress,
      tokenAmount,
      tokenAddress: token.address,
      merchantId: merchant.id,
    };
    // A withdrawal that waits for its destination has no transaction yet: ./release.ts makes it.
    const sent = gate.held ? null : await makeChainTx(tx, plan, fields, token.decimals);
    const w = await insertWithdrawal(tx, {
      ...fields,
      kind: "onchain",
      valueCentavos: input.value,
      serviceFeeCentavos: serviceFee,
      networkFeeCentavos: networkFee,
      debitCentavos: debit,
      limitDay: day,
      network,
      token: asset,
      rate: quote.rate,
      txHash: sent?.hash ?? null,
      nonce: sent?.chainTx.nonce ?? null,
      metadata: input.metadata ?? {},
      ...waiting(gate),
    });
    await postLedgerEntry(tx, {
      merchantId: merchant.id,
      kind: "withdrawal_debit",
      amountCentavos: -debit,
      refType: "withdrawal",
      refId: w.id,
    });
    await emit(tx, w, null);
    await recordRequest(tx, origin, w, gate);
    await bindIdempotencyKey(tx, { type: "withdrawal", id: w.id });
    return { withdrawal: w, chainTxId: sent?.chainTx.id ?? null };
  });
  deliverQueuedSoon();
  if (made.chainTxId) await sendChainTx(made.chainTxId, { followAfterSeconds: env().SANDBOX_SETTLE_SECONDS });
  return made.withdrawal;
}

/**
 * PIX withdrawal to a key, or to the merchant's registered key when none is given: the destination
 * checked (./destination-gate.ts), debited, its payout recorded (unless it waits for a held
 * destination), audited and mailed, and the request's Idempotency-Key bound to it, in one transaction.
 */
export async function createPixOut(
  merchant: MerchantProfile,
  input: PixOutInput,
  origin: WithdrawalOrigin,
): Promise<Withdrawal> {
  requireRail("pix_out");
  const rawKey = input.pixKey ?? merchant.pixKey;
  if (!rawKey)
    throw new InvalidInput("No pixKey was given and the merchant has no registered PIX key", { code: "pixKey.none" });
  const key = classifyPixKey(rawKey);
  if (!key) {
    throw new InvalidInput("Invalid PIX key: use a CPF, CNPJ, e-mail, phone (+55 and area code) or random (EVP) key", {
      code: "pixKey.invalid",
    });
  }
  const made = await db().transaction(async (tx) => {
    const { day, merchant: locked } = await lockAndCheck(tx, merchant.id, input.value, input.value);
    const gate = await gateDestination(tx, locked, { kind: "pix_key", value: key.normalized }, origin);
    const w = await insertWithdrawal(tx, {
      merchantId: merchant.id,
      kind: "pix_out",
      valueCentavos: input.value,
      debitCentavos: input.value,
      limitDay: day,
      pixKey: key.normalized,
      pixKeyType: key.type,
      metadata: input.metadata ?? {},
      ...waiting(gate),
    });
    // A withdrawal that waits for its destination has no payout yet: ./release.ts makes it.
    const payout = gate.held ? null : await makePayout(tx, w);
    await postLedgerEntry(tx, {
      merchantId: merchant.id,
      kind: "withdrawal_debit",
      amountCentavos: -input.value,
      refType: "withdrawal",
      refId: w.id,
    });
    await emit(tx, w, null);
    await recordRequest(tx, origin, w, gate);
    await bindIdempotencyKey(tx, { type: "withdrawal", id: w.id });
    return { withdrawal: w, payoutId: payout?.id ?? null };
  });
  deliverQueuedSoon();
  if (made.payoutId) await requestPixOut(made.payoutId);
  return made.withdrawal;
}

type Ending =
  | { status: "COMPLETED"; txHash?: string; providerRef?: string | null }
  | { status: "FAILED"; reason: string; creditBack: "all" | "all-but-network-fee" };

/**
 * PENDING → COMPLETED, or → FAILED with what was not spent credited back (which also frees the
 * daily limit), in the caller's transaction.
 */
async function finish(tx: Tx, id: string, outcome: Ending) {
  const w = await updatePending(tx, id, {
    status: outcome.status,
    failureReason: outcome.status === "FAILED" ? outcome.reason : null,
    ...(outcome.status === "COMPLETED" && outcome.txHash ? { txHash: outcome.txHash } : {}),
    ...(outcome.status === "COMPLETED" && outcome.providerRef ? { providerRef: outcome.providerRef } : {}),
    completedAt: outcome.status === "COMPLETED" ? sql`now()` : null,
  });
  if (!w) return null;
  if (outcome.status === "FAILED") {
    // A reverted transaction was mined: its gas is spent, so the network fee is not given back.
    const credit = outcome.creditBack === "all" ? w.debitCentavos : w.debitCentavos - w.networkFeeCentavos;
    if (credit > 0)
      await postLedgerEntry(tx, {
        merchantId: w.merchantId,
        kind: "withdrawal_reversal",
        amountCentavos: credit,
        refType: "withdrawal",
        refId: w.id,
      });
  }
  await emit(tx, w, "PENDING");
  return w;
}

/** The withdrawal's hot-wallet transaction was decided (lib/hot-wallet/tracker.ts). */
export const onWithdrawalChainTx: ChainTxOwners["withdrawal"] = async (tx, chainTx, decision) => {
  if (!chainTx.ownerId) return;
  if (decision.status === "confirmed")
    await finish(tx, chainTx.ownerId, { status: "COMPLETED", txHash: decision.hash });
  else if (decision.status === "reverted")
    await finish(tx, chainTx.ownerId, { status: "FAILED", reason: decision.reason, creditBack: "all-but-network-fee" });
  else await finish(tx, chainTx.ownerId, { status: "FAILED", reason: decision.reason, creditBack: "all" });
};

/** The pix-out's payout was decided (lib/pix-payouts/machine.ts): money goes back only when the provider says it was not made. */
export const onWithdrawalPayout: PayoutOwners["withdrawal"] = async (tx, payout, decision) => {
  if (decision.status === "completed")
    await finish(tx, payout.ownerId, { status: "COMPLETED", providerRef: decision.providerRef });
  else await finish(tx, payout.ownerId, { status: "FAILED", reason: decision.reason, creditBack: "all" });
};

/**
 * Moves one PENDING withdrawal forward once: a pix-out's payout is sent or read back; an on-chain
 * one's transaction is broadcast, replaced or decided. Returns true when it reached a final state.
 */
export async function processWithdrawal(id: string): Promise<boolean> {
  const w = await withdrawalById(db(), id);
  if (!w || w.status !== "PENDING") return true;
  if (w.kind === "pix_out") {
    const payout = await payoutOf(db(), "withdrawal", id);
    return payout ? advancePayout(payout.id, { withdrawal: onWithdrawalPayout }) : false;
  }
  const [chainTx] = await chainTxsOfOwner(db(), id);
  return chainTx ? advanceChainTx(chainTx.id, { withdrawal: onWithdrawalChainTx }) : false;
}

export async function findWithdrawal(merchantId: string, id: string): Promise<Withdrawal> {
  if (!isUuid(id)) throw new NotFound("Withdrawal not found");
  const w = await merchantWithdrawalById(db(), merchantId, id);
  if (!w) throw new NotFound("Withdrawal not found");
  return w;
}

/** Newest first, keyset-paginated; a list, so from the replica when one is close enough (db/replica.ts). */
export async function listWithdrawals(merchantId: string, limit: number, cursor?: string) {
  const rows = await onReadReplica((ex) => withdrawalsPage(ex, merchantId, limit, cursor));
  const { page, nextCursor } = keysetPage(rows, limit, (w) => ({ at: w.createdAt, id: w.id }));
  return { withdrawals: page, nextCursor };
}
