import { db } from "@/db";
import type { CryptoPixPayment } from "@/db/schema";
import { NotFound } from "@/lib/errors";
import { decodeCryptoPixId, encodeCryptoPixId } from "@/lib/ids";
import { cryptoPixPayLink } from "@/lib/links";
import { depositTransferUri } from "@/lib/chain/payment-uri";
import { centavosToBrl, cryptoToNumber, Decimal } from "@/lib/money";
import { merchantById } from "@/lib/merchants/queries";
import { maskPixKey } from "@/lib/pix/keys";
import { chainPayment, overLightning } from "@/lib/crypto-pix/kinds";
import { paymentById } from "@/lib/crypto-pix/queries";
import { paymentExpiredOnRead } from "@/lib/crypto-pix/service";
import type { PublicCryptoPix } from "./schemas";

// The payer's view of a Crypto-PIX payment, by its payCryptoPixId (the payer's link carries it, as a
// payment link id does for the other kinds). Nothing private to the merchant: no internal id, no
// references; the recipient's key masked.

function howToPay(p: CryptoPixPayment): PublicCryptoPix["payment"] {
  const remaining = Decimal.max(0, new Decimal(p.cryptoAmount).minus(p.receivedAmount)).toFixed();
  const base = {
    network: p.network as PublicCryptoPix["payment"]["network"],
    asset: p.asset as PublicCryptoPix["payment"]["asset"],
    address: p.address,
    amount: cryptoToNumber(p.cryptoAmount),
    received: cryptoToNumber(p.receivedAmount),
    remaining: cryptoToNumber(remaining),
  };
  if (overLightning(p)) {
    const satoshis = Number(new Decimal(p.cryptoAmount).times(100_000_000).toFixed(0));
    return { ...base, satoshis, qrContent: `lightning:${p.address.toUpperCase()}` };
  }
  const chain = chainPayment(p);
  return { ...base, tokenAddress: chain.tokenAddress, qrContent: depositTransferUri(chain) };
}

export async function publicCryptoPixPayment(payCryptoPixId: string): Promise<PublicCryptoPix> {
  const id = decodeCryptoPixId(payCryptoPixId);
  const row = id ? await paymentById(db(), id) : undefined;
  if (!row) throw new NotFound("Payment not found");
  const p = await paymentExpiredOnRead(row);
  const merchant = await merchantById(db(), p.merchantId);
  const canonicalId = encodeCryptoPixId(p.id);
  return {
    payCryptoPixId: canonicalId,
    merchantName: merchant?.companyName ?? "",
    status: p.status,
    value: centavosToBrl(p.valueCentavos),
    currency: "BRL",
    recipientName: p.recipientName,
    recipientCity: p.recipientCity,
    pixKey: maskPixKey(p.pixKey),
    createdAt: p.createdAt.toISOString(),
    expiresAt: p.expiresAt.toISOString(),
    paidAt: p.paidAt ? p.paidAt.toISOString() : null,
    link: cryptoPixPayLink(canonicalId),
    payment: howToPay(p),
    ...(p.txHash && !overLightning(p) ? { txHash: p.txHash } : {}),
    ...(p.refundStatus
      ? {
          refund: {
            status: p.refundStatus,
            amount: cryptoToNumber(p.receivedAmount),
            ...(p.refundTxHash ? { txHash: p.refundTxHash } : {}),
          },
        }
      : {}),
  };
}
