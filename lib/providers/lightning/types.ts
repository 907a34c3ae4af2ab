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

/** An invoice as a live provider sees it now; `paidAt` is the provider's own settlement time (CONTRACT §6 compares it with expiry). */
export type RemoteInvoice = { id: string; status: string; paid: boolean; paidAt: Date | null };

export interface LightningProvider {
  readonly name: string;
  createInvoice(args: { satoshis: number; fiatCentavos: number; description: string; expirySeconds: number; name?: string }): Promise<LightningInvoice>;
  describe(state: InvoiceState): Promise<LightningProviderDetails>;
  /** Live providers only: reads the invoice back from the provider. */
  readInvoice?(id: string): Promise<RemoteInvoice>;
  /** Live providers only: whether a payment notification really comes from the provider. */
  verifyCallback?(payload: Record<string, unknown>): boolean;
}
