import { sql } from "drizzle-orm";
import { db, type Tx } from "@/db";
import type { CryptoPixPayment, MerchantProfile } from "@/db/schema";
import { allocateDepositAddress } from "@/lib/chain/addresses";
import { belowMinimum, minimumDeposit, resolveToken } from "@/lib/chain/networks";
import { recordTransfer, type IncomingTransfer, noteTransferUse, recordStrayTransfer } from "@/lib/chain/transfers";
import type { StrayReason } from "@/lib/chain-watcher/receiver";
import { env } from "@/lib/env";
import { InvalidInput, NotFound } from "@/lib/errors";
import { recordEvent } from "@/lib/events/outbox";
import { bindIdempotencyKey } from "@/lib/idempotency-binding";
import { log } from "@/lib/log";
import {
  advancePayout,
  createPayout,
  requestPayout,
  type PayoutGuards,
  type PayoutOwners,
} from "@/lib/pix-payouts/machine";
import {
  centavosForCrypto,
  centavosToBrl,
  cryptoAdd,
  cryptoCompare,
  cryptoDueFor,
  cryptoMin,
  cryptoSub,
} from "@/lib/money";
import { BrCodeError, parseBrCode } from "@/lib/pix/brcode";
import { providers } from "@/lib/providers";
import type { DecodedCharge } from "@/lib/providers/payout/types";
import {
  closePayment,
  expiredUnpaidIds,
  insertPayment,
  lockExpiredUnpaid,
  lockPayment,
  merchantPaymentById,
  paymentById,
  unsettledPaymentIds,
  updatePayment,
} from "./queries";
import { emitStatusChange } from "./events";
import { overLightning, LIGHTNING_NETWORK } from "./kinds";
import {
  closeLightningAtExpiry,
  createLightningPayment,
  cryptoPixPayoutMayStart,
  mayExpireLightning,
  onLightningPayout,
} from "./lightning";
import { decideRefund, sendDecidedRefunds } from "./refunds";
import { CRYPTO_PIX_NETWORKS, type PayCryptoPixInput } from "./schemas";
import { cryptoPixView } from "./views";
import { requireRail } from "@/lib/providers/rails";
import { deliverQueuedSoon } from "@/lib/mail/mailer";
import { gateDestinationOf, type WithdrawalOrigin } from "@/lib/withdrawals/destination-gate";

/**
 * Reads the payer's BR Code, fixes the rate, and opens a deposit address for the crypto. A pasted
 * `refundAddress` is a destination the merchant chose: it goes through the withdrawals' destination
 * rule (lib/withdrawals/destination-gate.ts) in the creation's transaction, and a refund to it waits
 * while it is held (./refunds.ts).
 */
export async function createCryptoPixPayment(
  merchant: MerchantProfile,
  input: PayCryptoPixInput,
  origin: WithdrawalOrigin,
): Promise<CryptoPixPayment> {
  let parsed;
  try {
    parsed = parseBrCode(input.qrcode);
  } catch (err) {
    if (err instanceof BrCodeError)
      throw new InvalidInput(`Invalid PIX QR code: ${err.message}`, { code: "brcode.invalid" });
    throw err;
  }
  // The rail first: a server without it answers its 400 before asking any provider about the code.
  requireRail(input.network === LIGHTNING_NETWORK ? "crypto_pix_lightning" : "crypto_pix");
  let pixKey = parsed.pixKey;
  let codeAmount = parsed.amountCentavos;
  let pixTxid = parsed.txid;
  let payBy: Date | null = null;
  if (parsed.kind === "dynamic") {
    // Read before anything is written: a code that cannot be paid is the endpoint's 400.
    const charge = await dynamicCharge(input.qrcode);
    pixKey = charge.pixKey;
    codeAmount = charge.amountCentavos;
    pixTxid = charge.txid ?? pixTxid;
    payBy = charge.expiresAt;
  }
  if (!pixKey) throw new InvalidInput("Invalid PIX QR code: it carries no PIX key", { code: "brcode.invalid" });
  if (codeAmount !== null && input.value !== undefined && input.value !== codeAmount) {
    throw new InvalidInput(
      `value ${centavosToBrl(input.value)} contradicts the amount in the PIX QR code (${centavosToBrl(codeAmount)})`,
      {
        code: "brcode.contradicts",
        values: { value: input.value, codeValue: codeAmount },
      },
    );
  }
  const valueCentavos = codeAmount ?? input.value;
  if (valueCentavos === undefined) {
    throw new InvalidInput("This PIX QR code has no amount: send value (BRL) with the request", {
      code: "brcode.noAmount",
    });
  }
  const maxCentavos = Math.round(env().MAX_ORDER_VALUE_BRL * 100);
  if (valueCentavos > maxCentavos) {
    throw new InvalidInput(`The amount is above the maximum of ${env().MAX_ORDER_VALUE_BRL} BRL`, {
      code: "amount.aboveMax",
      values: { max: maxCentavos },
    });
  }
  if (input.network === LIGHTNING_NETWORK) {
    if (input.asset !== undefined && input.asset !== "BTC")
      throw new InvalidInput(`Token not supported: ${JSON.stringify(input.asset)}. Over Lightning the asset is BTC`, {
        code: "asset.notSupported",
      });
    return createLightningPayment(
      merchant,
      {
        qrcode: input.qrcode,
        pixKey,
        recipientName: parsed.merchantName,
        recipientCity: parsed.merchantCity,
        pixTxid,
        valueCentavos,
      },
      { refundAddress: input.refundAddress, metadata: input.metadata },
    );
  }
  requireRail("crypto_pix");
  const { network, asset, token } = resolveToken(
    String(input.network ?? ""),
    input.asset === undefined ? "USDT" : String(input.asset),
    CRYPTO_PIX_NETWORKS,
  );
  const quote = await providers().rates.quote(asset);
  const amount = cryptoDueFor(valueCentavos, quote.rate);
  if (belowMinimum(amount, network)) {
    const min = minimumDeposit(network);
    throw new InvalidInput(
      `Computed crypto value is invalid: ${amount} ${asset} is below the minimum of ${min} ${asset} on ${network}`,
      {
        code: "amount.belowMinimum",
        values: { min, asset, network },
      },
    );
  }
  const made = await db().transaction(async (tx) => {
    if (input.refundAddress) {
      const ref = { kind: "chain_address" as const, value: input.refundAddress.toLowerCase() };
      await gateDestinationOf(tx, merchant.id, ref, origin, "refundAddress");
    }
    const { walletIndex, address } = await allocateDepositAddress(tx, "crypto_pix");
    const payment = await insertPayment(tx, {
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
      expiresAt: payableUntil(payBy),
      metadata: input.metadata ?? {},
    });
    await bindIdempotencyKey(tx, { type: "crypto_pix_payment", id: payment.id });
    return payment;
  });
  deliverQueuedSoon();
  return made;
}

// A dynamic code's charge must stay payable while the payer sends crypto and we pay the PIX: the
// payment closes this long before the charge does, and a charge closing sooner is refused.
const CHARGE_MARGIN_MS = 2 * 60_000;
const MIN_PAY_WINDOW_MS = 5 * 60_000;

/** The charge behind a dynamic BR Code, read through the payout provider's PSP; a 400 unless it can be paid now. */
async function dynamicCharge(qrcode: string): Promise<DecodedCharge> {
  const payout = providers().payout;
  if (!payout.decode)
    throw new InvalidInput(
      "Dynamic PIX QR codes cannot be paid through this server's PIX payout provider: use a static BR Code",
      { code: "brcode.dynamic" },
    );
  const charge = await payout.decode(qrcode);
  if (!charge.payable)
    throw new InvalidInput(
      "This PIX QR code can no longer be paid: its charge was already paid, removed or has expired",
      { code: "brcode.unpayable" },
    );
  if (charge.expiresAt && charge.expiresAt.getTime() - Date.now() < MIN_PAY_WINDOW_MS + CHARGE_MARGIN_MS)
    throw new InvalidInput(
      `This PIX QR code expires at ${charge.expiresAt.toISOString()}: too soon to be paid with crypto`,
      {
        code: "brcode.expiresSoon",
        values: { at: charge.expiresAt },
      },
    );
  return charge;
}

/** The payment's expiry: the usual one, or earlier when the charge it pays closes sooner. */
function payableUntil(chargeExpiresAt: Date | null): Date {
  const usual = Date.now() + env().EXPIRY_CRYPTO_PIX_SECONDS * 1000;
  return new Date(chargeExpiresAt ? Math.min(usual, chargeExpiresAt.getTime() - CHARGE_MARGIN_MS) : usual);
}

export async function findCryptoPixPayment(merchantId: string, id: string): Promise<CryptoPixPayment> {
  const row = await merchantPaymentById(db(), merchantId, id);
  if (!row) throw new NotFound("Crypto-PIX payment not found");
  return paymentExpiredOnRead(row);
}

/** The payment as it stands: an open, unpaid one past its expiry (by payment time) is closed first, since the sweep may not have run yet. */
export async function paymentExpiredOnRead(row: CryptoPixPayment): Promise<CryptoPixPayment> {
  if (row.closedAt || row.expiresAt.getTime() >= Date.now() || cryptoCompare(row.receivedAmount, row.cryptoAmount) >= 0)
    return row;
  await expireCryptoPixPayments([row.id]);
  return (await paymentById(db(), row.id))!;
}

/**
 * Closes a payment at its expiry in the caller's transaction: nothing received → FAILED; partly paid
 * → its crypto goes back (refund decided; REFUNDED once mined). docs/api.md#states-expiry-and-money.
 */
async function closeAtExpiry(tx: Tx, p: CryptoPixPayment): Promise<CryptoPixPayment> {
  if (overLightning(p)) return closeLightningAtExpiry(tx, p);
  if (cryptoCompare(p.receivedAmount, "0") > 0) return decideRefund(tx, p, "expired before the full amount arrived");
  const after = await closePayment(tx, p.id, { status: "FAILED", failureReason: "expired with no payment" });
  if (!after) return p;
  await emitStatusChange(tx, after, p.status);
  return after;
}

/**
 * Expired and not fully paid, by payment time: each payment closed in its own transaction, so one
 * that fails is logged and the others go on. Refunds decided here are sent right after.
 */
export async function expireCryptoPixPayments(ids?: string[], batch = 200): Promise<number> {
  let closed = 0;
  for (const id of await expiredUnpaidIds(db(), ids, batch)) {
    try {
      // A Lightning payment's node is asked first: an invoice it accepted in time is a payment made.
      const row = await paymentById(db(), id);
      if (row && overLightning(row) && !(await mayExpireLightning(row))) continue;
      const done = await db().transaction(async (tx) => {
        const p = await lockExpiredUnpaid(tx, id);
        if (!p) return false;
        await closeAtExpiry(tx, p);
        return true;
      });
      if (done) closed++;
    } catch (err) {
      log.error("crypto-pix expiry failed for one payment; the next sweep tries again", { paymentId: id, err });
    }
  }
  return closed;
}

export type ApplyResult = {
  payment: CryptoPixPayment;
  duplicate: boolean;
  fullyPaid: boolean;
  payoutId: string | null;
};

/**
 * Applies one confirmed crypto transfer, once, judged by its payment time. In time and short of the
 * amount: PARTIAL_ORDER with the partial fields. The amount reached: the PIX payout is recorded in
 * the same transaction (lib/pix-payouts), so it is requested exactly once. After the payment closed, or
 * beyond what was due: the money is sent back to its sender (a refund decided for that transfer).
 */
export async function applyCryptoPixTransfer(paymentId: string, transfer: IncomingTransfer): Promise<ApplyResult> {
  return db().transaction(async (tx) => {
    let p = await lockPayment(tx, paymentId);
    if (!p) throw new NotFound("Crypto-PIX payment not found");
    const paidAt = transfer.blockTime ?? new Date();
    const transferId = await recordTransfer(tx, {
      ...transfer,
      blockTime: paidAt,
      ownerKind: "crypto_pix",
      ownerId: p.id,
    });
    if (!transferId) return { payment: p, duplicate: true, fullyPaid: false, payoutId: null };
    // A transfer made through the sandbox's API: its Idempotency-Key, if any, is bound to it.
    await bindIdempotencyKey(tx, { type: "chain_transfer", id: transferId });

    // Paid after the expiry: the payment closes at its expiry first, as the sweep would have closed it.
    if (!p.closedAt && paidAt.getTime() > p.expiresAt.getTime() && cryptoCompare(p.receivedAmount, p.cryptoAmount) < 0)
      p = await closeAtExpiry(tx, p);

    const open = !p.closedAt && cryptoCompare(p.receivedAmount, p.cryptoAmount) < 0;
    const remaining = open ? cryptoSub(p.cryptoAmount, p.receivedAmount) : "0";
    const applied = open ? cryptoMin(transfer.amount, remaining) : "0";
    const unapplied = cryptoSub(transfer.amount, applied);
    const received = cryptoAdd(p.receivedAmount, applied);
    const fullyPaid = open && cryptoCompare(received, p.cryptoAmount) >= 0;

    let after = p;
    let payoutId: string | null = null;
    if (cryptoCompare(applied, "0") > 0) {
      if (fullyPaid) {
        const payout = await createPayout(tx, {
          purpose: "crypto_pix",
          ownerId: p.id,
          merchantId: p.merchantId,
          brcode: p.qrcode,
          valueCentavos: p.valueCentavos,
        });
        payoutId = payout.id;
        after = (await updatePayment(tx, p.id, {
          receivedAmount: received,
          txHash: transfer.txHash.toLowerCase(),
          paidAt,
          pixPayoutId: payout.id,
        }))!;
      } else {
        after = (await updatePayment(tx, p.id, {
          receivedAmount: received,
          txHash: transfer.txHash.toLowerCase(),
          status: "PARTIAL_ORDER",
          partialBrlCentavos: centavosForCrypto(received, p.rate),
          partialUpdatedAt: sql`now()`,
        }))!;
        await emitStatusChange(tx, after, p.status);
      }
    }
    const late = p.closedAt !== null;
    await noteTransferUse(tx, transferId, {
      applied,
      unapplied,
      ...(cryptoCompare(unapplied, "0") > 0
        ? {
            note: late
              ? "arrived after the payment closed: sent back to its sender"
              : "beyond the amount due: sent back to its sender",
            refundStatus: "PENDING" as const,
          }
        : {}),
    });
    if (cryptoCompare(unapplied, "0") > 0) {
      after = (await updatePayment(tx, p.id, { unappliedAmount: cryptoAdd(after.unappliedAmount, unapplied) }))!;
      await recordEvent(tx, {
        merchantId: p.merchantId,
        type: "crypto_pix.funds_unapplied",
        subjectType: "crypto_pix",
        subjectId: p.id,
        data: {
          ...cryptoPixView(after),
          unappliedAmount: Number(unapplied),
          txHash: transfer.txHash,
          reason: late ? "after_final" : "overpayment",
          refunded: true,
        },
      });
    }
    return { payment: after, duplicate: false, fullyPaid, payoutId };
  });
}

/** The PIX payout of a fully paid payment was decided (lib/pix-payouts/machine.ts): made → COMPLETED; not made → the crypto goes back. */
export const onCryptoPixPayout: NonNullable<PayoutOwners["crypto_pix"]> = async (tx, payout, decision) => {
  const p = await lockPayment(tx, payout.ownerId);
  if (!p || p.closedAt) return;
  if (overLightning(p)) return onLightningPayout(tx, p, decision);
  if (decision.status === "completed") {
    const done = await closePayment(tx, p.id, { status: "COMPLETED", pixPayoutId: decision.providerRef ?? payout.id });
    if (done) await emitStatusChange(tx, done, p.status);
    return;
  }
  await decideRefund(tx, p, decision.reason);
};

// Checked before a payout's first send, here as in the worker (lib/worker/owners.ts).
const PAYOUT_GUARDS: PayoutGuards = { crypto_pix: cryptoPixPayoutMayStart };

/** Sends a payment's payout now (the job would soon), and says where it stands. */
export async function settleCryptoPixPayment(paymentId: string): Promise<CryptoPixPayment> {
  const p = await paymentById(db(), paymentId);
  if (!p) throw new NotFound("Crypto-PIX payment not found");
  if (p.pixPayoutId && !p.closedAt) {
    await advancePayout(p.pixPayoutId, { crypto_pix: onCryptoPixPayout }, PAYOUT_GUARDS).catch((err: unknown) =>
      log.warn("crypto-pix payout deferred to its job", { paymentId, err }),
    );
  }
  return (await paymentById(db(), paymentId))!;
}

/** The sweep's step: a fully paid, open payment without a payout (recorded before payouts were) gets one. */
export async function settleFullyPaidPayments(limit = 100): Promise<number> {
  let made = 0;
  for (const id of await unsettledPaymentIds(db(), limit)) {
    const payoutId = await db().transaction(async (tx) => {
      const p = await lockPayment(tx, id);
      if (!p || p.closedAt || p.pixPayoutId || cryptoCompare(p.receivedAmount, p.cryptoAmount) < 0) return null;
      const payout = await createPayout(tx, {
        purpose: "crypto_pix",
        ownerId: p.id,
        merchantId: p.merchantId,
        brcode: p.qrcode,
        valueCentavos: p.valueCentavos,
      });
      await updatePayment(tx, p.id, { pixPayoutId: payout.id });
      return payout.id;
    });
    if (payoutId) {
      await requestPayout(payoutId);
      made++;
    }
  }
  return made;
}

/**
 * After a transfer was applied (by the watcher or a sandbox helper): its payout is asked for (by the
 * job, and right now as well), and any refund it decided is sent. Never throws: everything here is
 * recorded already, and jobs and the sweep finish it.
 */
export async function followUpTransfer(paymentId: string, payoutId: string | null): Promise<{ refundTxIds: string[] }> {
  try {
    if (payoutId) {
      await requestPayout(payoutId);
      await advancePayout(payoutId, { crypto_pix: onCryptoPixPayout }, PAYOUT_GUARDS);
    }
    return { refundTxIds: await sendDecidedRefunds(paymentId) };
  } catch (err) {
    log.warn("crypto-pix follow-up deferred to its jobs", { paymentId, err });
    return { refundTxIds: [] };
  }
}

/**
 * A transfer to the payment's address of another token, or on another network: recorded with an
 * event and shown to the merchant, never applied nor sent back automatically (the hot wallet may not
 * hold that token). False when it had been recorded before.
 */
export async function recordStrayPayment(
  paymentId: string,
  transfer: IncomingTransfer,
  reason: StrayReason,
): Promise<boolean> {
  return db().transaction(async (tx) => {
    const p = await lockPayment(tx, paymentId);
    if (!p) throw new NotFound("Crypto-PIX payment not found");
    const owner = { kind: "crypto_pix" as const, id: p.id, network: p.network, asset: p.asset };
    if (!(await recordStrayTransfer(tx, transfer, owner, reason))) return false;
    await recordEvent(tx, {
      merchantId: p.merchantId,
      type: "crypto_pix.funds_unapplied",
      subjectType: "crypto_pix",
      subjectId: p.id,
      data: {
        ...cryptoPixView(p),
        unappliedAmount: Number(transfer.amount),
        txHash: transfer.txHash,
        reason,
        transferNetwork: transfer.network,
        transferToken: transfer.tokenAddress,
        refunded: false,
      },
    });
    return true;
  });
}
