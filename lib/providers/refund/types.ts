import type { ProviderState, SendAnswer } from "../outcome";

// Sending a payment back (docs/api.md "Refunds"): the part every refunding provider shares. The id is
// ours and idempotent (API Pix `devolucao/{id}`, Binance Pay `refundRequestId`): asking again with it
// is never a second refund, so a refund whose answer was lost is read back, and sent again only when
// the provider never received it. What an answer to a send means is decided in one place
// (lib/providers/outcome), not by the adapters.

/** PROCESSING: accepted, not final; COMPLETED: the money went back; FAILED: the provider says it was not made. */
export type RefundState = ProviderState;

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
  /** Asks for one refund: its state, a refusal, or "this id was used before". Throws when nothing was answered: `readRefund` tells later. */
  refund(request: RefundRequest): Promise<SendAnswer>;
  /** The refund with our id as the provider sees it now, or null when it has none (yet: reads can lag the request). */
  readRefund(request: Pick<RefundRequest, "id" | "paymentRef">): Promise<RefundState | null>;
}
