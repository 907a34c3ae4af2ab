import { randomBytes } from "node:crypto";
import { and, eq, gte, lte, sql } from "drizzle-orm";
import { db } from "@/db";
import {
  sandboxRecurrences,
  sandboxRecurringCharges,
  type StoredAttempt,
  type StoredClosure,
  type StoredPayment,
} from "@/db/schema";
import { now } from "@/lib/clock";
import { saoPauloDay } from "@/lib/day-range";
import { randomBase62, timeOrderedBase62 } from "@/lib/ids";
import { addDays } from "@/lib/pix/business-days";
import { receiverEncoder } from "../pix/sandbox";
import {
  RecurringRefused,
  type AttemptStatus,
  type AttemptType,
  type CancellationRequester,
  type CobRStatus,
  type CycleChargeReport,
  type RecStatus,
  type RecurrenceReport,
  type RecurringProvider,
  type RetryPolicy,
} from "./types";

// The sandbox's recurring PSP: nothing leaves the server. It keeps recurrences and charges in its own
// tables as a PSP does on its side and answers the document's refusals for a wrong state; the payer's
// bank (authorising, paying or failing an attempt, cancelling) is `sandboxBank`, driven by the sandbox
// helpers. The domain reads everything back through the provider, exactly as it reads a live PSP.

const PROVIDER = "sandbox-pix";
const ISPB = "00000000";

type RecRow = typeof sandboxRecurrences.$inferSelect;
type ChargeRow = typeof sandboxRecurringCharges.$inferSelect;

const stamp = () => now().toISOString();
const today = () => saoPauloDay(now());
/** The regulation's send window for a cycle's charge, in days before its due date (lib/subscriptions/schedule.ts SEND_WINDOW). */
const SEND_DAYS = { earliest: 10, latest: 2 } as const;

/** RR|RN + ISPB + yyyyMMdd + 11 characters: the document's RecId (29). */
function newIdRec(policy: RetryPolicy): string {
  return `${policy === "PERMITE_3R_7D" ? "RR" : "RN"}${ISPB}${today().replaceAll("-", "")}${randomBase62(11)}`;
}

/** E + ISPB + yyyyMMddHHmm + 11 characters: the Central Bank's end-to-end id (32). */
function newEndToEndId(): string {
  const at = now().toISOString().replace(/[-:T]/g, "").slice(0, 12);
  return `E${ISPB}${at}${randomBytes(8).toString("hex").slice(0, 11)}`;
}

const refused = (type: string, title: string, property: string, reason: string) =>
  new RecurringRefused({ type, title, violations: [{ property, reason }] });

function recReport(row: RecRow): RecurrenceReport {
  return {
    idRec: row.idRec,
    status: row.status as RecStatus,
    journey: row.tipoJornada as RecurrenceReport["journey"],
    immediateTxid: row.immediateTxid,
    retryPolicy: row.retryPolicy as RetryPolicy,
    history: row.history.map((h) => ({ status: h.status as RecStatus, at: new Date(h.at) })),
    closure: (row.closure as RecurrenceReport["closure"]) ?? null,
  };
}

function chargeReport(row: ChargeRow, policy: RetryPolicy | null): CycleChargeReport {
  return {
    txid: row.txid,
    idRec: row.idRec,
    status: row.status as CobRStatus,
    dueDate: row.dueDate,
    valueCentavos: row.valueCentavos,
    retryPolicy: policy,
    attempts: row.attempts.map((a) => ({
      settlementDate: a.settlementDate,
      type: a.type as AttemptType,
      status: a.status as AttemptStatus,
      endToEndId: a.endToEndId,
      rejection: a.rejection,
      history: [],
    })),
    payments: row.payments.map((p) => ({ ...p, paidAt: new Date(p.paidAt) })),
    history: row.history.map((h) => ({ status: h.status as CobRStatus, at: new Date(h.at) })),
    closure: (row.closure as CycleChargeReport["closure"]) ?? null,
  };
}

const recRow = async (idRec: string) =>
  (await db().select().from(sandboxRecurrences).where(eq(sandboxRecurrences.idRec, idRec)))[0];
const chargeRow = async (txid: string) =>
  (await db().select().from(sandboxRecurringCharges).where(eq(sandboxRecurringCharges.txid, txid)))[0];

async function reportOf(row: ChargeRow): Promise<CycleChargeReport> {
  const rec = await recRow(row.idRec);
  return chargeReport(row, (rec?.retryPolicy as RetryPolicy) ?? null);
}

async function setCharge(txid: string, values: Partial<ChargeRow>, status?: CobRStatus): Promise<ChargeRow> {
  const [row] = await db()
    .update(sandboxRecurringCharges)
    .set({
      ...values,
      ...(status
        ? {
            status,
            history: sql`${sandboxRecurringCharges.history} || ${JSON.stringify([{ status, at: stamp() }])}::jsonb`,
          }
        : {}),
    })
    .where(eq(sandboxRecurringCharges.txid, txid))
    .returning();
  return row;
}

async function setRec(idRec: string, status: RecStatus, values: Partial<RecRow> = {}): Promise<RecRow> {
  const [row] = await db()
    .update(sandboxRecurrences)
    .set({
      ...values,
      status,
      history: sql`${sandboxRecurrences.history} || ${JSON.stringify([{ status, at: stamp() }])}::jsonb`,
    })
    .where(eq(sandboxRecurrences.idRec, idRec))
    .returning();
  return row;
}

const OPEN_ATTEMPT = new Set(["SOLICITADA", "AGENDADA"]);

export const sandboxRecurring: RecurringProvider = {
  name: PROVIDER,
  newTxid: () => timeOrderedBase62(32),

  async createRecurrence(request) {
    const idRec = newIdRec(request.retryPolicy);
    const immediate = request.journey === "JORNADA_3" ? request.immediateCharge : undefined;
    if (request.journey === "JORNADA_3" && !immediate)
      throw refused(
        "RecOperacaoInvalida",
        "Recorrência inválida.",
        "rec.ativacao.dadosJornada.txid",
        "required for JORNADA_3",
      );
    // A static code's txid (field 62-05) holds at most 25 characters.
    const immediateTxid = immediate ? timeOrderedBase62(25) : null;
    await db()
      .insert(sandboxRecurrences)
      .values({
        idRec,
        status: "CRIADA",
        journey: request.journey,
        tipoJornada: "AGUARDANDO_DEFINICAO",
        retryPolicy: request.retryPolicy,
        immediateTxid,
        immediateCentavos: immediate?.valueCentavos ?? null,
        history: [{ status: "CRIADA", at: stamp() }],
      });
    const brcode = receiverEncoder()({
      ...(immediate ? { amountCentavos: immediate.valueCentavos, txid: immediateTxid! } : {}),
      description: (request.object ?? request.contract).slice(0, 60),
    });
    return { idRec, status: "CRIADA", brcode, locationId: null, location: null, immediateTxid, provider: PROVIDER };
  },

  async readRecurrence(idRec) {
    const row = await recRow(idRec);
    return row ? recReport(row) : null;
  },

  async cancelRecurrence(idRec) {
    const row = await recRow(idRec);
    if (!row || !["CRIADA", "APROVADA"].includes(row.status)) return "gone";
    const closure: StoredClosure = {
      kind: "cancellation",
      requestedBy: "USUARIO_RECEBEDOR",
      code: "SLCR",
      description: "Cancelada pelo recebedor",
    };
    await setRec(idRec, "CANCELADA", { closure });
    return "cancelled";
  },

  async readImmediateCharge(txid) {
    const [row] = await db().select().from(sandboxRecurrences).where(eq(sandboxRecurrences.immediateTxid, txid));
    if (!row || row.immediateCentavos === null) return null;
    const paid = row.immediatePayment;
    return {
      txid,
      status: paid ? "CONCLUIDA" : ["CRIADA", "APROVADA"].includes(row.status) ? "ATIVA" : "REMOVIDA_PELO_PSP",
      valueCentavos: row.immediateCentavos,
      payments: paid ? [{ ...paid, paidAt: new Date(paid.paidAt) }] : [],
    };
  },

  async createCharge(request) {
    const existing = await chargeRow(request.txid);
    if (existing) {
      if (existing.idRec !== request.idRec)
        throw refused(
          "CobROperacaoInvalida",
          "Cobrança inválida.",
          "cobr.txid",
          "O campo cobr.txid encontra-se em uso.",
        );
      return reportOf(existing);
    }
    const rec = await recRow(request.idRec);
    if (!rec || rec.status !== "APROVADA")
      throw refused("CobROperacaoInvalida", "Cobrança inválida.", "cobr.idRec", "A recorrência não está APROVADA.");
    if (request.dueDate < today())
      throw refused(
        "CobROperacaoInvalida",
        "Cobrança inválida.",
        "cobr.calendario.dataDeVencimento",
        "O campo cobr.calendario.dataDeVencimento é anterior à data de criação da cobrança.",
      );
    // The regulation's send window, as the test PSP applies it: from 10 to 2 days before the due date.
    else if (
      today() < addDays(request.dueDate, -SEND_DAYS.earliest) ||
      today() > addDays(request.dueDate, -SEND_DAYS.latest)
    )
      throw refused(
        "CobROperacaoInvalida",
        "Cobrança inválida.",
        "cobr.calendario.dataDeVencimento",
        `O campo cobr.calendario.dataDeVencimento está fora da janela de envio: a cobrança deve ser enviada entre ${SEND_DAYS.earliest} e ${SEND_DAYS.latest} dias antes do vencimento.`,
      );
    const attempt: StoredAttempt = {
      settlementDate: request.dueDate,
      type: "AGND",
      status: "AGENDADA",
      endToEndId: newEndToEndId(),
      rejection: null,
    };
    const [row] = await db()
      .insert(sandboxRecurringCharges)
      .values({
        txid: request.txid,
        idRec: request.idRec,
        status: "ATIVA",
        dueDate: request.dueDate,
        valueCentavos: request.valueCentavos,
        attempts: [attempt],
        history: [
          { status: "CRIADA", at: stamp() },
          { status: "ATIVA", at: stamp() },
        ],
      })
      .onConflictDoNothing()
      .returning();
    return reportOf(row ?? (await chargeRow(request.txid))!);
  },

  async readCharge(txid) {
    const row = await chargeRow(txid);
    return row ? reportOf(row) : null;
  },

  async cancelCharge(txid) {
    const row = await chargeRow(txid);
    if (!row) return "gone";
    if (row.status === "CONCLUIDA") return "too-late";
    if (row.status !== "ATIVA" && row.status !== "CRIADA") return "gone";
    // The document: not on or after the first attempt's settlement date.
    if (today() >= row.dueDate) return "too-late";
    const closure: StoredClosure = {
      kind: "cancellation",
      requestedBy: "USUARIO_RECEBEDOR",
      code: "SLCR",
      description: "Cancelada pelo recebedor",
    };
    const attempts = row.attempts.map((a) => (OPEN_ATTEMPT.has(a.status) ? { ...a, status: "CANCELADA" } : a));
    await setCharge(txid, { closure, attempts }, "CANCELADA");
    return "cancelled";
  },

  async requestRetry(txid, date) {
    const row = await chargeRow(txid);
    if (!row)
      throw refused(
        "CobRNaoEncontrado",
        "Cobrança não encontrada.",
        "txid",
        "Cobrança não encontrada para o txid informado.",
      );
    const rec = await recRow(row.idRec);
    const violation = (reason: string, property = "data") =>
      refused("CobROperacaoInvalida", "Cobrança inválida.", property, reason);
    if (rec?.retryPolicy !== "PERMITE_3R_7D")
      throw violation(
        "A política configurada na recorrência não permite retentativa de cobrança.",
        "politicaRetentativa",
      );
    if (row.status !== "ATIVA") throw violation("A cobrança não está ATIVA.", "status");
    if (row.attempts.some((a) => OPEN_ATTEMPT.has(a.status)))
      throw violation("Existe uma tentativa com status SOLICITADA ou AGENDADA.");
    if (date <= today()) throw violation("O parâmetro data não corresponde a uma data futura.");
    const retries = row.attempts.filter((a) => a.type === "RIFL").length;
    if (retries >= 3 || date > addDays(row.dueDate, 7))
      throw violation("A retentativa excede 3 tentativas em 7 dias após o vencimento.");
    const attempt: StoredAttempt = {
      settlementDate: date,
      type: "RIFL",
      status: "AGENDADA",
      endToEndId: newEndToEndId(),
      rejection: null,
    };
    return reportOf(await setCharge(txid, { attempts: [...row.attempts, attempt] }));
  },

  async listCharges({ from, to, idRec, page }) {
    const size = 100;
    const rows = await db()
      .select()
      .from(sandboxRecurringCharges)
      .where(
        and(
          gte(sandboxRecurringCharges.createdAt, from),
          lte(sandboxRecurringCharges.createdAt, to),
          idRec ? eq(sandboxRecurringCharges.idRec, idRec) : undefined,
        ),
      )
      .orderBy(sandboxRecurringCharges.createdAt)
      .limit(size)
      .offset(page * size);
    return { items: await Promise.all(rows.map(reportOf)), pages: rows.length < size ? page + 1 : page + 2 };
  },

  async listRecurrences({ from, to, page }) {
    const size = 100;
    const rows = await db()
      .select()
      .from(sandboxRecurrences)
      .where(and(gte(sandboxRecurrences.createdAt, from), lte(sandboxRecurrences.createdAt, to)))
      .orderBy(sandboxRecurrences.createdAt)
      .limit(size)
      .offset(page * size);
    return { items: rows.map(recReport), pages: rows.length < size ? page + 1 : page + 2 };
  },
};

/**
 * The payer and the payer's bank, for the sandbox helpers: what a real payer does in the bank app and
 * what the Pix system then settles. Each answers false when the PSP's state does not allow it.
 */
export const sandboxBank = {
  /** The payer authorises (journey 3: and pays the immediate charge with it). */
  async authorise(idRec: string): Promise<boolean> {
    const row = await recRow(idRec);
    if (!row || row.status !== "CRIADA") return false;
    const payment: StoredPayment | null =
      row.immediateCentavos !== null
        ? { endToEndId: newEndToEndId(), valueCentavos: row.immediateCentavos, paidAt: stamp() }
        : null;
    await setRec(idRec, "APROVADA", { tipoJornada: row.journey, immediatePayment: payment });
    return true;
  },

  /** The payer refuses the authorisation at the bank (API Pix encerramento.rejeicao, AP13 as the test PSP's). */
  async reject(idRec: string, code = "AP13"): Promise<boolean> {
    const row = await recRow(idRec);
    if (!row || row.status !== "CRIADA") return false;
    const closure: StoredClosure = {
      kind: "rejection",
      code,
      description: "Recorrência rejeitada pelo usuário pagador.",
    };
    await setRec(idRec, "REJEITADA", { closure });
    return true;
  },

  /** The payer cancels the authorisation at the bank (or their bank does, `by`). */
  async cancel(idRec: string, by: CancellationRequester = "USUARIO_PAGADOR"): Promise<boolean> {
    const row = await recRow(idRec);
    if (!row || !["CRIADA", "APROVADA"].includes(row.status)) return false;
    const closure: StoredClosure = {
      kind: "cancellation",
      requestedBy: by,
      code: "ACCL",
      description: "Cancelada pelo pagador",
    };
    await setRec(idRec, "CANCELADA", { closure });
    // The charges still to settle end with it.
    for (const c of await db().select().from(sandboxRecurringCharges).where(eq(sandboxRecurringCharges.idRec, idRec))) {
      if (c.status !== "ATIVA") continue;
      const attempts = c.attempts.map((a) => (OPEN_ATTEMPT.has(a.status) ? { ...a, status: "CANCELADA" } : a));
      await setCharge(
        c.txid,
        {
          attempts,
          closure: { kind: "cancellation", requestedBy: by, code: "CCLD", description: "Recorrência cancelada" },
        },
        "CANCELADA",
      );
    }
    return true;
  },

  /**
   * The open attempt of a charge settles: paid, or rejected (AM04-like insufficient funds: the charge
   * stays ATIVA for a retry where the policy allows one; `final` rejects the charge itself).
   */
  async settle(txid: string, outcome: "paid" | "rejected", opts: { final?: boolean } = {}): Promise<boolean> {
    const row = await chargeRow(txid);
    if (!row || row.status !== "ATIVA") return false;
    const i = row.attempts.map((a) => OPEN_ATTEMPT.has(a.status)).lastIndexOf(true);
    if (i < 0) return false;
    const attempts = [...row.attempts];
    if (outcome === "paid") {
      attempts[i] = { ...attempts[i], status: "PAGA" };
      const payment: StoredPayment = {
        endToEndId: attempts[i].endToEndId,
        valueCentavos: row.valueCentavos,
        paidAt: stamp(),
      };
      await setCharge(txid, { attempts, payments: [payment] }, "CONCLUIDA");
      return true;
    }
    const rejection = opts.final
      ? { code: "AC05", description: "Conta do pagador encerrada" }
      : { code: "AM02", description: "Saldo insuficiente" };
    attempts[i] = { ...attempts[i], status: "REJEITADA", rejection };
    const rec = await recRow(row.idRec);
    const retriesLeft = rec?.retryPolicy === "PERMITE_3R_7D" && attempts.filter((a) => a.type === "RIFL").length < 3;
    if (opts.final || !retriesLeft) {
      await setCharge(txid, { attempts, closure: { kind: "rejection", ...rejection } }, "REJEITADA");
    } else {
      await setCharge(txid, { attempts });
    }
    return true;
  },
};
