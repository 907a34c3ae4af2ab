import { createHash, randomBytes } from "node:crypto";
import { db, type Tx } from "@/db";
import type { CryptoPixPayment, MerchantProfile, PixPayout } from "@/db/schema";
import { env } from "@/lib/env";
import { InvalidInput } from "@/lib/errors";
import { bindIdempotencyKey } from "@/lib/idempotency-binding";
import { jobQueue } from "@/lib/jobs/queue";
import { log } from "@/lib/log";
import { fromBaseUnits, satoshisFor } from "@/lib/money";
import { clearAttention } from "@/lib/attention/attention";
import { createPayout, requestPayout, type PayoutDecision } from "@/lib/pix-payouts/machine";
import { providers } from "@/lib/providers";
import type { HeldHtlcs, StreamedInvoice } from "@/lib/providers/lightning/types";
import { requireRail } from "@/lib/providers/rails";
import { emitRefundChange, emitStatusChange } from "./events";
import { enoughRoom, htlcRoom, noRoomReason } from "./htlc-room";
import { LIGHTNING_NETWORK } from "./kinds";
import {
  closePayment,
  insertInvoice,
  insertPayment,
  invoiceOf,
  invoicesWithAction,
  lockInvoiceByHash,
  lockPayment,
  openInvoices,
  updateInvoice,
  updatePayment,
} from "./queries";
import { noteSettleFailure } from "./settle-attention";

// Crypto-PIX over Lightning (docs/providers.md#crypto-pix-over-lightning): the payer pays a hold invoice for the BRL value at
// the BTC quote locked at creation. The node holds the payment (ACCEPTED) without claiming it; the
// PIX is then paid, and only once the payout provider says it was made is the invoice settled with
// the preimage (the sats become ours). If the PIX was not made, the invoice is cancelled and the
// payer's sats go back by themselves: no refund transaction, nothing to lose. An invoice not paid by
// the expiry is cancelled so it can no longer be paid.
// What must be done at the node (settle, cancel) is recorded with the decision and done after
// commit by the "crypto-pix-invoice" job, retried until the node confirms it. lnd gives the held
// payment back by itself some blocks before its HTLC expires, so the PIX starts only while enough
// blocks are left (./htlc-room.ts), and a settle that keeps failing reaches an operator
// (./settle-attention.ts).

export type BrCodeFacts = {
  qrcode: string;
  pixKey: string;
  recipientName: string;
  recipientCity: string;
  pixTxid: string | null;
  valueCentavos: number;
};

export const invoiceActionQueue = jobQueue<object>("crypto-pix-invoice", {
  policy: "stately",
  retryLimit: 0,
  expireInSeconds: 300,
});

export async function createLightningPayment(
  merchant: MerchantProfile,
  code: BrCodeFacts,
  input: { refundAddress?: string; metadata?: Record<string, string> },
): Promise<CryptoPixPayment> {
  requireRail("lightning");
  requireRail("pix_out");
  if (input.refundAddress)
    throw new InvalidInput(
      "refundAddress is for chain payments: over Lightning an unpaid PIX cancels the invoice and the sats go back by themselves",
      {
        code: "cryptoPix.refundAddressLightning",
      },
    );
  const { rates, lightning } = providers();
  if (!lightning.createHoldInvoice) {
    throw new InvalidInput(
      "Crypto-PIX over Lightning needs a Lightning node that holds invoices (LIGHTNING_BACKEND=lnd); this server's provider cannot",
      {
        code: "cryptoPix.lightningUnavailable",
      },
    );
  }
  const quote = await rates.quote("BTC");
  const satoshis = satoshisFor(code.valueCentavos, quote.rate);
  // Ours alone until the PIX is made: whoever holds it can claim the payer's sats.
  const preimage = randomBytes(32).toString("hex");
  const paymentHash = createHash("sha256").update(Buffer.from(preimage, "hex")).digest("hex");
  const expirySeconds = env().EXPIRY_CRYPTO_PIX_SECONDS;
  const invoice = await lightning.createHoldInvoice({
    paymentHash,
    satoshis,
    description: `PIX ${code.recipientName}`.slice(0, 100),
    expirySeconds,
  });
  return db().transaction(async (tx) => {
    const payment = await insertPayment(tx, {
      merchantId: merchant.id,
      network: LIGHTNING_NETWORK,
      asset: "BTC",
      tokenAddress: null,
      tokenDecimals: null,
      address: invoice.invoice,
      walletIndex: null,
      qrcode: code.qrcode,
      pixKey: code.pixKey,
      recipientName: code.recipientName,
      recipientCity: code.recipientCity,
      pixTxid: code.pixTxid,
      valueCentavos: code.valueCentavos,
      cryptoAmount: fromBaseUnits(BigInt(satoshis), 8),
      rate: quote.rate,
      rateSource: quote.source,
      rateAt: quote.at,
      refundAddress: null,
      metadata: input.metadata ?? {},
      expiresAt: invoice.expiresAt,
    });
    await insertInvoice(tx, { paymentId: payment.id, provider: lightning.name, paymentHash, preimage, satoshis });
    await bindIdempotencyKey(tx, { type: "crypto_pix_payment", id: payment.id });
    return payment;
  });
}

/**
 * The payer's payment is held at the node (ACCEPTED at `acceptedAt`, its HTLCs at `held`). In time and
 * with enough blocks left before the node would give it back: the payment counts as received and its
 * PIX is recorded, to be sent now. Too late (the payment had closed): the invoice is cancelled, so the
 * sats go back. Too few blocks left: the same, and the payment is FAILED (docs/providers.md). False
 * when the invoice is not one of ours.
 */
export async function onInvoiceAccepted(
  paymentHash: string,
  acceptedAt: Date,
  held: Partial<HeldHtlcs> = {},
): Promise<boolean> {
  // Asked before the transaction: no row stays locked while the node answers.
  const room = await htlcRoom(held, acceptedAt);
  const payoutId = await db().transaction(async (tx) => {
    const invoice = await lockInvoiceByHash(tx, paymentHash);
    if (!invoice) return false;
    if (invoice.state !== "open") return null;
    const p = await lockPayment(tx, invoice.paymentId);
    if (!p) return null;
    const accepted = {
      state: "accepted" as const,
      acceptedAt,
      acceptHeight: held.acceptHeight ?? null,
      htlcExpiryHeight: held.htlcExpiryHeight ?? null,
    };
    if (p.closedAt || acceptedAt.getTime() > p.expiresAt.getTime()) {
      await updateInvoice(tx, p.id, { ...accepted, action: "cancel" });
      return null;
    }
    if (room && !enoughRoom(room)) {
      // Closed at once, before anything could record a PIX for it: the cancel only has to reach the node.
      await updateInvoice(tx, p.id, { ...accepted, action: "cancel" });
      const failed = await closePayment(tx, p.id, { status: "FAILED", failureReason: noRoomReason(room) });
      if (failed) await emitStatusChange(tx, failed, p.status);
      log.warn("held Lightning payment refused: too few blocks left before its HTLC expires", {
        paymentId: p.id,
        ...room,
      });
      return null;
    }
    const payout = await createPayout(tx, {
      purpose: "crypto_pix",
      ownerId: p.id,
      merchantId: p.merchantId,
      brcode: p.qrcode,
      valueCentavos: p.valueCentavos,
    });
    await updateInvoice(tx, p.id, accepted);
    await updatePayment(tx, p.id, {
      receivedAmount: p.cryptoAmount,
      paidAt: acceptedAt,
      txHash: paymentHash,
      pixPayoutId: payout.id,
    });
    // The sandbox's payer pays through the API: its Idempotency-Key, if any, is bound to the payment.
    await bindIdempotencyKey(tx, { type: "crypto_pix_payment", id: p.id });
    return payout.id;
  });
  if (payoutId === false) return false;
  if (payoutId) await requestPayout(payoutId);
  else await invoiceActionQueue.send({});
  return true;
}

/**
 * Before a Crypto-PIX payout's first send: over Lightning, the payer's HTLC must still leave
 * LND_HOLD_MIN_BLOCKS_LEFT blocks, as when the payment was accepted; a payout that waited (workers
 * down, the provider busy) past that is not sent, and the invoice is cancelled by its "not made".
 */
export async function cryptoPixPayoutMayStart(payout: PixPayout): Promise<string | null> {
  const invoice = await invoiceOf(db(), payout.ownerId);
  if (!invoice?.acceptedAt) return null;
  const room = await htlcRoom(
    { acceptHeight: invoice.acceptHeight, htlcExpiryHeight: invoice.htlcExpiryHeight },
    invoice.acceptedAt,
  );
  return room && !enoughRoom(room) ? noRoomReason(room) : null;
}

/** In the payout's decision transaction: made → COMPLETED and the invoice is to be settled; not made → it is to be cancelled (the payer's sats return). */
export async function onLightningPayout(tx: Tx, p: CryptoPixPayment, decision: PayoutDecision): Promise<void> {
  if (decision.status === "completed") {
    const done = await closePayment(tx, p.id, {
      status: "COMPLETED",
      pixPayoutId: decision.providerRef ?? p.pixPayoutId,
    });
    if (done) await emitStatusChange(tx, done, p.status);
    await updateInvoice(tx, p.id, { action: "settle" });
    return;
  }
  const after = await updatePayment(tx, p.id, { refundStatus: "PENDING", failureReason: decision.reason });
  if (after)
    await emitRefundChange(tx, after, {
      status: "PENDING",
      amount: after.receivedAmount,
      to: null,
      txHash: null,
      transferId: null,
      reason: decision.reason,
    });
  await updateInvoice(tx, p.id, { action: "cancel" });
}

/** At expiry with nothing paid: FAILED, and the invoice cancelled so nobody can pay it later. */
export async function closeLightningAtExpiry(tx: Tx, p: CryptoPixPayment): Promise<CryptoPixPayment> {
  const after = await closePayment(tx, p.id, { status: "FAILED", failureReason: "expired with no payment" });
  if (!after) return p;
  await updateInvoice(tx, p.id, { action: "cancel" });
  await emitStatusChange(tx, after, p.status);
  return after;
}

/**
 * Before a Lightning payment is closed at its expiry, the node is asked: an invoice it accepted in
 * time is applied instead (the payment was made; we had not seen it yet). True when the payment may
 * be closed; false when it was paid, or the node could not be asked.
 */
export async function mayExpireLightning(p: CryptoPixPayment): Promise<boolean> {
  const invoice = await invoiceOf(db(), p.id);
  const lightning = providers().lightning;
  if (!invoice || invoice.state !== "open" || !lightning.readInvoice) return true;
  try {
    const remote = await lightning.readInvoice(invoice.paymentHash);
    if (remote.accepted && remote.acceptedAt) {
      await onInvoiceAccepted(invoice.paymentHash, remote.acceptedAt, remote);
      return false;
    }
    return true;
  } catch (err) {
    log.warn("Lightning node not reachable at a Crypto-PIX payment's expiry; it is closed at the next sweep", {
      paymentId: p.id,
      err,
    });
    return false;
  }
}

/** Does what the node still has to do (settle, cancel); each one retried at the next run until the node confirms it. */
export async function runInvoiceActions(limit = 100): Promise<number> {
  const lightning = providers().lightning;
  let done = 0;
  for (const invoice of await invoicesWithAction(db(), lightning.name, limit)) {
    try {
      if (invoice.action === "settle") await lightning.settleHoldInvoice!(invoice.preimage);
      else await lightning.cancelHoldInvoice!(invoice.paymentHash);
    } catch (err) {
      log.warn(`hold invoice could not be ${invoice.action === "settle" ? "settled" : "cancelled"} yet; retried`, {
        paymentId: invoice.paymentId,
        err,
      });
      const lastError = (err instanceof Error ? err.message : String(err)).slice(0, 500);
      await updateInvoice(db(), invoice.paymentId, { lastError });
      if (invoice.action === "settle") await noteSettleFailure(invoice, lastError);
      continue;
    }
    await db().transaction(async (tx) => {
      const p = await lockPayment(tx, invoice.paymentId);
      await updateInvoice(tx, invoice.paymentId, {
        action: null,
        lastError: null,
        state: invoice.action === "settle" ? "settled" : "canceled",
      });
      await clearAttention("hold_invoice", invoice.paymentId, tx);
      // A PIX not made: the sats went back when the invoice was cancelled.
      if (invoice.action === "cancel" && p && p.refundStatus === "PENDING" && !p.closedAt) {
        const refunded = await closePayment(tx, p.id, { status: "REFUNDED", refundStatus: "COMPLETED" });
        if (refunded) {
          await emitRefundChange(tx, refunded, {
            status: "COMPLETED",
            amount: refunded.receivedAmount,
            to: null,
            txHash: null,
            transferId: null,
          });
          await emitStatusChange(tx, refunded, p.status);
        }
      }
    });
    done++;
  }
  return done;
}

/** The node's stream (lib/lightning/stream.ts) hands every invoice here first: true when it was one of ours. */
export async function onStreamedHoldInvoice(invoice: StreamedInvoice): Promise<boolean> {
  if (!invoice.accepted || !invoice.acceptedAt) return false;
  return onInvoiceAccepted(invoice.paymentHash, invoice.acceptedAt, invoice);
}

/** The poll's share: open hold invoices the node may have accepted while a notification was lost. */
export async function reconcileHoldInvoices(): Promise<number> {
  const lightning = providers().lightning;
  if (!lightning.readInvoice || env().PAYMENTS_MODE !== "live") return 0;
  let accepted = 0;
  for (const invoice of await openInvoices(db(), lightning.name, 200)) {
    try {
      const remote = await lightning.readInvoice(invoice.paymentHash);
      if (
        remote.accepted &&
        remote.acceptedAt &&
        (await onInvoiceAccepted(invoice.paymentHash, remote.acceptedAt, remote))
      )
        accepted++;
    } catch (err) {
      log.warn("hold invoice could not be read; the next poll tries again", { paymentId: invoice.paymentId, err });
    }
  }
  return accepted;
}
