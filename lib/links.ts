import { publicBaseUrl } from "@/lib/env";

/** The hosted checkout a payer opens. */
export function paymentLink(paymentLinkId: string): string {
  return `${publicBaseUrl()}/pay/${paymentLinkId}`;
}

/** PNG of the payment's QR code (the exchange-wallet `qrCodeLink`). */
export function qrCodeLink(paymentLinkId: string): string {
  return `${publicBaseUrl()}/api/v1/public/payments/${paymentLinkId}/qr.png`;
}
