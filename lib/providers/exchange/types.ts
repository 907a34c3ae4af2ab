export interface ExchangeWalletProvider {
  readonly name: string;
  /** Registers a payment the payer completes from an exchange app; returns what the QR code carries. */
  createPayment(args: { valueCentavos: number; paymentLinkId: string; payLink: string }): Promise<{ providerRef: string; qrContent: string }>;
}
