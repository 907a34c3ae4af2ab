import { InvalidInput } from "@/lib/errors";
import type { CollectionPayer } from "../pix/types";

// Pix Automático (API Pix 2.9.0: /locrec, /rec, /cobr, /cobr/{txid}/retentativa/{data}, /webhookrec,
// /webhookcobr). What the subscriptions domain asks of a PSP: a recurrence the payer authorises (with
// journey 3's immediate charge), each cycle's charge, retries, cancellations, and reads that tell what
// happened. Names follow the document's schemas; amounts are centavos, dates YYYY-MM-DD (São Paulo),
// instants Dates. Nothing a notification says is believed: the domain reads the object back.

/** calendario.periodicidade */
export type Periodicity = "SEMANAL" | "MENSAL" | "TRIMESTRAL" | "SEMESTRAL" | "ANUAL";

/** politicaRetentativa: PERMITE_3R_7D = up to 3 new attempts in the 7 days after the due date. */
export type RetryPolicy = "NAO_PERMITE" | "PERMITE_3R_7D";

/** The journeys a recurrence can be created for here (ativacao.tipoJornada as requested). */
export type Journey = "JORNADA_2" | "JORNADA_3";

/** ativacao.tipoJornada as the PSP reports it. */
export type ActivationJourney = "JORNADA_1" | "JORNADA_2" | "JORNADA_3" | "JORNADA_4" | "AGUARDANDO_DEFINICAO";

/** RecStatus */
export type RecStatus = "CRIADA" | "APROVADA" | "REJEITADA" | "EXPIRADA" | "CANCELADA";

/** CobRStatus */
export type CobRStatus = "CRIADA" | "ATIVA" | "CONCLUIDA" | "EXPIRADA" | "REJEITADA" | "CANCELADA";

/** CobRTentativas.tentativas[].status */
export type AttemptStatus = "SOLICITADA" | "AGENDADA" | "PAGA" | "CANCELADA" | "REJEITADA" | "EXPIRADA";

/** CobRTentativas.tentativas[].tipo: AGND scheduled in time, NTAG not scheduled in time, RIFL a retry. */
export type AttemptType = "AGND" | "NTAG" | "RIFL";

/** encerramento.cancelamento.solicitante */
export type CancellationRequester = "PSP_PAGADOR" | "USUARIO_PAGADOR" | "PSP_RECEBEDOR" | "USUARIO_RECEBEDOR";

/** How a recurrence or a charge ended (encerramento): a cancellation by someone, or a rejection. */
export type Closure =
  | { kind: "cancellation"; requestedBy: CancellationRequester; code: string; description: string }
  | { kind: "rejection"; code: string; description: string };

/**
 * valor: a fixed amount (valorRec), or a variable one the payer caps at authorisation, with the
 * recipient's optional floor (valorMinimoRecebedor). The document forbids both at once.
 */
export type RecurrenceAmount = { fixedCentavos: number } | { minimumCentavos: number | null };

/** What POST /rec (RecSolicitada) is made of, plus journey 3's immediate charge. */
export type RecurrenceRequest = {
  journey: Journey;
  /** vinculo.contrato (≤ 35): what the payer's bank shows as the contract. */
  contract: string;
  /** vinculo.objeto (≤ 35): what the payments are for. */
  object?: string;
  /** vinculo.devedor: CPF or CNPJ and name. */
  debtor: CollectionPayer;
  /** calendario: dataInicial, dataFinal (optional), periodicidade. */
  calendar: { firstDate: string; lastDate?: string | null; periodicity: Periodicity };
  amount: RecurrenceAmount;
  retryPolicy: RetryPolicy;
  /**
   * JORNADA_3 only: the immediate charge (cob) the composite QR pays now; its txid goes into
   * ativacao.dadosJornada.txid. Absent for JORNADA_2.
   */
  immediateCharge?: { valueCentavos: number; description?: string; expiresInSeconds?: number };
};

/**
 * What a creation has made at the PSP so far, as recorded here: the locrec's id once the PSP gave it,
 * journey 3's immediate charge txid (ours, recorded before it is sent), the recurrence's id once
 * known. A retry resumes from it: nothing recorded is made a second time.
 */
export type RecurrenceProgress = { locationId: string | null; immediateTxid: string | null; idRec: string | null };

/** The progress recorded so far, and how to record (and commit) each step before the next is sent. */
export type RecurrenceResume = { progress: RecurrenceProgress; record(progress: RecurrenceProgress): Promise<void> };

/** A recurrence the PSP made, with the code the payer reads (dadosQR.pixCopiaECola). */
export type CreatedRecurrence = {
  idRec: string;
  status: RecStatus;
  /** The composite BR Code: recurrence only (JORNADA_2) or immediate charge + recurrence (JORNADA_3). */
  brcode: string;
  /** The locrec's id and location, where the PSP gave them. */
  locationId: string | null;
  location: string | null;
  /** JORNADA_3's immediate charge txid; null for JORNADA_2. */
  immediateTxid: string | null;
  provider: string;
};

/** A recurrence as the PSP holds it (RecCompleta / RecNotification). */
export type RecurrenceReport = {
  idRec: string;
  status: RecStatus;
  journey: ActivationJourney | null;
  /** ativacao.dadosJornada.txid */
  immediateTxid: string | null;
  retryPolicy: RetryPolicy | null;
  /** atualizacao: each status and when. */
  history: { status: RecStatus; at: Date }[];
  closure: Closure | null;
};

/** A Pix received for a charge (the document's Pix / PixAutomatico items). */
export type ReceivedPayment = { endToEndId: string; valueCentavos: number; paidAt: Date };

/** Journey 3's immediate charge (GET /cob/{txid}). */
export type ImmediateChargeReport = {
  txid: string;
  status: "ATIVA" | "CONCLUIDA" | "REMOVIDA_PELO_USUARIO_RECEBEDOR" | "REMOVIDA_PELO_PSP";
  valueCentavos: number;
  payments: ReceivedPayment[];
};

/** PUT /cobr/{txid} (CobRSolicitada). recebedor (the account credited) is the adapter's configuration. */
export type CycleChargeRequest = {
  /** Ours, from newTxid(): a retried send after a crash is the same charge, never a second one. */
  txid: string;
  idRec: string;
  /** calendario.dataDeVencimento */
  dueDate: string;
  /** valor.original */
  valueCentavos: number;
  /** devedor (DadosDevedorRecorrencia) */
  debtor: CollectionPayer;
  /** infoAdicional (≤ 140) */
  info?: string;
  /** ajusteDiaUtil: default true. */
  adjustToBusinessDay?: boolean;
};

/** One attempt of a cycle charge (CobRTentativas.tentativas[]). */
export type ChargeAttempt = {
  /** dataLiquidacao */
  settlementDate: string;
  type: AttemptType;
  status: AttemptStatus;
  endToEndId: string;
  rejection: { code: string; description: string } | null;
  history: { status: AttemptStatus; at: Date }[];
};

/** A cycle charge as the PSP holds it (CobRCompleta / CobRNotification). */
export type CycleChargeReport = {
  txid: string;
  idRec: string;
  status: CobRStatus;
  dueDate: string;
  valueCentavos: number;
  retryPolicy: RetryPolicy | null;
  attempts: ChargeAttempt[];
  /** pix: what was received for it (a CONCLUIDA charge has exactly one). */
  payments: ReceivedPayment[];
  history: { status: CobRStatus; at: Date }[];
  closure: Closure | null;
};

/** A PSP's refusal as it worded it (an API Pix Problema): title, detail and each violation. */
export type RecurringProblem = {
  /** The document's type name where given (RecOperacaoInvalida, CobROperacaoInvalida, …). */
  type?: string;
  title: string;
  detail?: string;
  violations: { property: string; reason: string }[];
};

/** The PSP refused a request (a 400 Problema): passed on, never read as an outcome of money. */
export class RecurringRefused extends InvalidInput {
  constructor(readonly problem: RecurringProblem) {
    const violations = problem.violations.map((v) => `${v.property}: ${v.reason}`).join("; ");
    const reason = `${problem.title}${problem.detail ? `: ${problem.detail}` : ""}${violations ? ` (${violations})` : ""}`;
    super(`The PIX provider refused the request: ${reason}`, {
      code: "subscription.refusedByProvider",
      values: { reason },
    });
  }
}

/** What a notification (POST to our /webhookrec or /webhookcobr callback) names: hints to read back. */
export type RecurringNotice = { recs: string[]; charges: { txid: string; idRec: string | null }[] };

export interface RecurringProvider {
  readonly name: string;
  /** A txid for a new cycle charge (26–35 characters, [a-zA-Z0-9]). */
  newTxid(): string;
  /**
   * POST /locrec, (JORNADA_3: PUT /cob/{txid} with the immediate charge), POST /rec with the loc and
   * ativacao.dadosJornada.txid, then GET /rec/{idRec}[?txid] for dadosQR.pixCopiaECola.
   * A refusal is a RecurringRefused. With `resume`, each id is recorded as soon as it is known, and what
   * was recorded is read back and reused (GET /locrec/{id} names the recurrence linked to it), never
   * made again: a retry after a lost answer or a crash makes one recurrence, not two.
   */
  createRecurrence(request: RecurrenceRequest, resume?: RecurrenceResume): Promise<CreatedRecurrence>;
  /** GET /locrec/{id}: the recurrence linked to the location (idRec), null when none is (or no such location). */
  linkedRecurrence?(locationId: string): Promise<string | null>;
  /** GET /rec/{idRec}; null when the PSP has none. */
  readRecurrence(idRec: string): Promise<RecurrenceReport | null>;
  /** PATCH /rec/{idRec} status CANCELADA. "gone": it had already ended (expired, rejected, cancelled). */
  cancelRecurrence(idRec: string): Promise<"cancelled" | "gone">;
  /** GET /cob/{txid}: journey 3's immediate charge; null when the PSP has none. */
  readImmediateCharge(txid: string): Promise<ImmediateChargeReport | null>;
  /** PUT /cobr/{txid}; the same txid again answers the charge already made. A refusal is a RecurringRefused. */
  createCharge(request: CycleChargeRequest): Promise<CycleChargeReport>;
  /** GET /cobr/{txid}; null when the PSP has none. */
  readCharge(txid: string): Promise<CycleChargeReport | null>;
  /**
   * PATCH /cobr/{txid} status CANCELADA. "too-late": the document forbids cancelling on or after the
   * first attempt's settlement date, or it was paid; "gone": it had already ended otherwise.
   */
  cancelCharge(txid: string): Promise<"cancelled" | "too-late" | "gone">;
  /** POST /cobr/{txid}/retentativa/{date}: a new attempt settling on `date`. A refusal is a RecurringRefused. */
  requestRetry(txid: string, date: string): Promise<CycleChargeReport>;
  /** GET /cobr over [from, to] (and one recurrence's, with idRec), a page at a time (0-based): the poll. */
  listCharges(query: {
    from: Date;
    to: Date;
    idRec?: string;
    page: number;
  }): Promise<{ items: CycleChargeReport[]; pages: number }>;
  /** GET /rec over [from, to], a page at a time (0-based): the poll. */
  listRecurrences(query: { from: Date; to: Date; page: number }): Promise<{ items: RecurrenceReport[]; pages: number }>;
  /** PUT /webhookrec and /webhookcobr: where the PSP sends its notifications. Absent where there is none (sandbox). */
  configureWebhooks?(urls: { rec: string; cobr: string }): Promise<void>;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => !!v && typeof v === "object" && !Array.isArray(v);
const ID = /^[a-zA-Z0-9]{1,35}$/;

/**
 * The ids a notification body names (WebhookRecBody `{ recs: [...] }`, WebhookCobRBody `{ cobsr: [...] }`),
 * whatever else it says: each is read back from the PSP before anything counts. Malformed items are skipped.
 */
export function parseRecurringNotice(body: unknown): RecurringNotice {
  const notice: RecurringNotice = { recs: [], charges: [] };
  if (!isObject(body)) return notice;
  for (const r of Array.isArray(body.recs) ? body.recs : []) {
    if (isObject(r) && typeof r.idRec === "string" && /^[a-zA-Z0-9]{29}$/.test(r.idRec)) notice.recs.push(r.idRec);
  }
  for (const c of Array.isArray(body.cobsr) ? body.cobsr : []) {
    if (isObject(c) && typeof c.txid === "string" && ID.test(c.txid)) {
      const idRec = typeof c.idRec === "string" && /^[a-zA-Z0-9]{29}$/.test(c.idRec) ? c.idRec : null;
      notice.charges.push({ txid: c.txid, idRec });
    }
  }
  return notice;
}
