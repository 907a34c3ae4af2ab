import type { Refunder } from "../refund/types";

export interface ExchangeWalletProvider extends Refunder {
  readonly name: string;
  /** Registers a payment the payer completes from an exchange app; returns what the QR code carries. */
  createPayment(args: { valueCentavos: number; paymentLinkId: string; payLink: string }): Promise<{ providerRef: string; qrContent: string }>;
}
