import type { CryptoPixPayment } from "@/db/schema";

// A Crypto-PIX payment is paid on a chain (a token to a deposit address) or over Lightning (a hold
// invoice, in crypto_pix_invoices). Code that only makes sense on a chain narrows with chainPayment.

export const LIGHTNING_NETWORK = "lightning";

export type ChainPayment = CryptoPixPayment & { tokenAddress: string; tokenDecimals: number };

export const overLightning = (p: Pick<CryptoPixPayment, "network">) => p.network === LIGHTNING_NETWORK;

export function chainPayment(p: CryptoPixPayment): ChainPayment {
  if (p.tokenAddress === null || p.tokenDecimals === null)
    throw new Error(`Crypto-PIX payment ${p.id} is paid over Lightning, not on a chain`);
  return p as ChainPayment;
}
