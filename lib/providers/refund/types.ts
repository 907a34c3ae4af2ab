// Sending a payment back (CONTRACT §11): the part every refunding provider shares. The id is ours and
// idempotent (API Pix `devolucao/{id}`, Binance Pay `refundRequestId`): asking again with it is never a
// second refund, so a refund whose answer was lost is read back, and sent again only when the
// provider never received it.

/** PROCESSING: accepted, not final; COMPLETED: the money went back; FAILED: the provider says it was not made. */
export type RefundState = { status: "PROCESSING" | "COMPLETED" | "FAILED"; providerRef?: string; reason?: string };

export type RefundRequest = {
  /** Our refund's idempotent id (1–35 letters and digits). */
  id: string;
  /** What is refunded: the PIX's end-to-end id, the exchange payment's id. */
  paymentRef: string;
  valueCentavos: number;
  /** The whole order's value: a provider that refunds in another currency refunds the same share of it. */
  orderValueCentavos?: number;
  reason?: string;
};

export interface Refunder {
  /** Asks for one refund. Throws when the outcome is unknown (timeout, reset): `readRefund` tells later. */
  refund(request: RefundRequest): Promise<RefundState>;
  /** The refund with our id as the provider sees it now, or null when it never received it. */
  readRefund(request: Pick<RefundRequest, "id" | "paymentRef">): Promise<RefundState | null>;
}
