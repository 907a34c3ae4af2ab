import { sql } from "drizzle-orm";
import { db, type Tx } from "@/db";
import { withdrawals, type MerchantProfile, type Withdrawal } from "@/db/schema";
import { keysetPage } from "@/lib/paging";
import { isUuid } from "@/lib/ids";
import { resolveToken } from "@/lib/chain/networks";
import { broadcastSigned, signHotWalletTransfer } from "@/lib/hot-wallet/send";
import { env } from "@/lib/env";
import { InvalidInput, NotFound } from "@/lib/errors";
import { recordEvent } from "@/lib/events/outbox";
import { postLedgerEntry } from "@/lib/ledger/ledger";
import { log } from "@/lib/log";
import { Decimal, serviceFeeCentavos, tokensForWithdrawal } from "@/lib/money";
import { classifyPixKey } from "@/lib/pix/keys";
import { providers } from "@/lib/providers";
import type { Network } from "@/lib/chain/tokens";
import { lockAndCheck } from "./limits";
import { insertWithdrawal, merchantWithdrawalById, pendingWithdrawalIds, updatePending, withdrawalById, withdrawalsPage } from "./queries";
import { enqueueWithdrawal } from "./queue";
import { WITHDRAW_NETWORKS, type OnchainWithdrawInput, type PixOutInput } from "./schemas";
import { withdrawalView } from "./views";

const eventType = (w: Withdrawal) => (w.kind === "onchain" ? "withdrawal.onchain.status_changed" : "withdrawal.pix_out.status_changed");

async function emit(tx: Tx, w: Withdrawal, previousStatus: string | null) {
  await recordEvent(tx, {
    merchantId: w.merchantId,
    type: eventType(w),
    subjectType: "withdrawal",
    subjectId: w.id,
    data: { ...withdrawalView(w), previousStatus },
  });
}

/**
 * On-chain withdrawal: the debit (value + 0.5% + network fee, fixed now), the limit checks, the
 * signed transfer with its nonce, the withdrawal row and its event commit together; the transfer is
 * broadcast after commit and confirmed by a job.
 */
export async function initiateOnchainWithdrawal(merchant: MerchantProfile, input: OnchainWithdrawInput): Promise<Withdrawal> {
  const { network, asset, token } = resolveToken(String(input.network ?? ""), input.token === undefined ? "USDT" : String(input.token), WITHDRAW_NETWORKS);
  const { rates, chain } = providers();
  const quote = await rates.quote(asset);
  const tokenAmount = tokensForWithdrawal(input.value, quote.rate, token.decimals);
  if (!new Decimal(tokenAmount).gt(0)) throw new InvalidInput("Withdrawal value is too small to send any tokens");
  const networkFee = await chain.quoteNetworkFeeCentavos(network);
  const serviceFee = serviceFeeCentavos(input.value);
  const debit = input.value + serviceFee + networkFee;

  const { withdrawal, rawTransaction } = await db().transaction(async (tx) => {
    const { day } = await lockAndCheck(tx, merchant.id, input.value, debit);
    const signed = await signHotWalletTransfer(tx, { network, tokenAddress: token.address, decimals: token.decimals, to: input.toAddress, amount: tokenAmount });
    const w = await insertWithdrawal(tx, {
      merchantId: merchant.id,
      kind: "onchain",
      valueCentavos: input.value,
      serviceFeeCentavos: serviceFee,
      networkFeeCentavos: networkFee,
      debitCentavos: debit,
      limitDay: day,
      network,
      token: asset,
      tokenAddress: token.address,
      toAddress: input.toAddress,
      tokenAmount,
      rate: quote.rate,
      txHash: signed.txHash,
      // Kept so the job can send the same transaction again if its broadcast was lost.
      nonce: signed.nonce,
      rawTransaction: signed.rawTransaction,
    });
    await postLedgerEntry(tx, { merchantId: merchant.id, kind: "withdrawal_debit", amountCentavos: -debit, refType: "withdrawal", refId: w.id });
    await emit(tx, w, null);
    return { withdrawal: w, rawTransaction: signed.rawTransaction };
  });
  await broadcastSigned(network, rawTransaction);
  await enqueueWithdrawal(withdrawal.id, env().SANDBOX_SETTLE_SECONDS);
  return withdrawal;
}

/** PIX withdrawal to a key, or to the merchant's registered key when none is given. */
export async function createPixOut(merchant: MerchantProfile, input: PixOutInput): Promise<Withdrawal> {
  const rawKey = input.pixKey ?? merchant.pixKey;
  if (!rawKey) throw new InvalidInput("No pixKey was given and the merchant has no registered PIX key");
  const key = classifyPixKey(rawKey);
  if (!key) {
    throw new InvalidInput("Invalid PIX key: use a CPF, CNPJ, e-mail, phone (+55 and area code) or random (EVP) key");
  }
  const withdrawal = await db().transaction(async (tx) => {
    const { day } = await lockAndCheck(tx, merchant.id, input.value, input.value);
    const w = await insertWithdrawal(tx, {
      merchantId: merchant.id,
      kind: "pix_out",
      valueCentavos: input.value,
      debitCentavos: input.value,
      limitDay: day,
      pixKey: key.normalized,
      pixKeyType: key.type,
    });
    await postLedgerEntry(tx, { merchantId: merchant.id, kind: "withdrawal_debit", amountCentavos: -input.value, refType: "withdrawal", refId: w.id });
    await emit(tx, w, null);
    return w;
  });
  await enqueueWithdrawal(withdrawal.id);
  return withdrawal;
}

/** PENDING → COMPLETED, or → FAILED with the debit credited back (which also frees the daily limit). */
async function finish(id: string, outcome: { status: "COMPLETED" } | { status: "FAILED"; reason: string }, providerRef?: string) {
  return db().transaction(async (tx) => {
    const w = await updatePending(tx, id, {
      status: outcome.status,
      failureReason: outcome.status === "FAILED" ? outcome.reason : null,
      providerRef: providerRef ?? sql`${withdrawals.providerRef}`,
      completedAt: outcome.status === "COMPLETED" ? sql`now()` : null,
    });
    if (!w) return null;
    if (w.status === "FAILED") {
      await postLedgerEntry(tx, { merchantId: w.merchantId, kind: "withdrawal_reversal", amountCentavos: w.debitCentavos, refType: "withdrawal", refId: w.id });
    }
    await emit(tx, w, "PENDING");
    return w;
  });
}

/**
 * Moves one PENDING withdrawal forward: a PIX-out is sent (claimed first so it is sent once); an
 * on-chain one is checked for confirmation. Returns true when it reached a final state.
 */
export async function processWithdrawal(id: string): Promise<boolean> {
  const w = await withdrawalById(db(), id);
  if (!w || w.status !== "PENDING") return true;
  const { pix, chain } = providers();
  if (w.kind === "pix_out") {
    // Claimed first, so the payout is requested once however many workers try.
    const claimed = await updatePending(db(), id, { providerRef: "requested" }, sql`${withdrawals.providerRef} is null`);
    if (!claimed) return false;
    let result;
    try {
      result = await pix.sendPayout({ pixKey: w.pixKey!, valueCentavos: w.valueCentavos, reference: w.id });
    } catch (err) {
      // Unknown outcome: leave it claimed for an operator rather than risk paying twice.
      log.error("pix-out payout error; left for reconciliation", { withdrawalId: id, err });
      return false;
    }
    await finish(id, result.status === "COMPLETED" ? { status: "COMPLETED" } : { status: "FAILED", reason: result.reason ?? "PIX payout failed" }, result.id);
    return true;
  }
  const outcome = await chain.transferOutcome(w.network as Network, w.txHash!, w.createdAt);
  if (outcome.status === "pending") {
    if (outcome.rebroadcast && w.rawTransaction) await broadcastSigned(w.network as Network, w.rawTransaction);
    return false;
  }
  await finish(id, outcome.status === "confirmed" ? { status: "COMPLETED" } : { status: "FAILED", reason: outcome.reason ?? "transaction failed on-chain" });
  return true;
}

/** The sweep's step: every PENDING withdrawal moved forward, each on its own; returns how many became final. */
export async function processPendingWithdrawals(): Promise<number> {
  let finished = 0;
  for (const id of await pendingWithdrawalIds(db(), 0, 200)) {
    try {
      if (await processWithdrawal(id)) finished++;
    } catch (err) {
      log.error("withdrawal processing failed in sweep", { withdrawalId: id, err });
    }
  }
  return finished;
}

export async function findWithdrawal(merchantId: string, id: string): Promise<Withdrawal> {
  if (!isUuid(id)) throw new NotFound("Withdrawal not found");
  const w = await merchantWithdrawalById(db(), merchantId, id);
  if (!w) throw new NotFound("Withdrawal not found");
  return w;
}

/** Newest first, keyset-paginated. */
export async function listWithdrawals(merchantId: string, limit: number, cursor?: string) {
  const rows = await withdrawalsPage(db(), merchantId, limit, cursor);
  const { page, nextCursor } = keysetPage(rows, limit, (w) => ({ at: w.createdAt, id: w.id }));
  return { withdrawals: page, nextCursor };
}
