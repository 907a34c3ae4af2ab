import { publicBaseUrl } from "@/lib/env";

/** The hosted checkout a payer opens. */
export function paymentLink(paymentLinkId: string): string {
  return `${publicBaseUrl()}/pay/${paymentLinkId}`;
}

/** PNG of the payment's QR code (the exchange-wallet `qrCodeLink`). */
export function qrCodeLink(paymentLinkId: string): string {
  return `${publicBaseUrl()}/api/v1/public/payments/${paymentLinkId}/qr.png`;
}

/**
 * A start-up warning when payment and QR links would send payers to this machine: PUBLIC_BASE_URL
 * unset (links fall back to http://localhost:PORT) or set to a loopback host. Null when links are public.
 */
export function localLinksWarning(publicBaseUrlSetting: string | undefined, base: string): string | null {
  const host = new URL(base).hostname;
  const loopback =
    host === "localhost" ||
    host.endsWith(".localhost") ||
    host === "[::1]" ||
    /^127\./.test(host) ||
    host === "0.0.0.0";
  if (!loopback) return null;
  const why = publicBaseUrlSetting ? `PUBLIC_BASE_URL is ${publicBaseUrlSetting}` : "PUBLIC_BASE_URL is not set";
  return `warning: ${why}, so payment links and QR codes point at ${base}, which a payer's phone cannot open. Set PUBLIC_BASE_URL to the address payers reach (docs/configuration.md).`;
}

/** The payer's page of a Crypto-PIX payment: what to send, where, and what became of it. */
export function cryptoPixPayLink(payCryptoPixId: string): string {
  return `${publicBaseUrl()}/pay/crypto-pix/${payCryptoPixId}`;
}
