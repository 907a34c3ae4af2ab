import type { CryptoPixInvoice, CryptoPixPayment } from "@/db/schema";
import { encodeCryptoPixId } from "@/lib/ids";
import { centavosToBrl, cryptoToNumber, Decimal } from "@/lib/money";

import { overLightning } from "./kinds";
import type { CryptoPixView, HoldInvoiceStatus, PayCryptoPixResponse } from "./schemas";

// network and asset are text columns, written only after resolveToken accepted them for Crypto-PIX.
type CryptoPixNetwork = CryptoPixView["network"];

/** The invoice's satoshis, from its BTC amount (8 decimals, exact). */
const satoshisOf = (p: CryptoPixPayment) => new Decimal(p.cryptoAmount).times(100_000_000).toFixed(0);

/** The hold invoice's stage, from what is left to do at the node (lib/crypto-pix/lightning.ts). */
export function holdInvoiceStatus(i: Pick<CryptoPixInvoice, "state" | "action" | "lastError">): HoldInvoiceStatus {
  if (i.action === "settle") return i.lastError ? "SETTLE_FAILING" : "SETTLING";
  if (i.action === "cancel") return "CANCELLING";
  return ({ open: "OPEN", accepted: "HELD", settled: "SETTLED", canceled: "CANCELED" } as const)[i.state];
}

export function holdInvoiceView(i: CryptoPixInvoice): NonNullable<CryptoPixView["holdInvoice"]> {
  return {
    status: holdInvoiceStatus(i),
    lastError: i.lastError,
    attention: i.attention,
    attentionSince: i.attentionAt ? i.attentionAt.toISOString() : null,
    acceptHeight: i.acceptHeight,
    htlcExpiryHeight: i.htlcExpiryHeight,
  };
}

/**
 * The Crypto-PIX lookup's fields, at the top level (docs/api.md#endpoints). `satoshis` only over Lightning; `holdInvoice`
 * only when the caller read the payment's hold invoice (the lookup does; events do not).
 */
export function cryptoPixView(p: CryptoPixPayment, invoice?: CryptoPixInvoice): CryptoPixView {
  const remaining = Decimal.max(0, new Decimal(p.cryptoAmount).minus(p.receivedAmount)).toFixed();
  const isPartial = p.status === "PARTIAL_ORDER";
  return {
    payCryptoPixId: encodeCryptoPixId(p.id),
    value: centavosToBrl(p.valueCentavos),
    cryptoValue: cryptoToNumber(p.cryptoAmount),
    updatedAt: p.updatedAt.toISOString(),
    status: p.status,
    network: p.network as CryptoPixNetwork,
    asset: p.asset as CryptoPixView["asset"],
    address: p.address,
    receivedValue: cryptoToNumber(p.receivedAmount),
    originalCryptoValue: cryptoToNumber(p.cryptoAmount),
    partialUpdatedAt: p.partialUpdatedAt ? p.partialUpdatedAt.toISOString() : null,
    partialBrlValue: p.partialBrlCentavos === null ? null : centavosToBrl(p.partialBrlCentavos),
    isPartial,
    remaining: cryptoToNumber(remaining),
    hash: p.txHash ?? "",
    btcQuote: overLightning(p) ? cryptoToNumber(p.rate) : 0,
    ...(overLightning(p) ? { satoshis: satoshisOf(p) } : {}),
    pixKey: p.pixKey,
    recipientName: p.recipientName,
    expiresAt: p.expiresAt.toISOString(),
    createdAt: p.createdAt.toISOString(),
    ...(p.refundStatus ? { refundStatus: p.refundStatus } : {}),
    ...(p.refundTxHash ? { refundHash: p.refundTxHash } : {}),
    ...(p.failureReason ? { failureReason: p.failureReason } : {}),
    metadata: p.metadata,
    ...(invoice ? { holdInvoice: holdInvoiceView(invoice) } : {}),
  };
}

/** The pay result (`data`), plus where and how much to send. */
export function cryptoPixCreatedView(p: CryptoPixPayment): PayCryptoPixResponse["data"] {
  return {
    pixKey: p.pixKey,
    payCryptoPixId: encodeCryptoPixId(p.id),
    value: centavosToBrl(p.valueCentavos),
    address: p.address,
    network: p.network as CryptoPixNetwork,
    asset: p.asset as CryptoPixView["asset"],
    ...(p.tokenAddress ? { tokenAddress: p.tokenAddress } : {}),
    cryptoValue: cryptoToNumber(p.cryptoAmount),
    ...(overLightning(p) ? { satoshis: satoshisOf(p) } : {}),
    rate: cryptoToNumber(p.rate),
    recipientName: p.recipientName,
    status: p.status,
    expiresAt: p.expiresAt.toISOString(),
    metadata: p.metadata,
  };
}
