import { z } from "zod";
import { env } from "@/lib/env";
import { UpstreamUnavailable } from "@/lib/errors";
import { timeOrderedBase62 } from "@/lib/ids";
import { log } from "@/lib/log";
import { centavosToDecimalString, decimalStringToCentavos } from "@/lib/money";
import { UpstreamHttpError } from "../http/client";
import type { HttpsAnswer } from "../http/mtls";
import { undecided } from "../pix/api-pix";
import { PspProblem, pspClientFromEnv, type PspClient } from "../pix/psp-client";
import type { CollectionPayer } from "../pix/types";
import {
  RecurringRefused,
  type ChargeAttempt,
  type Closure,
  type CycleChargeReport,
  type CycleChargeRequest,
  type RecurrenceProgress,
  type RecurrenceReport,
  type RecurrenceRequest,
  type RecurrenceResume,
  type RecurringProblem,
  type RecurringProvider,
} from "./types";

// Pix Automático through any PSP that implements the Central Bank's API Pix (docs/providers.md ("Pix Automático");
// tests/fixtures/specs/bcb-api-pix-2.9.0.yaml: /locrec, /rec, /cobr, /cobr/{txid}/retentativa/{data},
// /webhookrec, /webhookcobr), over the same OAuth2 + mTLS client as cob. Answers are parsed with zod
// schemas of the document's fields, loosely (the document allows new fields), and every value acted on
// is checked: a status we do not know, or an answer we cannot read, decides nothing (UpstreamUnavailable,
// the caller reads again later), never a failure. A 400 is the PSP's refusal (RecurringRefused), with its
// violations as it worded them.

export const API_PIX_RECURRING = "api-pix";

type Json = Record<string, unknown>;
type Method = "GET" | "PUT" | "PATCH" | "POST" | "DELETE";

/** The receiving account a recurring charge names (cobr.recebedor, DadosBancariosRecebedor). */
export type ReceivingAccount = { agencia?: string; conta: string; tipoConta: "CORRENTE" | "POUPANCA" | "PAGAMENTO" };

export type RecurringConfig = {
  client: () => PspClient;
  account: () => ReceivingAccount;
  /** PIX_RECEIVER_KEY: journey 3's immediate charge pays it. */
  receiverKey: () => string;
};

// --- the document's fields, as we read them ----------------------------------------------------------

const REC_STATUS = ["CRIADA", "APROVADA", "REJEITADA", "EXPIRADA", "CANCELADA"] as const;
const COBR_STATUS = ["CRIADA", "ATIVA", "CONCLUIDA", "EXPIRADA", "REJEITADA", "CANCELADA"] as const;
const ATTEMPT_STATUS = ["SOLICITADA", "AGENDADA", "PAGA", "CANCELADA", "REJEITADA", "EXPIRADA"] as const;
const POLICY = z.enum(["NAO_PERMITE", "PERMITE_3R_7D"]);
const ID_REC = z.string().regex(/^[a-zA-Z0-9]{29}$/);
const TXID = z.string().regex(/^[a-zA-Z0-9]{1,35}$/);
// A charge's own txid, as a path of /cob and /cobr takes it (the document's Txid: 26 to 35 characters).
const CHARGE_TXID = /^[a-zA-Z0-9]{26,35}$/;
const E2E = z.string().regex(/^[a-zA-Z0-9]{32}$/);
const DAY = z.iso.date();
const INSTANT = z.iso.datetime({ offset: true });
const VALOR = z.string().regex(/^\d{1,10}\.\d{2}$/);

const cancelamento = z.looseObject({
  solicitante: z.enum(["PSP_PAGADOR", "USUARIO_PAGADOR", "PSP_RECEBEDOR", "USUARIO_RECEBEDOR"]),
  codigo: z.string(),
  descricao: z.string().default(""),
});
const rejeicao = z.looseObject({ codigo: z.string(), descricao: z.string().default("") });
const encerramento = z.looseObject({ cancelamento: cancelamento.optional(), rejeicao: rejeicao.optional() });

/** A history entry (atualizacao[]): kept only when its status is one of `statuses`. */
const history = <S extends readonly [string, ...string[]]>(statuses: S) =>
  z
    .array(z.unknown())
    .default([])
    .transform((items) =>
      items.flatMap((item) => {
        const parsed = z.object({ status: z.enum(statuses), data: INSTANT }).safeParse(item);
        return parsed.success ? [{ status: parsed.data.status, at: new Date(parsed.data.data) }] : [];
      }),
    );

/** RecCompleta / RecGerada / RecNotification: what we act on. */
export const recAnswer = z.looseObject({
  idRec: ID_REC,
  status: z.enum(REC_STATUS),
  politicaRetentativa: POLICY.optional(),
  atualizacao: history(REC_STATUS),
  encerramento: encerramento.optional(),
  ativacao: z
    .looseObject({
      tipoJornada: z.enum(["JORNADA_1", "JORNADA_2", "JORNADA_3", "JORNADA_4", "AGUARDANDO_DEFINICAO"]).optional(),
      dadosJornada: z.looseObject({ txid: TXID }).optional(),
    })
    .optional(),
  loc: z.looseObject({ id: z.number().int(), location: z.string() }).optional(),
  dadosQR: z.looseObject({ jornada: z.string().optional(), pixCopiaECola: z.string().min(1).optional() }).optional(),
});

const pixItem = z.looseObject({ endToEndId: E2E, valor: VALOR, horario: INSTANT });

/** CobRCompleta / CobRGerada / CobRNotification. */
export const cobrAnswer = z.looseObject({
  idRec: ID_REC,
  txid: TXID,
  status: z.enum(COBR_STATUS),
  politicaRetentativa: POLICY.optional(),
  calendario: z.looseObject({ dataDeVencimento: DAY }),
  valor: z.looseObject({ original: VALOR }),
  atualizacao: history(COBR_STATUS),
  encerramento: encerramento.optional(),
  tentativas: z
    .array(
      z.looseObject({
        dataLiquidacao: DAY,
        tipo: z.enum(["AGND", "NTAG", "RIFL"]),
        status: z.enum(ATTEMPT_STATUS),
        endToEndId: E2E,
        atualizacao: history(ATTEMPT_STATUS),
        rejeicao: rejeicao.optional(),
      }),
    )
    .default([]),
  pix: z.array(pixItem).default([]),
});

const cobAnswer = z.looseObject({
  txid: TXID,
  status: z.enum(["ATIVA", "CONCLUIDA", "REMOVIDA_PELO_USUARIO_RECEBEDOR", "REMOVIDA_PELO_PSP"]),
  valor: z.looseObject({ original: VALOR }),
  location: z.string().optional(),
  pixCopiaECola: z.string().optional(),
  pix: z.array(pixItem).default([]),
});

const locAnswer = z.looseObject({ id: z.number().int(), location: z.string().min(1), idRec: ID_REC.optional() });

const page = z.looseObject({
  parametros: z
    .looseObject({ paginacao: z.looseObject({ quantidadeDePaginas: z.number().int().min(0) }).optional() })
    .optional(),
});

const problemAnswer = z.looseObject({
  type: z.string().optional(),
  title: z.string().optional(),
  detail: z.string().optional(),
  violacoes: z.array(z.looseObject({ razao: z.string().default(""), propriedade: z.string().default("") })).default([]),
});

// --- reading answers ---------------------------------------------------------------------------------

const cents = (v: string) => decimalStringToCentavos(v)!;

function closureOf(e: z.infer<typeof encerramento> | undefined): Closure | null {
  if (e?.cancelamento)
    return {
      kind: "cancellation",
      requestedBy: e.cancelamento.solicitante,
      code: e.cancelamento.codigo,
      description: e.cancelamento.descricao,
    };
  if (e?.rejeicao) return { kind: "rejection", code: e.rejeicao.codigo, description: e.rejeicao.descricao };
  return null;
}

export function recurrenceReport(r: z.infer<typeof recAnswer>): RecurrenceReport {
  return {
    idRec: r.idRec,
    status: r.status,
    journey: r.ativacao?.tipoJornada ?? null,
    immediateTxid: r.ativacao?.dadosJornada?.txid ?? null,
    retryPolicy: r.politicaRetentativa ?? null,
    history: r.atualizacao,
    closure: closureOf(r.encerramento),
  };
}

export function chargeReport(c: z.infer<typeof cobrAnswer>): CycleChargeReport {
  return {
    txid: c.txid,
    idRec: c.idRec,
    status: c.status,
    dueDate: c.calendario.dataDeVencimento,
    valueCentavos: cents(c.valor.original),
    retryPolicy: c.politicaRetentativa ?? null,
    attempts: c.tentativas.map((t): ChargeAttempt => ({
      settlementDate: t.dataLiquidacao,
      type: t.tipo,
      status: t.status,
      endToEndId: t.endToEndId,
      rejection: t.rejeicao ? { code: t.rejeicao.codigo, description: t.rejeicao.descricao } : null,
      history: t.atualizacao,
    })),
    payments: c.pix.map((p) => ({
      endToEndId: p.endToEndId,
      valueCentavos: cents(p.valor),
      paidAt: new Date(p.horario),
    })),
    history: c.atualizacao,
    closure: closureOf(c.encerramento),
  };
}

/** An answer we act on, parsed; one we cannot read decides nothing. */
function parsed<T extends z.ZodType>(schema: T, what: string, answer: HttpsAnswer): z.infer<T> {
  const result = schema.safeParse(answer.json);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new UpstreamUnavailable(
    `PIX provider answered ${what} in a shape we cannot act on (${issue?.path.join(".") || "(root)"}: ${issue?.message})`,
  );
}

/** The PSP's 400 as it worded it. */
function problemOf(answer: HttpsAnswer): RecurringProblem {
  const p = problemAnswer.safeParse(answer.json);
  const body = p.success ? p.data : { violacoes: [] as { razao: string; propriedade: string }[] };
  const type = "type" in body && typeof body.type === "string" ? body.type.split("/").pop() : undefined;
  return {
    ...(type ? { type } : {}),
    title: ("title" in body && body.title) || `HTTP ${answer.status}`,
    ...("detail" in body && body.detail ? { detail: body.detail } : {}),
    violations: body.violacoes.map((v) => ({ property: v.propriedade, reason: v.razao })),
  };
}

/** A refusal is a 4xx other than the ones that decide nothing (auth, throttling, not found). */
const refusal = (answer: HttpsAnswer) => answer.status === 400 || answer.status === 409 || answer.status === 422;

function unreachable(what: string, err: unknown): UpstreamUnavailable {
  const reason =
    err instanceof UpstreamHttpError || err instanceof PspProblem || err instanceof Error ? err.message : String(err);
  return new UpstreamUnavailable(`PIX provider unavailable (${what}): ${reason}`);
}

// --- the adapter -------------------------------------------------------------------------------------

const payerOf = (p: CollectionPayer) => ({
  ...("cpf" in p ? { cpf: p.cpf } : { cnpj: p.cnpj }),
  nome: p.name.slice(0, 140),
});

export function apiPixRecurring(config: RecurringConfig): RecurringProvider {
  async function call(what: string, method: Method, path: string, body?: unknown): Promise<HttpsAnswer> {
    const client = config.client();
    try {
      return await client.call(method, `${client.config.apiUrl}${path}`, body);
    } catch (err) {
      throw unreachable(what, err);
    }
  }

  async function readRec(idRec: string, txid?: string): Promise<z.infer<typeof recAnswer> | null> {
    const query = txid ? `?txid=${encodeURIComponent(txid)}` : "";
    const answer = await call("read the recurrence", "GET", `/rec/${encodeURIComponent(idRec)}${query}`);
    if (answer.status === 404) return null;
    if (answer.status !== 200) throw undecided("read the recurrence", answer);
    const rec = parsed(recAnswer, "GET /rec/{idRec}", answer);
    if (rec.idRec !== idRec)
      throw new UpstreamUnavailable(`PIX provider answered GET /rec/${idRec} with another recurrence`);
    return rec;
  }

  /** GET /locrec/{id}: the location, with the recurrence linked to it (idRec) once one is. */
  async function readLoc(id: string | number): Promise<z.infer<typeof locAnswer> | null> {
    const answer = await call("read the recurrence's location", "GET", `/locrec/${encodeURIComponent(String(id))}`);
    if (answer.status === 404) return null;
    if (answer.status !== 200) throw undecided("read the recurrence's location", answer);
    const loc = parsed(locAnswer, "GET /locrec/{id}", answer);
    if (String(loc.id) !== String(id))
      throw new UpstreamUnavailable(`PIX provider answered GET /locrec/${id} with another location`);
    return loc;
  }

  async function readCobR(txid: string): Promise<z.infer<typeof cobrAnswer> | null> {
    const answer = await call("read the recurring charge", "GET", `/cobr/${encodeURIComponent(txid)}`);
    if (answer.status === 404) return null;
    if (answer.status !== 200) throw undecided("read the recurring charge", answer);
    const cobr = parsed(cobrAnswer, "GET /cobr/{txid}", answer);
    if (cobr.txid !== txid)
      throw new UpstreamUnavailable(`PIX provider answered GET /cobr/${txid} with another charge`);
    return cobr;
  }

  return {
    name: API_PIX_RECURRING,
    newTxid: () => timeOrderedBase62(32),

    async createRecurrence(request: RecurrenceRequest, resume?: RecurrenceResume) {
      if (request.journey === "JORNADA_3" && !request.immediateCharge)
        throw new RecurringRefused({
          title: "Journey 3 needs its immediate charge",
          violations: [{ property: "rec.ativacao.dadosJornada.txid", reason: "required for JORNADA_3" }],
        });
      // Step by step, each id recorded (resume.record) before the next request is sent, and what was
      // recorded read back instead of made again (docs/providers.md ("Making a recurrence")).
      let progress: RecurrenceProgress = {
        ...(resume?.progress ?? { locationId: null, immediateTxid: null, idRec: null }),
      };
      const record = async (next: Partial<RecurrenceProgress>) => {
        progress = { ...progress, ...next };
        await resume?.record(progress);
      };

      // The location first: the QR the payer reads is made of it (POST /locrec takes no body).
      let loc: z.infer<typeof locAnswer>;
      if (progress.locationId) {
        const read = await readLoc(progress.locationId);
        if (!read)
          throw new UpstreamUnavailable(`PIX provider does not find the location ${progress.locationId} it made`);
        loc = read;
      } else {
        const locAnswered = await call("create the recurrence's location", "POST", "/locrec");
        if (locAnswered.status !== 201 && locAnswered.status !== 200) {
          if (refusal(locAnswered)) throw new RecurringRefused(problemOf(locAnswered));
          throw undecided("create the recurrence's location", locAnswered);
        }
        loc = parsed(locAnswer, "POST /locrec", locAnswered);
        await record({ locationId: String(loc.id) });
      }
      // The recurrence the location is linked to, made by an attempt whose answer was lost.
      if (!progress.idRec && loc.idRec) await record({ idRec: loc.idRec });

      let immediateTxid: string | null = null;
      if (request.journey === "JORNADA_3") {
        const charge = request.immediateCharge!;
        // Ours, recorded before it is sent: a retry reads its charge back rather than making another.
        const resumed = progress.immediateTxid;
        immediateTxid = resumed ?? timeOrderedBase62(32);
        if (!resumed) await record({ immediateTxid });
        const existing = resumed ? await call("read the immediate charge", "GET", `/cob/${immediateTxid}`) : null;
        if (existing && existing.status !== 200 && existing.status !== 404)
          throw undecided("read the immediate charge", existing);
        if (!existing || existing.status === 404) {
          const cob = await call("create the immediate charge", "PUT", `/cob/${immediateTxid}`, {
            calendario: { expiracao: charge.expiresInSeconds ?? 24 * 60 * 60 },
            devedor: { ...payerOf(request.debtor), nome: request.debtor.name.slice(0, 200) },
            valor: { original: centavosToDecimalString(charge.valueCentavos) },
            chave: config.receiverKey(),
            ...(charge.description ? { solicitacaoPagador: charge.description.slice(0, 140) } : {}),
          });
          if (cob.status !== 201 && cob.status !== 200) {
            if (refusal(cob)) throw new RecurringRefused(problemOf(cob));
            throw undecided("create the immediate charge", cob);
          }
        }
      }

      if (!progress.idRec) {
        const amount =
          "fixedCentavos" in request.amount
            ? { valorRec: centavosToDecimalString(request.amount.fixedCentavos) }
            : request.amount.minimumCentavos !== null
              ? { valorMinimoRecebedor: centavosToDecimalString(request.amount.minimumCentavos) }
              : null;
        const body = {
          vinculo: {
            ...(request.object ? { objeto: request.object.slice(0, 35) } : {}),
            contrato: request.contract.slice(0, 35),
            devedor: payerOf(request.debtor),
          },
          calendario: {
            dataInicial: request.calendar.firstDate,
            ...(request.calendar.lastDate ? { dataFinal: request.calendar.lastDate } : {}),
            periodicidade: request.calendar.periodicity,
          },
          ...(amount ? { valor: amount } : {}),
          politicaRetentativa: request.retryPolicy,
          loc: loc.id,
          ...(immediateTxid ? { ativacao: { dadosJornada: { txid: immediateTxid } } } : {}),
        };
        // The document has no id of ours for a recurrence: a second POST would make a second one. What
        // tells a retry that the first was made is its location, linked to it (GET /locrec/{id} above).
        const created = await call("create the recurrence", "POST", "/rec", body);
        if (created.status === 201 || created.status === 200)
          await record({ idRec: parsed(recAnswer, "POST /rec", created).idRec });
        else if (refusal(created)) {
          // "O location referenciado por rec.loc já está sendo utilizado": a send of ours whose answer was
          // lost (the client's own retry of a dropped connection, or an earlier attempt) made it. The
          // location is this creation's, so the recurrence linked to it is ours: read back and reused.
          const linked = await readLoc(loc.id);
          if (!linked?.idRec) throw new RecurringRefused(problemOf(created));
          await record({ idRec: linked.idRec });
        } else throw undecided("create the recurrence", created);
      }
      const idRec = progress.idRec!;
      // The code the payer reads: dadosQR of GET /rec/{idRec} (with journey 3's txid, the composite QR).
      const read = await readRec(idRec, immediateTxid ?? undefined);
      if (!read) throw new UpstreamUnavailable(`PIX provider does not find the recurrence ${idRec} it made`);
      const brcode = read.dadosQR?.pixCopiaECola;
      if (!brcode) throw new UpstreamUnavailable("PIX provider answered the recurrence without dadosQR.pixCopiaECola");
      return {
        idRec,
        status: read.status,
        brcode,
        locationId: String(loc.id),
        location: loc.location,
        immediateTxid,
        provider: API_PIX_RECURRING,
      };
    },

    async linkedRecurrence(locationId) {
      if (!/^\d+$/.test(locationId)) return null;
      return (await readLoc(locationId))?.idRec ?? null;
    },

    async readRecurrence(idRec) {
      if (!ID_REC.safeParse(idRec).success) return null;
      const rec = await readRec(idRec);
      return rec ? recurrenceReport(rec) : null;
    },

    async cancelRecurrence(idRec) {
      const answer = await call("cancel the recurrence", "PATCH", `/rec/${encodeURIComponent(idRec)}`, {
        status: "CANCELADA",
      });
      if (answer.status === 200) return "cancelled";
      if (answer.status === 404) return "gone";
      // Refused: most likely it ended meanwhile. The recurrence says which.
      const rec = await readRec(idRec);
      if (!rec || rec.status === "CANCELADA" || rec.status === "REJEITADA" || rec.status === "EXPIRADA") return "gone";
      if (refusal(answer)) throw new RecurringRefused(problemOf(answer));
      throw undecided("cancel the recurrence", answer);
    },

    async readImmediateCharge(txid) {
      if (!CHARGE_TXID.test(txid)) return null;
      const answer = await call("read the immediate charge", "GET", `/cob/${txid}`);
      if (answer.status === 404) return null;
      if (answer.status !== 200) throw undecided("read the immediate charge", answer);
      const cob = parsed(cobAnswer, "GET /cob/{txid}", answer);
      return {
        txid: cob.txid,
        status: cob.status,
        valueCentavos: cents(cob.valor.original),
        payments: cob.pix.map((p) => ({
          endToEndId: p.endToEndId,
          valueCentavos: cents(p.valor),
          paidAt: new Date(p.horario),
        })),
      };
    },

    async createCharge(request: CycleChargeRequest) {
      const account = config.account();
      const body = {
        idRec: request.idRec,
        ...(request.info ? { infoAdicional: request.info.slice(0, 140) } : {}),
        calendario: { dataDeVencimento: request.dueDate },
        valor: { original: centavosToDecimalString(request.valueCentavos) },
        ajusteDiaUtil: request.adjustToBusinessDay ?? true,
        recebedor: {
          ...(account.agencia ? { agencia: account.agencia } : {}),
          conta: account.conta,
          tipoConta: account.tipoConta,
        },
      };
      const answer = await call("create the recurring charge", "PUT", `/cobr/${request.txid}`, body);
      if (answer.status === 201 || answer.status === 200)
        return chargeReport(parsed(cobrAnswer, "PUT /cobr/{txid}", answer));
      if (refusal(answer)) {
        // "O campo cobr.txid encontra-se em uso": a retry of ours after a lost answer meets the charge it
        // made. It is ours when the PSP holds it for the same recurrence, date and value.
        const existing = await readCobR(request.txid);
        if (
          existing &&
          existing.idRec === request.idRec &&
          existing.calendario.dataDeVencimento === request.dueDate &&
          existing.valor.original === body.valor.original
        )
          return chargeReport(existing);
        throw new RecurringRefused(problemOf(answer));
      }
      throw undecided("create the recurring charge", answer);
    },

    async readCharge(txid) {
      if (!CHARGE_TXID.test(txid)) return null;
      const cobr = await readCobR(txid);
      return cobr ? chargeReport(cobr) : null;
    },

    async cancelCharge(txid) {
      const answer = await call("cancel the recurring charge", "PATCH", `/cobr/${encodeURIComponent(txid)}`, {
        status: "CANCELADA",
      });
      if (answer.status === 200) return "cancelled";
      if (answer.status === 404) return "gone";
      if (!refusal(answer)) throw undecided("cancel the recurring charge", answer);
      const cobr = await readCobR(txid);
      if (!cobr || cobr.status === "CANCELADA" || cobr.status === "EXPIRADA" || cobr.status === "REJEITADA")
        return "gone";
      // Paid, or the document's "em uma data igual ou maior que a data prevista da primeira tentativa".
      return "too-late";
    },

    async requestRetry(txid, date) {
      const answer = await call(
        "request a new attempt",
        "POST",
        `/cobr/${encodeURIComponent(txid)}/retentativa/${encodeURIComponent(date)}`,
      );
      if (answer.status === 201 || answer.status === 200)
        return chargeReport(parsed(cobrAnswer, "POST /cobr/{txid}/retentativa/{data}", answer));
      if (refusal(answer) || answer.status === 404) throw new RecurringRefused(problemOf(answer));
      throw undecided("request a new attempt", answer);
    },

    async listCharges({ from, to, idRec, page: p }) {
      const query = new URLSearchParams({
        inicio: from.toISOString(),
        fim: to.toISOString(),
        ...(idRec ? { idRec } : {}),
        "paginacao.paginaAtual": String(p),
        "paginacao.itensPorPagina": "100",
      });
      const answer = await call("list recurring charges", "GET", `/cobr?${query}`);
      if (answer.status !== 200) throw undecided("list recurring charges", answer);
      const o = (answer.json ?? {}) as Json;
      const items: CycleChargeReport[] = [];
      for (const item of Array.isArray(o.cobsr) ? o.cobsr : []) {
        const c = cobrAnswer.safeParse(item);
        if (c.success) items.push(chargeReport(c.data));
        else
          log.warn("PIX provider listed a recurring charge we cannot read; skipped", {
            item: JSON.stringify(item).slice(0, 300),
          });
      }
      return { items, pages: page.safeParse(o).data?.parametros?.paginacao?.quantidadeDePaginas ?? 1 };
    },

    async listRecurrences({ from, to, page: p }) {
      const query = new URLSearchParams({
        inicio: from.toISOString(),
        fim: to.toISOString(),
        "paginacao.paginaAtual": String(p),
        "paginacao.itensPorPagina": "100",
      });
      const answer = await call("list recurrences", "GET", `/rec?${query}`);
      if (answer.status !== 200) throw undecided("list recurrences", answer);
      const o = (answer.json ?? {}) as Json;
      const items: RecurrenceReport[] = [];
      for (const item of Array.isArray(o.recs) ? o.recs : []) {
        const r = recAnswer.safeParse(item);
        if (r.success) items.push(recurrenceReport(r.data));
        else
          log.warn("PIX provider listed a recurrence we cannot read; skipped", {
            item: JSON.stringify(item).slice(0, 300),
          });
      }
      return { items, pages: page.safeParse(o).data?.parametros?.paginacao?.quantidadeDePaginas ?? 1 };
    },

    async configureWebhooks(urls) {
      for (const [path, url] of [
        ["/webhookrec", urls.rec],
        ["/webhookcobr", urls.cobr],
      ] as const) {
        const answer = await call(`register ${path}`, "PUT", path, { webhookUrl: url });
        if (answer.status !== 200 && answer.status !== 201 && answer.status !== 204) {
          if (refusal(answer)) throw new RecurringRefused(problemOf(answer));
          throw undecided(`register ${path}`, answer);
        }
      }
    },
  };
}

/** The adapter over PIX_* (docs/configuration.md): the PSP client cob uses, and the receiving account. */
export const apiPixRecurringFromEnv: RecurringProvider = apiPixRecurring({
  client: pspClientFromEnv,
  receiverKey: () => env().PIX_RECEIVER_KEY,
  account: () => {
    const e = env();
    if (!e.PIX_RECEIVER_ACCOUNT)
      throw new UpstreamUnavailable("Pix Automático needs the receiving account: set PIX_RECEIVER_ACCOUNT");
    return {
      ...(e.PIX_RECEIVER_BRANCH ? { agencia: e.PIX_RECEIVER_BRANCH } : {}),
      conta: e.PIX_RECEIVER_ACCOUNT,
      tipoConta: e.PIX_RECEIVER_ACCOUNT_TYPE,
    };
  },
});
