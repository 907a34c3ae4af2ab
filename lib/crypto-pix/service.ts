import { sql } from "drizzle-orm";
import { db, type Tx } from "@/db";
import type { CryptoPixPayment, MerchantProfile } from "@/db/schema";
import { allocateDepositAddress } from "@/lib/chain/addresses";
import { belowMinimum, minimumDeposit, resolveToken } from "@/lib/chain/networks";
import { broadcastSigned, signHotWalletTransfer } from "@/lib/hot-wallet/send";
import { recordTransfer, type IncomingTransfer } from "@/lib/chain/transfers";
import { env } from "@/lib/env";
import { Conflict, InvalidInput, NotFound } from "@/lib/errors";
import { recordEvent } from "@/lib/events/outbox";
import { log } from "@/lib/log";
import { centavosForCrypto, centavosToBrl, cryptoAdd, cryptoCompare, cryptoDueFor, cryptoMin, cryptoSub } from "@/lib/money";
import { BrCodeError, parseBrCode } from "@/lib/pix/brcode";
import { providers } from "@/lib/providers";
import type { Network } from "@/lib/chain/tokens";
import {
  claimPayout,
  closePayment,
  firstSender,
  insertPayment,
  lockExpiredUnpaid,
  lockPayment,
  merchantPaymentById,
  noteTransferUse,
  paymentById,
  unsettledPaymentIds,
  updatePayment,
} from "./queries";
import { CRYPTO_PIX_NETWORKS, type PayCryptoPixInput } from "./schemas";
import { cryptoPixView } from "./views";

/** Reads the payer's BR Code, fixes the rate, and opens a deposit address for the crypto. */
export async function createCryptoPixPayment(merchant: MerchantProfile, input: PayCryptoPixInput): Promise<CryptoPixPayment> {
  let parsed;
  try {
    parsed = parseBrCode(input.qrcode);
  } catch (err) {
    if (err instanceof BrCodeError) throw new InvalidInput(`Invalid PIX QR code: ${err.message}`);
    throw err;
  }
  let pixKey = parsed.pixKey;
  let codeAmount = parsed.amountCentavos;
  let pixTxid = parsed.txid;
  if (parsed.kind === "dynamic") {
    const resolved = await providers().pix.resolveDynamic(parsed);
    pixKey = resolved.pixKey;
    codeAmount = resolved.amountCentavos ?? codeAmount;
    pixTxid = resolved.txid ?? pixTxid;
  }
  if (!pixKey) throw new InvalidInput("Invalid PIX QR code: it carries no PIX key");
  if (codeAmount !== null && input.value !== undefined && input.value !== codeAmount) {
    throw new InvalidInput(`value ${centavosToBrl(input.value)} contradicts the amount in the PIX QR code (${centavosToBrl(codeAmount)})`);
  }
  const valueCentavos = codeAmount ?? input.value;
  if (valueCentavos === undefined) {
    throw new InvalidInput("This PIX QR code has no amount: send value (BRL) with the request");
  }
  if (valueCentavos > Math.round(env().MAX_ORDER_VALUE_BRL * 100)) {
    throw new InvalidInput(`The amount is above the maximum of ${env().MAX_ORDER_VALUE_BRL} BRL`);
  }
  const { network, asset, token } = resolveToken(String(input.network ?? ""), input.asset === undefined ? "USDT" : String(input.asset), CRYPTO_PIX_NETWORKS);
  const quote = await providers().rates.quote(asset);
  const amount = cryptoDueFor(valueCentavos, quote.rate);
  if (belowMinimum(amount, network)) {
    throw new InvalidInput(`Computed crypto value is invalid: ${amount} ${asset} is below the minimum of ${minimumDeposit(network)} ${asset} on ${network}`);
  }
  return db().transaction(async (tx) => {
    const { walletIndex, address } = await allocateDepositAddress(tx, "crypto_pix");
    return insertPayment(tx, {
      merchantId: merchant.id,
      network,
      asset,
      tokenAddress: token.address,
      tokenDecimals: token.decimals,
      address,
      walletIndex,
      qrcode: input.qrcode,
      pixKey: pixKey!,
      recipientName: parsed.merchantName,
      recipientCity: parsed.merchantCity,
      pixTxid,
      valueCentavos,
      cryptoAmount: amount,
      rate: quote.rate,
      rateSource: quote.source,
      rateAt: quote.at,
      refundAddress: input.refundAddress ?? null,
      expiresAt: new Date(Date.now() + env().EXPIRY_CRYPTO_PIX_SECONDS * 1000),
    });
  });
}

export async function findCryptoPixPayment(merchantId: string, id: string): Promise<CryptoPixPayment> {
  const row = await merchantPaymentById(db(), merchantId, id);
  if (!row) throw new NotFound("Crypto-PIX payment not found");
  return paymentExpiredOnRead(row);
}

/** The payment as it stands: an open, unpaid one past its expiry is closed first, since the sweep may not have run yet. */
export async function paymentExpiredOnRead(row: CryptoPixPayment): Promise<CryptoPixPayment> {
  if (row.closedAt || row.expiresAt.getTime() >= Date.now() || cryptoCompare(row.receivedAmount, row.cryptoAmount) >= 0) return row;
  await expireCryptoPixPayments([row.id]);
  return (await paymentById(db(), row.id))!;
}

async function emit(tx: Tx, p: CryptoPixPayment, previousStatus: string) {
  await recordEvent(tx, {
    merchantId: p.merchantId,
    type: "crypto_pix.status_changed",
    subjectType: "crypto_pix",
    subjectId: p.id,
    data: { ...cryptoPixView(p), previousStatus },
  });
}

type PendingBroadcast = { network: Network; rawTransaction: string } | null;

/**
 * Sends back everything the payer sent for this payment, to the refund address or else to where the
 * crypto came from, and marks it REFUNDED. Runs in the caller's transaction; returns the signed
 * transaction to broadcast after commit.
 */
async function refund(tx: Tx, p: CryptoPixPayment, reason: string): Promise<{ after: CryptoPixPayment; broadcast: PendingBroadcast }> {
  const total = cryptoAdd(p.receivedAmount, p.unappliedAmount);
  const to = p.refundAddress ?? (await firstSender(tx, p.id));
  let signed: { txHash: string; rawTransaction: string } | null = null;
  if (to && cryptoCompare(total, "0") > 0) {
    signed = await signHotWalletTransfer(tx, { network: p.network as Network, tokenAddress: p.tokenAddress, decimals: p.tokenDecimals, to, amount: total });
  }
  const after = await closePayment(tx, p.id, {
    status: "REFUNDED",
    refundTxHash: signed?.txHash ?? null,
    failureReason: to ? reason : `${reason}; no address to refund to`,
  });
  if (!after) return { after: p, broadcast: null };
  await emit(tx, after, p.status);
  return { after, broadcast: signed ? { network: p.network as Network, rawTransaction: signed.rawTransaction } : null };
}

/** Expired and not fully paid: nothing received → FAILED; partially paid → refunded (CONTRACT §6). */
export async function expireCryptoPixPayments(ids?: string[], batch = 200): Promise<number> {
  const broadcasts: PendingBroadcast[] = [];
  const n = await db().transaction(async (tx) => {
    const due = await lockExpiredUnpaid(tx, ids, batch);
    for (const p of due) {
      if (p.status === "PARTIAL_ORDER") {
        broadcasts.push((await refund(tx, p, "expired before the full amount arrived")).broadcast);
      } else {
        const after = await closePayment(tx, p.id, { status: "FAILED", failureReason: "expired with no payment" });
        if (after) await emit(tx, after, p.status);
      }
    }
    return due.length;
  });
  for (const b of broadcasts) if (b) await broadcastSigned(b.network, b.rawTransaction);
  return n;
}

/**
 * Applies one confirmed crypto transfer. A partial amount gives PARTIAL_ORDER with the partial
 * fields; the full amount leaves the payment waiting for its PIX payout (settleCryptoPixPayment).
 */
export async function applyCryptoPixTransfer(paymentId: string, transfer: IncomingTransfer) {
  return db().transaction(async (tx) => {
    const p = await lockPayment(tx, paymentId);
    if (!p) throw new NotFound("Crypto-PIX payment not found");
    const transferId = await recordTransfer(tx, { ...transfer, ownerKind: "crypto_pix", ownerId: p.id });
    if (!transferId) return { payment: p, duplicate: true, fullyPaid: false };

    const expired = p.expiresAt.getTime() < Date.now();
    const open = !p.closedAt && !expired && cryptoCompare(p.receivedAmount, p.cryptoAmount) < 0;
    const remaining = open ? cryptoSub(p.cryptoAmount, p.receivedAmount) : "0";
    const applied = open ? cryptoMin(transfer.amount, remaining) : "0";
    const unapplied = cryptoSub(transfer.amount, applied);
    const received = cryptoAdd(p.receivedAmount, applied);
    const fullyPaid = open && cryptoCompare(received, p.cryptoAmount) >= 0;

    let after = p;
    if (cryptoCompare(applied, "0") > 0) {
      after = (await updatePayment(tx, p.id, {
        receivedAmount: received,
        txHash: transfer.txHash.toLowerCase(),
        ...(fullyPaid ? {} : { status: "PARTIAL_ORDER" as const, partialBrlCentavos: centavosForCrypto(received, p.rate), partialUpdatedAt: sql`now()` }),
      }))!;
      if (!fullyPaid) await emit(tx, after, p.status);
    }
    await noteTransferUse(tx, transferId, applied, unapplied);
    if (cryptoCompare(unapplied, "0") > 0) {
      after = (await updatePayment(tx, p.id, { unappliedAmount: cryptoAdd(after.unappliedAmount, unapplied) }))!;
      await recordEvent(tx, {
        merchantId: p.merchantId,
        type: "crypto_pix.funds_unapplied",
        subjectType: "crypto_pix",
        subjectId: p.id,
        data: { ...cryptoPixView(after), unappliedAmount: Number(unapplied), txHash: transfer.txHash, reason: open ? "overpayment" : "after_final" },
      });
    }
    return { payment: after, duplicate: false, fullyPaid };
  });
}

/**
 * Pays the PIX recipient once the full crypto amount is in. Claimed with a conditional UPDATE so a
 * payout is requested once however many workers try; a failed payout refunds the crypto.
 */
export async function settleCryptoPixPayment(paymentId: string, opts: { failPix?: boolean } = {}): Promise<CryptoPixPayment> {
  const claimed = await claimPayout(db(), paymentId);
  if (!claimed) {
    const current = await paymentById(db(), paymentId);
    if (!current) throw new NotFound("Crypto-PIX payment not found");
    if (current.closedAt || current.pixPayoutId) return current;
    throw new Conflict("The full crypto amount has not arrived yet");
  }
  let result: { id: string; status: "COMPLETED" | "FAILED"; reason?: string };
  if (opts.failPix) {
    result = { id: "", status: "FAILED", reason: "PIX payout failed (sandbox failPix)" };
  } else {
    try {
      result = await providers().pix.sendPayout({ pixKey: claimed.pixKey, valueCentavos: claimed.valueCentavos, reference: claimed.id });
    } catch (err) {
      log.warn("crypto-pix payout error", { paymentId, err });
      result = { id: "", status: "FAILED", reason: "PIX payout could not be sent" };
    }
  }
  let broadcast: PendingBroadcast = null;
  const after = await db().transaction(async (tx) => {
    const p = (await lockPayment(tx, paymentId))!;
    if (result.status === "COMPLETED") {
      const done = await closePayment(tx, paymentId, { status: "COMPLETED", pixPayoutId: result.id });
      if (done) await emit(tx, done, p.status);
      return done ?? p;
    }
    const refunded = await refund(tx, p, result.reason ?? "PIX payout failed");
    broadcast = refunded.broadcast;
    return refunded.after;
  });
  const pending = broadcast as PendingBroadcast;
  if (pending) await broadcastSigned(pending.network, pending.rawTransaction);
  return after;
}

/** The sweep's step: fully paid payments whose payout was never requested (a crash, a failed call) are settled. */
export async function settleFullyPaidPayments(limit = 100): Promise<number> {
  const unsettled = await unsettledPaymentIds(db(), limit);
  for (const id of unsettled) await settleCryptoPixPayment(id);
  return unsettled.length;
}
