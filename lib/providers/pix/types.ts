import type { Refunder } from "../refund/types";

/** A charge: its BR Code and its txid (chosen by the adapter: static codes carry at most 25 characters, API Pix charges 26–35). */
export type PixCollection = { brcode: string; txid: string; provider: string; providerRef: string };

/** A PIX received at the service's key, as the PSP reports it. */
export type ReceivedPix = {
  endToEndId: string;
  /** The charge it paid; null for a payment to the key without one (a static code of someone else's). */
  txid: string | null;
  valueCentavos: number;
  /** The payment time (`horario`): what expiry is judged by. */
  paidAt: Date;
  /** The key that received it: only the service's own counts. */
  chave: string | null;
  /** Its devoluções as the PSP lists them (ours and those it made without our asking, MED), when it listed them. */
  returns?: PixReturnReport[];
};

/** One devolução of a received Pix (API Pix `Devolucao`). */
export type PixReturnReport = {
  /** The devolução's id: ours (a refund we asked for) or the PSP's (one we did not). */
  id: string;
  rtrId: string | null;
  valueCentavos: number;
  /** Absent in the PSP's answer means ORIGINAL (the document). */
  natureza: "ORIGINAL" | "RETIRADA" | "MED_OPERACIONAL" | "MED_FRAUDE" | "MED_PIX_AUTOMATICO";
  status: "EM_PROCESSAMENTO" | "DEVOLVIDO" | "NAO_REALIZADO";
  requestedAt: Date | null;
  returnedAt: Date | null;
  description: string | null;
};

export type CollectionPayer = { name: string } & ({ cpf: string } | { cnpj: string });

export interface PixProvider extends Refunder {
  readonly name: string;
  /** A BR Code that pays the service's receiving key for exactly this order. */
  createCollection(args: {
    valueCentavos: number;
    description?: string;
    expiresInSeconds?: number | null;
    payer?: CollectionPayer;
  }): Promise<PixCollection>;
  /**
   * Stops a charge from being paid (expiry, cancellation). "paid": too late, the PSP says it was paid
   * (the payment is then read and applied); "gone": the PSP no longer has it open.
   */
  cancelCollection(txid: string): Promise<"removed" | "paid" | "gone">;
  /** One received payment by end-to-end id, or null when the PSP has none: a notification is believed only if this agrees. */
  readPayment(endToEndId: string): Promise<ReceivedPix | null>;
  /** Payments received in [from, to], a page at a time (reconciliation); absent where the provider has no list. */
  listPayments?(window: {
    from: Date;
    to: Date;
    page: number;
    withReturnsOnly?: boolean;
  }): Promise<{ items: ReceivedPix[]; pages: number }>;
}
