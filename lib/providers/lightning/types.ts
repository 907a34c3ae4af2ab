/** The spec's `providerDetails` (§2.2): the Lightning provider's own view of an invoice. */
export type LightningProviderDetails = {
  success: boolean;
  data: {
    id: string;
    name: string | null;
    status: string;
    currency: string;
    created_at: number;
    fee: number;
    notes: string;
    address: string;
    metadata: Record<string, unknown>;
    fiat_value: number;
    amount: number;
    description: string;
    auto_settle: boolean;
    transactions: unknown[];
  };
};

export type LightningInvoice = {
  id: string;
  invoice: string;
  paymentHash: string;
  createdAt: Date;
  expiresAt: Date;
};

export type InvoiceState = {
  id: string;
  satoshis: number;
  fiatCentavos: number;
  description: string;
  name: string | null;
  createdAt: Date;
  status: "unpaid" | "paid" | "expired";
};

/**
 * An invoice as a live provider sees it now; `paidAt` is the provider's own settlement time (CONTRACT §6
 * compares it with expiry). A hold invoice the payer paid but we have not settled yet is `accepted`,
 * with when its payment arrived.
 */
export type RemoteInvoice = { id: string; status: string; paid: boolean; paidAt: Date | null; accepted?: boolean; acceptedAt?: Date | null; canceled?: boolean };

/** An invoice the node reported on its stream, with the node's position in it (LND's settle_index). */
export type StreamedInvoice = RemoteInvoice & { paymentHash: string; settleIndex: number | null };

export interface LightningProvider {
  readonly name: string;
  createInvoice(args: { satoshis: number; fiatCentavos: number; description: string; expirySeconds: number; name?: string }): Promise<LightningInvoice>;
  describe(state: InvoiceState): Promise<LightningProviderDetails>;
  /** Live providers only: reads the invoice back from the provider. */
  readInvoice?(id: string): Promise<RemoteInvoice>;
  /** Live providers only: whether a payment notification really comes from the provider. */
  verifyCallback?(payload: Record<string, unknown>): boolean;
  /**
   * Nodes that stream their invoices (LND): calls `onInvoice` for every invoice settled after
   * `afterSettleIndex` (replayed first, then live) and for hold invoices changing state, until the
   * stream ends or `signal` aborts. Resolves when the node closes it; throws when it fails.
   */
  followInvoices?(afterSettleIndex: number, signal: AbortSignal, onInvoice: (invoice: StreamedInvoice) => Promise<void>): Promise<void>;
  /**
   * One invoice's changes, its current state first (LND's single-invoice stream: the only one that
   * reports a hold invoice ACCEPTED or CANCELED). Resolves when the node ends the stream.
   */
  followInvoice?(paymentHash: string, signal: AbortSignal, onInvoice: (invoice: StreamedInvoice) => Promise<void>): Promise<void>;
  /** Hold invoices (LND): the payment is accepted and held until we settle it with the preimage, or cancel it (the payer's funds go back). */
  createHoldInvoice?(args: { paymentHash: string; satoshis: number; description: string; expirySeconds: number }): Promise<LightningInvoice>;
  settleHoldInvoice?(preimage: string): Promise<void>;
  cancelHoldInvoice?(paymentHash: string): Promise<void>;
}
