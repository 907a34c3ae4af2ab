import type { HeldBalance } from "../balance";
/** `providerDetails` of the order lookup (docs/api.md#endpoints): the Lightning provider's own view of an invoice. */
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
 * An invoice as a live provider sees it now; `paidAt` is the provider's own payment time, what expiry is
 * judged by (docs/providers.md, "Payments reported late"). A hold invoice the payer paid but we have not
 * settled yet is `accepted`, with when its payment arrived.
 */
export type RemoteInvoice = {
  id: string;
  status: string;
  paid: boolean;
  paidAt: Date | null;
  accepted?: boolean;
  acceptedAt?: Date | null;
  canceled?: boolean;
  /** The amount the provider holds the invoice for, when it says: a record for another amount is not the order's. */
  satoshis?: number;
  /** Our id the provider keeps with the invoice (OpenNode's `order_id`, our payment link id); null when it was made without one. */
  orderRef?: string | null;
  /**
   * A payment the provider has seen but not settled (OpenNode's `processing`: on chain, awaiting
   * confirmations), made at `at` (null when the provider does not say): the order is not cancelled under it.
   */
  pending?: { at: Date | null } | null;
  /**
   * Only part of the amount arrived (OpenNode's `underpaid`): how much, when its last part was seen, and
   * whether the rest can still come (`open`: the provider still takes it).
   */
  underpaid?: { receivedSatoshis: number; missingSatoshis: number; at: Date; open: boolean } | null;
} & Partial<HeldHtlcs>;

/**
 * Where a hold invoice's held HTLCs stand on the chain (LND): the earliest expiry height among them
 * (the node cancels the invoice some blocks before it) and the height the last one was accepted at.
 */
export type HeldHtlcs = { htlcExpiryHeight: number | null; acceptHeight: number | null };

/** An invoice the node reported on its stream, with the node's position in it (LND's settle_index). */
export type StreamedInvoice = RemoteInvoice & { paymentHash: string; settleIndex: number | null };

/** An invoice as the node's list shows it (reconciliation): its add index (the list's cursor) and what was paid. */
export type ListedInvoice = StreamedInvoice & { addIndex: number; valueSatoshis: number; paidSatoshis: number };

export interface LightningProvider {
  readonly name: string;
  /** `paymentLinkId`: the order's, kept by providers that hold a reference of ours (OpenNode's `order_id`). */
  createInvoice(args: {
    satoshis: number;
    fiatCentavos: number;
    description: string;
    expirySeconds: number;
    name?: string;
    paymentLinkId: string;
  }): Promise<LightningInvoice>;
  /**
   * Live providers whose payments can still be under way when an order expires (OpenNode's on-chain
   * fallback): the expiry sweep reads the invoice before cancelling its order.
   */
  readonly readBeforeExpiry?: boolean;
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
  followInvoices?(
    afterSettleIndex: number,
    signal: AbortSignal,
    onInvoice: (invoice: StreamedInvoice) => Promise<void>,
  ): Promise<void>;
  /**
   * One invoice's changes, its current state first (LND's single-invoice stream: the only one that
   * reports a hold invoice ACCEPTED or CANCELED). Resolves when the node ends the stream.
   */
  followInvoice?(
    paymentHash: string,
    signal: AbortSignal,
    onInvoice: (invoice: StreamedInvoice) => Promise<void>,
  ): Promise<void>;
  /** Hold invoices (LND): the payment is accepted and held until we settle it with the preimage, or cancel it (the payer's funds go back). */
  createHoldInvoice?(args: {
    paymentHash: string;
    satoshis: number;
    description: string;
    expirySeconds: number;
  }): Promise<LightningInvoice>;
  settleHoldInvoice?(preimage: string): Promise<void>;
  cancelHoldInvoice?(paymentHash: string): Promise<void>;
  /**
   * Nodes that list their invoices (LND, reconciliation): up to `max` invoices created in [createdFrom,
   * createdTo], in the node's add order after `indexOffset`; `lastIndexOffset` is where the next page starts.
   */
  listInvoices?(args: {
    indexOffset: number;
    max: number;
    createdFrom: Date;
    createdTo: Date;
  }): Promise<{ invoices: ListedInvoice[]; lastIndexOffset: number }>;
  /** Nodes on a chain (LND): the current block height, which held HTLCs expire against. */
  bestBlockHeight?(): Promise<number>;
  /** What the node's channels hold for us (the solvency report); absent where the adapter has no call for it. */
  balance?(): Promise<HeldBalance>;
}
