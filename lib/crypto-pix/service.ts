import { and, asc, eq, inArray, isNull, lt, sql } from "drizzle-orm";
import { db, type Tx } from "@/db";
import { chainTransfers, cryptoPixPayments, type CryptoPixPayment, type MerchantProfile } from "@/db/schema";
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
    throw new InvalidInput(
      `value ${centavosToBrl(input.value)} contradicts the amount in the PIX QR code (${centavosToBrl(codeAmount)})`,
    );
  }
  const valueCentavos = codeAmount ?? input.value;
  if (valueCentavos === undefined) {
    throw new InvalidInput("This PIX QR code has no amount: send value (BRL) with the request");
  }
  if (valueCentavos > Math.round(env().MAX_ORDER_VALUE_BRL * 100)) {
    throw new InvalidInput(`The amount is above the maximum of ${env().MAX_ORDER_VALUE_BRL} BRL`);
  }
  const { network, asset, token } = resolveToken(
    String(input.network ?? ""),
    input.asset === undefined ? "USDT" : String(input.asset),
    CRYPTO_PIX_NETWORKS,
  );
  const quote = await providers().rates.quote(asset);
  const amount = cryptoDueFor(valueCentavos, quote.rate);
  if (belowMinimum(amount, network)) {
    throw new InvalidInput(
      `Computed crypto value is invalid: ${amount} ${asset} is below the minimum of ${minimumDeposit(network)} ${asset} on ${network}`,
    );
  }
  return db().transaction(async (tx) => {
    const { walletIndex, address } = await allocateDepositAddress(tx, "crypto_pix");
    const [payment] = await tx
      .insert(cryptoPixPayments)
      .values({
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
      })
      .returning();
    return payment;
  });
}

export async function findCryptoPixPayment(merchantId: string, id: string): Promise<CryptoPixPayment> {
  const [row] = await db()
    .select()
    .from(cryptoPixPayments)
    .where(and(eq(cryptoPixPayments.merchantId, merchantId), eq(cryptoPixPayments.id, id)))
    .limit(1);
  if (!row) throw new NotFound("Crypto-PIX payment not found");
  if (!row.closedAt && row.expiresAt.getTime() < Date.now() && cryptoCompare(row.receivedAmount, row.cryptoAmount) < 0) {
    await expireCryptoPixPayments([row.id]);
    return (await db().select().from(cryptoPixPayments).where(eq(cryptoPixPayments.id, row.id)))[0];
  }
  return row;
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
  let to = p.refundAddress;
  if (!to) {
    const [first] = await tx
      .select({ from: chainTransfers.fromAddress })
      .from(chainTransfers)
      .where(eq(chainTransfers.ownerId, p.id))
      .orderBy(asc(chainTransfers.createdAt))
      .limit(1);
    to = first?.from ?? null;
  }
  let signed: { txHash: string; rawTransaction: string } | null = null;
  if (to && cryptoCompare(total, "0") > 0) {
    signed = await signHotWalletTransfer(tx, { network: p.network as Network, tokenAddress: p.tokenAddress, decimals: p.tokenDecimals, to, amount: total });
  }
  const [after] = await tx
    .update(cryptoPixPayments)
    .set({
      status: "REFUNDED",
      closedAt: sql`now()`,
      refundTxHash: signed?.txHash ?? null,
      failureReason: to ? reason : `${reason}; no address to refund to`,
      updatedAt: sql`now()`,
    })
    .where(and(eq(cryptoPixPayments.id, p.id), isNull(cryptoPixPayments.closedAt)))
    .returning();
  if (!after) return { after: p, broadcast: null };
  await emit(tx, after, p.status);
  return { after, broadcast: signed ? { network: p.network as Network, rawTransaction: signed.rawTransaction } : null };
}

/** Expired and not fully paid: nothing received → FAILED; partially paid → refunded (CONTRACT §6). */
export async function expireCryptoPixPayments(ids?: string[], batch = 200): Promise<number> {
  const broadcasts: PendingBroadcast[] = [];
  const n = await db().transaction(async (tx) => {
    const due = await tx
      .select()
      .from(cryptoPixPayments)
      .where(
        and(
          isNull(cryptoPixPayments.closedAt),
          lt(cryptoPixPayments.expiresAt, sql`now()`),
          sql`${cryptoPixPayments.receivedAmount} < ${cryptoPixPayments.cryptoAmount}`,
          ids ? inArray(cryptoPixPayments.id, ids) : undefined,
        ),
      )
      .limit(batch)
      .for("update", { skipLocked: true });
    for (const p of due) {
      if (p.status === "PARTIAL_ORDER") {
        broadcasts.push((await refund(tx, p, "expired before the full amount arrived")).broadcast);
      } else {
        const [after] = await tx
          .update(cryptoPixPayments)
          .set({ status: "FAILED", closedAt: sql`now()`, failureReason: "expired with no payment", updatedAt: sql`now()` })
          .where(and(eq(cryptoPixPayments.id, p.id), isNull(cryptoPixPayments.closedAt)))
          .returning();
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
    const [p] = await tx.select().from(cryptoPixPayments).where(eq(cryptoPixPayments.id, paymentId)).for("update");
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
      [after] = await tx
        .update(cryptoPixPayments)
        .set({
          receivedAmount: received,
          txHash: transfer.txHash.toLowerCase(),
          ...(fullyPaid
            ? {}
            : { status: "PARTIAL_ORDER" as const, partialBrlCentavos: centavosForCrypto(received, p.rate), partialUpdatedAt: sql`now()` }),
          updatedAt: sql`now()`,
        })
        .where(eq(cryptoPixPayments.id, p.id))
        .returning();
      if (!fullyPaid) await emit(tx, after, p.status);
    }
    await tx.update(chainTransfers).set({ appliedAmount: applied, unappliedAmount: unapplied }).where(eq(chainTransfers.id, transferId));
    if (cryptoCompare(unapplied, "0") > 0) {
      [after] = await tx
        .update(cryptoPixPayments)
        .set({ unappliedAmount: cryptoAdd(after.unappliedAmount, unapplied), updatedAt: sql`now()` })
        .where(eq(cryptoPixPayments.id, p.id))
        .returning();
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
  const [claimed] = await db()
    .update(cryptoPixPayments)
    .set({ pixPayoutId: "requested", updatedAt: sql`now()` })
    .where(
      and(
        eq(cryptoPixPayments.id, paymentId),
        isNull(cryptoPixPayments.closedAt),
        isNull(cryptoPixPayments.pixPayoutId),
        sql`${cryptoPixPayments.receivedAmount} >= ${cryptoPixPayments.cryptoAmount}`,
      ),
    )
    .returning();
  if (!claimed) {
    const [current] = await db().select().from(cryptoPixPayments).where(eq(cryptoPixPayments.id, paymentId));
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
    const [p] = await tx.select().from(cryptoPixPayments).where(eq(cryptoPixPayments.id, paymentId)).for("update");
    if (result.status === "COMPLETED") {
      const [done] = await tx
        .update(cryptoPixPayments)
        .set({ status: "COMPLETED", pixPayoutId: result.id, closedAt: sql`now()`, updatedAt: sql`now()` })
        .where(and(eq(cryptoPixPayments.id, paymentId), isNull(cryptoPixPayments.closedAt)))
        .returning();
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
  const unsettled = await db()
    .select({ id: cryptoPixPayments.id })
    .from(cryptoPixPayments)
    .where(
      and(
        isNull(cryptoPixPayments.closedAt),
        isNull(cryptoPixPayments.pixPayoutId),
        sql`${cryptoPixPayments.receivedAmount} >= ${cryptoPixPayments.cryptoAmount}`,
      ),
    )
    .limit(limit);
  for (const { id } of unsettled) await settleCryptoPixPayment(id);
  return unsettled.length;
}
