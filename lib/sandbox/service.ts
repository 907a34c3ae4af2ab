import { randomBytes } from "node:crypto";
import { db } from "@/db";
import type { ChainTransfer, CryptoPixPayment, OnchainOrder, Order } from "@/db/schema";
import { onRefundChainTx } from "@/lib/crypto-pix/refunds";
import { chainPayment, overLightning } from "@/lib/crypto-pix/kinds";
import { onInvoiceAccepted, runInvoiceActions } from "@/lib/crypto-pix/lightning";
import { invoiceOf } from "@/lib/crypto-pix/queries";
import {
  applyCryptoPixTransfer,
  findCryptoPixPayment,
  followUpTransfer,
  onCryptoPixPayout,
  settleCryptoPixPayment,
} from "@/lib/crypto-pix/service";
import { advanceChainTx } from "@/lib/hot-wallet/tracker";
import { decidePayout } from "@/lib/pix-payouts/machine";
import { payoutById } from "@/lib/pix-payouts/queries";
import { rpcUrl } from "@/lib/chain/config";
import { transferById } from "@/lib/chain/transfers";
import type { IdempotentResource } from "@/lib/idempotency-binding";
import type { Network } from "@/lib/chain/tokens";
import { env } from "@/lib/env";
import { Conflict, InvalidInput, NotFound } from "@/lib/errors";
import { Decimal } from "@/lib/money";
import { applyDepositTransfer, findDeposit, findDepositById } from "@/lib/onchain/service";
import { findAnyOrder } from "@/lib/orders/any-order";
import { applyReceivedPix } from "@/lib/orders/pix-receipts";
import { completeOrder, findOrder } from "@/lib/orders/service";
import { randomBase62 } from "@/lib/ids";
import { saoPauloDay, saoPauloDayStart } from "@/lib/day-range";
import type { InvoiceWithOrder } from "@/lib/invoices/queries";
import { findInvoice, invoiceIdOfOrder } from "@/lib/invoices/service";
import { termsOf } from "@/lib/invoice-state/terms";
import { amountDue } from "@/lib/pix/due-amount";

// Sandbox payments (docs/api.md#sandbox-helpers), for the API's sandbox helpers and the dashboard's "simulate
// payment" alike: they run the same service functions a provider's notification or the chain watcher
// would, so a simulated payment credits, emits events and sends webhooks like a real one.

/** A public test account (index 2 of the well-known test mnemonic) stands in for the payer. */
export const SANDBOX_PAYER_ADDRESS = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";

/** The sandbox helpers do not exist in live mode (docs/api.md#sandbox-helpers): their reason, or null in sandbox mode. */
export function sandboxUnavailable(): string | null {
  return env().PAYMENTS_MODE === "sandbox" ? null : "Sandbox helpers are not available in live mode";
}

export type SimulatedTransfer = { amount: string; txHash?: string; from?: string };

function transferTo(
  target: { network: string; address: string; tokenAddress: string; tokenDecimals: number },
  t: SimulatedTransfer,
) {
  if (rpcUrl(target.network as Network)) {
    // The node is the only source of truth there (docs/providers.md#what-every-adapter-does): a made-up transfer must never move real money.
    throw new Conflict(
      `${target.network} is served by an EVM node on this server (EVM_RPC_URL_${target.network.toUpperCase()}): only real transfers, read from the node, count there`,
    );
  }
  if (new Decimal(t.amount).decimalPlaces() > target.tokenDecimals) {
    throw new InvalidInput(`amount has more than the token's ${target.tokenDecimals} decimals`);
  }
  return {
    network: target.network,
    txHash: t.txHash ?? `0x${randomBytes(32).toString("hex")}`,
    logIndex: 0,
    fromAddress: t.from ?? SANDBOX_PAYER_ADDRESS,
    toAddress: target.address,
    tokenAddress: target.tokenAddress,
    amount: t.amount,
    blockTime: new Date(),
  };
}

/**
 * A PENDING PIX, exchange-wallet or Lightning order, by id or payment link id, becomes COMPLETED. A
 * PIX order is paid as the PSP would report it: a received PIX with its end-to-end id (what a refund
 * later sends back against), applied by the same code as a live notification.
 */
export async function payOrder(merchantId: string, idOrLink: string): Promise<Order> {
  const order = await findOrder(merchantId, idOrLink);
  // An invoice's order is paid what its invoice asks today.
  const invoiceId = invoiceIdOfOrder(order);
  if (invoiceId && order.status === "PENDING") return (await payInvoice(merchantId, invoiceId)).order!;
  if (order.kind !== "pix" || order.status !== "PENDING" || !order.txid) return completeOrder(order.id);
  const paid = await applyReceivedPix(
    {
      endToEndId: sandboxEndToEndId(),
      txid: order.txid,
      valueCentavos: order.valueCentavos,
      paidAt: new Date(),
      chave: env().PIX_RECEIVER_KEY,
    },
    "sandbox",
  );
  if (!paid.duplicate && paid.applied && paid.order) return paid.order;
  // Expired or paid meanwhile: answered like any other order that cannot be paid.
  return completeOrder(order.id);
}

/**
 * The sandbox payer pays an OPEN invoice on `day` (a São Paulo day, default today): the amount due
 * that day, as the PSP would report a payment of the charge (a received PIX with its end-to-end id,
 * paid at noon of that day unless it is today), applied by the same code as a live notification.
 */
export async function payInvoice(merchantId: string, invoiceId: string, day?: string): Promise<InvoiceWithOrder> {
  const { invoice, order } = await findInvoice(merchantId, invoiceId);
  if (invoice.status !== "OPEN" || !order?.txid)
    throw new Conflict(`Invoice is ${invoice.status}: only an OPEN invoice can be paid`, {
      code: "invoice.notOpen",
      values: { status: invoice.status },
    });
  const today = saoPauloDay();
  const payDay = day ?? today;
  const created = saoPauloDay(invoice.createdAt);
  if (payDay < created)
    throw new InvalidInput(`date must not be before the invoice was created (${created})`, {
      code: "invoice.payDayBeforeCreation",
      values: { created },
    });
  const due = amountDue(termsOf(invoice), payDay);
  if (!due.payable)
    throw new Conflict(`The invoice cannot be paid on ${payDay}: its last payable day is ${invoice.lastPayableDay}`, {
      code: "invoice.notPayableOn",
      values: { day: payDay, lastDay: invoice.lastPayableDay },
    });
  const paidAt = payDay === today ? new Date() : new Date(saoPauloDayStart(payDay).getTime() + 12 * 3_600_000);
  await applyReceivedPix(
    {
      endToEndId: sandboxEndToEndId(paidAt),
      txid: order.txid,
      valueCentavos: due.totalCentavos,
      paidAt,
      chave: env().PIX_RECEIVER_KEY,
    },
    "sandbox",
  );
  return findInvoice(merchantId, invoiceId);
}

/** A PIX end-to-end id as the SPI forms it: E, the payer's PSP (ISPB 00000000 here), the minute, 11 random characters. */
function sandboxEndToEndId(now = new Date()): string {
  const minute = now.toISOString().slice(0, 16).replace(/[-T:]/g, "");
  return `E00000000${minute}${randomBase62(11)}`;
}

/** A confirmed token transfer to a deposit's address. */
export async function transferToDeposit(merchantId: string, paymentLinkId: string, t: SimulatedTransfer) {
  return transferToDepositOrder(await findDeposit(merchantId, paymentLinkId), t);
}

async function transferToDepositOrder(order: OnchainOrder, t: SimulatedTransfer) {
  const transfer = transferTo(order, t);
  const result = await applyDepositTransfer(order.id, transfer);
  return { ...result, txHash: transfer.txHash };
}

/** A confirmed token transfer to a Crypto-PIX payment's address; paid in full, the PIX is sent (or made to fail). */
export async function transferToCryptoPix(
  merchantId: string,
  paymentId: string,
  t: SimulatedTransfer & { failPix?: boolean },
) {
  return transferToCryptoPixPayment(await findCryptoPixPayment(merchantId, paymentId), t);
}

async function transferToCryptoPixPayment(payment: CryptoPixPayment, t: SimulatedTransfer & { failPix?: boolean }) {
  if (overLightning(payment)) return payLightningCryptoPix(payment, t);
  const transfer = transferTo(chainPayment(payment), t);
  const result = await applyCryptoPixTransfer(payment.id, transfer);
  if (result.payoutId && t.failPix) {
    // The sandbox's way to see a PIX not made: decided as the provider's "not made" would be, without asking it.
    await decidePayout(
      result.payoutId,
      { status: "failed", providerRef: null, reason: "PIX payout failed (sandbox failPix)" },
      { crypto_pix: onCryptoPixPayout },
    );
  }
  const { refundTxIds } = await followUpTransfer(payment.id, t.failPix ? null : result.payoutId);
  if (result.payoutId && !t.failPix) await payoutDecided(result.payoutId);
  // A sandbox refund is "mined" after SANDBOX_SETTLE_SECONDS: with 0 the answer already shows it REFUNDED.
  for (const id of refundTxIds) await advanceChainTx(id, { refund: onRefundChainTx });
  const after = (await findCryptoPixPayment(payment.merchantId, payment.id)) ?? result.payment;
  return { payment: after, duplicate: result.duplicate, txHash: transfer.txHash };
}

/**
 * The PIX a full payment sends may be taken by a payout worker before this request gets to it: the
 * helper then waits (up to 10 s) for the worker's outcome, so that its answer shows the payment's fate.
 */
async function payoutDecided(payoutId: string): Promise<void> {
  for (const until = Date.now() + 10_000; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
    const payout = await payoutById(db(), payoutId);
    if (!payout || (payout.status !== "created" && payout.status !== "processing")) return;
  }
}

/**
 * The sandbox payer pays a Crypto-PIX payment's hold invoice, in full (a Lightning invoice is paid in
 * one go): the node holds it, the PIX is sent, and the invoice is settled — or cancelled with failPix,
 * the sats going back by themselves.
 */
async function payLightningCryptoPix(payment: CryptoPixPayment, t: SimulatedTransfer & { failPix?: boolean }) {
  if (!new Decimal(t.amount).eq(payment.cryptoAmount)) {
    throw new InvalidInput(
      `A Lightning invoice is paid in full: amount must be ${new Decimal(payment.cryptoAmount).toFixed()} BTC`,
    );
  }
  if (payment.closedAt || payment.pixPayoutId)
    throw new Conflict(`This payment's invoice can no longer be paid (it is ${payment.status})`);
  const invoice = await invoiceOf(db(), payment.id);
  if (!invoice) throw new NotFound("Crypto-PIX payment not found");
  await onInvoiceAccepted(invoice.paymentHash, new Date());
  const accepted = (await findCryptoPixPayment(payment.merchantId, payment.id))!;
  if (accepted.pixPayoutId) {
    if (t.failPix) {
      await decidePayout(
        accepted.pixPayoutId,
        { status: "failed", providerRef: null, reason: "PIX payout failed (sandbox failPix)" },
        { crypto_pix: onCryptoPixPayout },
      );
    } else {
      await settleCryptoPixPayment(payment.id);
    }
  }
  await runInvoiceActions();
  const after = await findCryptoPixPayment(payment.merchantId, payment.id);
  return { payment: after, duplicate: false, txHash: invoice.paymentHash };
}

// What a sandbox transfer made, for its Idempotency-Key replay (lib/http/endpoint.ts): the request that
// made it died before answering, and its answer is rebuilt from the transfer it recorded.

/** A transfer to one of the merchant's deposits, with the deposit as it stands. */
export async function recordedDepositTransfer(
  merchantId: string,
  transferId: string,
): Promise<{ order: OnchainOrder; transfer: ChainTransfer }> {
  const transfer = await transferById(db(), transferId);
  const order = transfer?.ownerKind === "onchain_order" ? await findDepositById(merchantId, transfer.ownerId) : null;
  if (!transfer || !order) throw new NotFound("On-chain order not found");
  return { order, transfer };
}

/**
 * A payment to one of the merchant's Crypto-PIX payments (a chain transfer, or the payment of its
 * Lightning invoice), with the payment as it stands, and the hash the request answered: the one it
 * was given as given (the stored one is lowercased), else the recorded one.
 */
export async function recordedCryptoPixTransfer(
  merchantId: string,
  made: IdempotentResource,
  givenTxHash: string | undefined,
): Promise<{ payment: CryptoPixPayment; txHash: string }> {
  if (made.type === "chain_transfer") {
    const transfer = await transferById(db(), made.id);
    if (!transfer || transfer.ownerKind !== "crypto_pix") throw new NotFound("Crypto-PIX payment not found");
    return {
      payment: await findCryptoPixPayment(merchantId, transfer.ownerId),
      txHash: givenTxHash ?? transfer.txHash,
    };
  }
  const payment = await findCryptoPixPayment(merchantId, made.id);
  const invoice = await invoiceOf(db(), payment.id);
  if (!invoice) throw new NotFound("Crypto-PIX payment not found");
  return { payment, txHash: invoice.paymentHash };
}

function stillDue(target: { cryptoAmount: string; receivedAmount: string }): string {
  const amount = Decimal.max(0, new Decimal(target.cryptoAmount).minus(target.receivedAmount));
  if (!amount.gt(0)) throw new Conflict("Nothing is left to pay on this order");
  return amount.toFixed();
}

/** The dashboard's "simulate payment": pays what is still due on one of the merchant's orders, whatever its kind. */
export async function payInFull(merchantId: string, id: string): Promise<void> {
  const found = sandboxUnavailable() ? null : await findAnyOrder(merchantId, id);
  if (!found) throw new NotFound("Order not found");
  if (found.kind === "order") await payOrder(merchantId, found.order.id);
  else if (found.kind === "onchain") await transferToDepositOrder(found.order, { amount: stillDue(found.order) });
  else await transferToCryptoPixPayment(found.order, { amount: stillDue(found.order) });
}
