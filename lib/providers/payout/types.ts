import type { ProviderState, SendAnswer } from "../outcome";

// PIX payouts (docs/providers.md "PIX payouts"): no central-bank standard exists, so this is the
// provider-neutral part; each PSP is an adapter. The id is ours and idempotent: sending the same id
// again is never a second payment, so a payout whose answer was lost can be asked about, and sent
// again only when the provider never received it. What an answer to a send means is decided in one
// place (lib/providers/outcome), not by the adapters.

export type PayoutDestination = { pixKey: string } | { brcode: string };

/** PROCESSING: accepted, not final (EM_PROCESSAMENTO); COMPLETED: made (REALIZADO); FAILED: not made (NAO_REALIZADO). */
export type PayoutState = ProviderState;

/** The charge behind a dynamic BR Code, as the payer's PSP reads it from the code's location. */
export type DecodedCharge = {
  pixKey: string;
  amountCentavos: number;
  txid: string | null;
  recipientName: string | null;
  /** Whether it can still be paid: paid already (CONCLUIDA), or removed or expired at its PSP. */
  payable: boolean;
  /** When its PSP stops taking payments for it (null: no expiry given). */
  expiresAt: Date | null;
};

/** One PIX the provider sent, as its list of sent PIX shows it (reconciliation). */
export type SentPix = {
  /** The id we gave it (idEnvio), or null for one the provider lists without one of ours. */
  id: string | null;
  endToEndId: string | null;
  valueCentavos: number;
  status: "PROCESSING" | "COMPLETED" | "FAILED";
  /** When it was asked for (horario.solicitacao). */
  at: Date;
};

/**
 * A MED infraction against a PIX the account received (docs/providers.md "MED infractions"): the
 * payer's bank says the PIX was a fraud and asks for it back; the receiver may defend it until the
 * deadline, after which the PSP decides without it.
 */
export type Infraction = {
  /** The provider's id (Efí idInfracao). */
  id: string;
  endToEndId: string;
  valueCentavos: number;
  /** The provider's own status word (Efí: ABERTA, EM_DEFESA, ACEITA, REJEITADA, CANCELADA_EFI). */
  status: string;
  /** Whether a defence may still be sent (Efí: ABERTA). */
  open: boolean;
  /** Why it was opened, as the payer's bank wrote it (Efí razao). */
  reason: string;
  /** The kind of fraud claimed, where given (Efí tipoSituacao). */
  situation: string | null;
  openedAt: Date;
  /** When the analysis ends: the last moment a defence is taken (Efí dadosAnalise.prazoFinalizacao). */
  deadline: Date;
  /** The defence the provider holds, if any. */
  defence: string | null;
};

/** The provider's answer to a defence: taken, or refused with its reason (late, already answered, unknown id). */
export type DefenceAnswer = { status: "ACCEPTED" } | { status: "REFUSED"; reason: string };

export interface PixPayoutProvider {
  readonly name: string;
  /**
   * Asks for one payment: the payment's state, a refusal, or "this id was used before". Throws when
   * nothing was answered (timeout, reset, 5xx, 429): `read` tells later.
   */
  send(payout: {
    id: string;
    destination: PayoutDestination;
    valueCentavos: number;
    description?: string;
  }): Promise<SendAnswer>;
  /** The payment with our id as the provider sees it now, or null when it has none (yet: reads can lag the send). */
  read(id: string): Promise<PayoutState | null>;
  /**
   * A dynamic BR Code's charge, read by the PSP from the code's location (JWS verified there). Throws
   * InvalidInput for a code it cannot read; absent where the provider cannot decode codes.
   */
  decode?(pixCopiaECola: string): Promise<DecodedCharge>;
  /** The PIX sent in [from, to], a page at a time (reconciliation); absent where the provider has no list. */
  listSent?(window: { from: Date; to: Date; page: number }): Promise<{ items: SentPix[]; pages: number }>;
  /**
   * What the account the PIX leave from holds now, in centavos (the solvency report's PSP line); absent
   * where the provider has no call for it. Throws when it did not answer.
   */
  balance?(): Promise<number>;
  /**
   * What the provider blocks on the account beyond `balance` (Efí's `bloqueios`: under the MED, by court
   * order), in centavos; null when it reports none. Absent where the provider does not say.
   */
  blocked?(): Promise<{ medCentavos: number; judicialCentavos: number } | null>;
  /** The MED infractions opened in [from, to] (docs/providers.md "MED infractions"); absent where the provider has no such API. */
  listInfractions?(window: { from: Date; to: Date }): Promise<Infraction[]>;
  /**
   * Sends the receiver's defence of one infraction (it contests the claim). Throws when nothing was
   * answered: whether it arrived is then read back from the list.
   */
  defendInfraction?(id: string, justification: string): Promise<DefenceAnswer>;
}
