import { InvalidInput } from "@/lib/errors";
import type { DueTerms } from "@/lib/pix/due-amount";
import type { CollectionPayer } from "./types";

// Charges with a due date (API Pix `cobv`, docs/providers.md#charges-with-a-due-date-cobv): made at the
// PSP one at a time or in batches (`lotecobv`), paid to the service's receiving key like any charge, and
// reported through the same received-PIX path (notifications read back, the reconciliation poll).

/** Who the charge is addressed to (API Pix `devedor`: required for these charges). */
export type DueChargePayer = CollectionPayer & { email?: string };

export type DueChargeRequest = {
  /** Ours, from `newTxid()`: batches name their charges before the PSP makes them. */
  txid: string;
  terms: DueTerms;
  payer: DueChargePayer;
  /** What the payer's app shows (solicitacaoPagador, ≤ 140). */
  description?: string;
};

/** A charge the PSP made: its BR Code (a dynamic code whose payload the PSP serves with the day's amount) and where. */
export type DueCharge = { txid: string; brcode: string; provider: string; location: string | null };

/** A PSP's refusal, as it worded it (an API Pix problem): title, detail and each violation. */
export type DueChargeProblem = {
  title: string;
  detail?: string;
  violations: { property: string; reason: string }[];
};

/** One charge of a batch as the PSP reports it (LoteCobVConsultado.cobsv). */
export type BatchItem =
  | { txid: string; status: "EM_PROCESSAMENTO" }
  /** `charge`: the charge as made, when the provider gave it (the sandbox); else it is read with `read`. */
  | { txid: string; status: "CRIADA"; charge?: DueCharge }
  | { txid: string; status: "NEGADA"; problem: DueChargeProblem };

export interface DueChargeProvider {
  readonly name: string;
  /** A txid for a new charge, in the form this provider's codes take. */
  newTxid(): string;
  /** Makes the charge (PUT /cobv/{txid}); a refusal is an InvalidInput carrying the PSP's problem. */
  create(request: DueChargeRequest): Promise<DueCharge>;
  /** The charge as the PSP holds it, or null when it has none (GET /cobv/{txid}). */
  read(txid: string): Promise<{ brcode: string; location: string | null; status: string } | null>;
  /** As PixProvider.cancelCollection, for these charges (PATCH /cobv/{txid}). */
  cancel(txid: string): Promise<"removed" | "paid" | "gone">;
  /**
   * Sends a batch (PUT /lotecobv/{id}). The PSP makes its charges later, one by one (null: ask
   * readBatch); a provider that makes them at once (the sandbox) says how each went.
   */
  createBatch(batch: { id: number; description: string; items: DueChargeRequest[] }): Promise<BatchItem[] | null>;
  /** What became of each charge of a batch (GET /lotecobv/{id}). */
  readBatch(id: number): Promise<BatchItem[]>;
  /**
   * The BR Code that pays `txid` with `amountCentavos` on a day, where the code itself carries the
   * amount (the sandbox's static codes); absent where the PSP's dynamic code serves the day's amount.
   */
  codeForDay?(txid: string, amountCentavos: number, description?: string): string;
}

/** What the PSP said, in one line: title, detail and each violation. */
export function describeDueChargeProblem(problem: DueChargeProblem): string {
  const violations = problem.violations.map((v) => `${v.property}: ${v.reason}`).join("; ");
  return `${problem.title}${problem.detail ? `: ${problem.detail}` : ""}${violations ? ` (${violations})` : ""}`;
}

/** The PSP refused the charge (a 400): what it said, passed on to the merchant. */
export class DueChargeRefused extends InvalidInput {
  constructor(readonly problem: DueChargeProblem) {
    const reason = describeDueChargeProblem(problem);
    super(`The PIX provider refused the charge: ${reason}`, { code: "invoice.refusedByProvider", values: { reason } });
  }
}
