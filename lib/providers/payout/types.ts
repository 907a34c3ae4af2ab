// PIX payouts (CONTRACT §10): no central-bank standard exists, so this is the provider-neutral part;
// each PSP is an adapter. The id is ours and idempotent: sending the same id again is never a second
// payment, so a payout whose answer was lost can be asked about, and sent again only when the
// provider never received it.

export type PayoutDestination = { pixKey: string } | { brcode: string };

/** PROCESSING: accepted, not final (EM_PROCESSAMENTO); COMPLETED: made (REALIZADO); FAILED: not made (NAO_REALIZADO). */
export type PayoutState = { status: "PROCESSING" | "COMPLETED" | "FAILED"; providerRef?: string; reason?: string };

export interface PixPayoutProvider {
  readonly name: string;
  /** Asks for one payment. Throws when the outcome is unknown (timeout, reset): `read` tells later. */
  send(payout: { id: string; destination: PayoutDestination; valueCentavos: number; description?: string }): Promise<PayoutState>;
  /** The payment with our id as the provider sees it now, or null when it never received it. */
  read(id: string): Promise<PayoutState | null>;
}
