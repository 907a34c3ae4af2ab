import type { CryptoPixPayment } from "@/db/schema";
import { encodeCryptoPixId } from "@/lib/ids";
import { centavosToBrl, cryptoToNumber, Decimal } from "@/lib/money";
import type { Asset } from "@/lib/chain/tokens";
import type { CryptoPixView, PayCryptoPixResponse } from "./schemas";

// network and asset are text columns, written only after resolveToken accepted them for Crypto-PIX.
type CryptoPixNetwork = CryptoPixView["network"];

/** Spec §2.6: top-level fields of the Crypto-PIX lookup. `satoshis` is Lightning-only, so absent here. */
export function cryptoPixView(p: CryptoPixPayment): CryptoPixView {
  const remaining = Decimal.max(0, new Decimal(p.cryptoAmount).minus(p.receivedAmount)).toFixed();
  const isPartial = p.status === "PARTIAL_ORDER";
  return {
    payCryptoPixId: encodeCryptoPixId(p.id),
    value: centavosToBrl(p.valueCentavos),
    cryptoValue: cryptoToNumber(p.cryptoAmount),
    updatedAt: p.updatedAt.toISOString(),
    status: p.status,
    network: p.network as CryptoPixNetwork,
    asset: p.asset as Asset,
    address: p.address,
    receivedValue: cryptoToNumber(p.receivedAmount),
    originalCryptoValue: cryptoToNumber(p.cryptoAmount),
    partialUpdatedAt: p.partialUpdatedAt ? p.partialUpdatedAt.toISOString() : null,
    partialBrlValue: p.partialBrlCentavos === null ? null : centavosToBrl(p.partialBrlCentavos),
    isPartial,
    remaining: cryptoToNumber(remaining),
    hash: p.txHash ?? "",
    btcQuote: 0,
    pixKey: p.pixKey,
    recipientName: p.recipientName,
    expiresAt: p.expiresAt.toISOString(),
    createdAt: p.createdAt.toISOString(),
    ...(p.refundStatus ? { refundStatus: p.refundStatus } : {}),
    ...(p.refundTxHash ? { refundHash: p.refundTxHash } : {}),
    ...(p.failureReason ? { failureReason: p.failureReason } : {}),
  };
}

/** Spec §2.7: the pay result (`data`), plus where and how much to send. */
export function cryptoPixCreatedView(p: CryptoPixPayment): PayCryptoPixResponse["data"] {
  return {
    pixKey: p.pixKey,
    payCryptoPixId: encodeCryptoPixId(p.id),
    value: centavosToBrl(p.valueCentavos),
    address: p.address,
    network: p.network as CryptoPixNetwork,
    asset: p.asset as Asset,
    tokenAddress: p.tokenAddress,
    cryptoValue: cryptoToNumber(p.cryptoAmount),
    rate: cryptoToNumber(p.rate),
    recipientName: p.recipientName,
    status: p.status,
    expiresAt: p.expiresAt.toISOString(),
  };
}
