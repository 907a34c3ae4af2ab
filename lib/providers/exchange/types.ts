import type { HeldBalance } from "../balance";
import type { Refunder } from "../refund/types";

/** An exchange-wallet payment as its provider sees it now; `paidAt` is the provider's own payment time. */
export type ExchangePaymentState = {
  status: "pending" | "paid" | "closed";
  paidAt: Date | null;
  paymentRef: string | null;
};

/** A provider notification whose signature verified: which order (or refund) it is about. Never trusted beyond that. */
export type ExchangeNotification = {
  kind: string;
  status: string;
  id: string;
  merchantTradeNo: string | null;
  refundRequestId: string | null;
};

/** The provider's own record of one of our orders (reconciliation): its state and amount in its own words. */
export type ExchangeOrderRecord = {
  status: string;
  orderAmount: string;
  currency: string;
  paidAt: Date | null;
  createdAt: Date | null;
};

/** The provider's own record of one of our refunds (reconciliation), with the amount of the order it refunds. */
export type ExchangeRefundRecord = { status: string; refundAmount: string; orderAmount: string };

export type ExchangePayment = {
  providerRef: string;
  /** What the QR code carries. */
  qrContent: string;
  /** What else the provider gave the payer (Binance Pay: qrcodeLink, checkoutUrl, deeplink, universalUrl). */
  links?: Record<string, string>;
};

export interface ExchangeWalletProvider extends Refunder {
  readonly name: string;
  /** Registers a payment the payer completes from an exchange app. `paymentLinkId` is our idempotent id for it. */
  createPayment(args: {
    valueCentavos: number;
    paymentLinkId: string;
    payLink: string;
    expiresAt: Date;
    description: string;
  }): Promise<ExchangePayment>;
  /** Live providers: the payment as the provider sees it (by our id). */
  readPayment?(args: { merchantTradeNo: string; providerRef: string }): Promise<ExchangePaymentState>;
  /** Live providers: stops the payment at expiry. "paid": too late, it was paid; "gone": the provider has no open payment. */
  closePayment?(args: { merchantTradeNo: string; providerRef: string }): Promise<"closed" | "paid" | "gone">;
  /** Live providers (reconciliation): the provider's record of our order, null when it has none. */
  readOrderRecord?(merchantTradeNo: string): Promise<ExchangeOrderRecord | null>;
  /** Live providers (reconciliation): the provider's record of our refund (by our id), null when it has none. */
  readRefundRecord?(refundId: string): Promise<ExchangeRefundRecord | null>;
  /** Live providers: the notification, when its signature verifies over the raw body; null otherwise. */
  verifyNotification?(headers: Pick<Headers, "get">, rawBody: string): Promise<ExchangeNotification | null>;
  /** What the merchant wallet holds (the solvency report); absent where the adapter has no call for it. */
  balance?(): Promise<HeldBalance>;
}
