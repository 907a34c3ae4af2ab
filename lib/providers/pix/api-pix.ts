import { env } from "@/lib/env";
import { InvalidInput, UpstreamUnavailable } from "@/lib/errors";
import { timeOrderedBase62 } from "@/lib/ids";
import { log } from "@/lib/log";
import { centavosToDecimalString, decimalStringToCentavos } from "@/lib/money";
import { UpstreamHttpError } from "../http/client";
import type { HttpsAnswer } from "../http/mtls";
import { ProviderBusy, type SendAnswer } from "../outcome";
import type { RefundState } from "../refund/types";
import { describeProblem, PspProblem, pspClientFromEnv, type CallOptions, type PspClient } from "./psp-client";
import type { CollectionPayer, PixCollection, PixProvider, PixReturnReport, ReceivedPix } from "./types";

// PIX collection through any PSP that implements the Central Bank's API Pix v2 (docs/providers.md#pix-collection-api-pix-any-psp;
// the document is tests/fixtures/specs/bcb-api-pix-2.9.0.yaml). Requests follow the document; answers are read tolerantly
// (new fields and enum values are allowed by its rules) but every value we act on is checked.

export const API_PIX_PROVIDER = "api-pix";

// An order without an expiry still needs one at the PSP (calendario.expiracao, default 24 h): a year.
const NO_EXPIRY_SECONDS = 365 * 24 * 60 * 60;

/** Our txid for a charge: 32 letters and digits (the document allows 26–35), the second first (lib/ids.ts). */
const newTxid = () => timeOrderedBase62(32);

type Json = Record<string, unknown>;

function unreachable(what: string, err: unknown): UpstreamUnavailable {
  const reason =
    err instanceof UpstreamHttpError || err instanceof PspProblem
      ? err.message
      : err instanceof Error
        ? err.message
        : String(err);
  return new UpstreamUnavailable(`PIX provider unavailable (${what}): ${reason}`);
}

/** An answer that decides nothing: a 429 keeps the PSP's Retry-After for the caller's next try. */
export function undecided(what: string, answer: HttpsAnswer): UpstreamUnavailable {
  const problem = new PspProblem(answer.status, answer.json);
  return answer.status === 429
    ? new ProviderBusy(`PIX provider busy (${what}): ${problem.message}`, answer.retryAfterSeconds ?? 30)
    : unreachable(what, problem);
}

/** One call to the PSP's API Pix (its path relative to PIX_API_URL); no answer at all is an UpstreamUnavailable. */
export async function call(
  client: PspClient,
  what: string,
  method: "GET" | "PUT" | "PATCH",
  path: string,
  body?: unknown,
  opts?: CallOptions,
) {
  try {
    return await client.call(method, `${client.config.apiUrl}${path}`, body, opts);
  } catch (err) {
    throw unreachable(what, err);
  }
}

/**
 * The document's answer to a devolução whose id was used before ("id já utilizado por outra
 * requisição de devolução", PixDevolucaoInvalida with a violation on devolucao.id).
 */
function idAlreadyUsed(body: unknown): boolean {
  const o = (body ?? {}) as Json;
  const violations = Array.isArray(o.violacoes) ? (o.violacoes as Json[]) : [];
  return violations.some(
    (v) => v?.propriedade === "devolucao.id" || (typeof v?.razao === "string" && /id j[aá] utilizado/i.test(v.razao)),
  );
}

/** A Pix as the document describes it, or null when the PSP answered something we cannot act on. */
export function receivedPixOf(o: unknown): ReceivedPix | null {
  if (!o || typeof o !== "object") return null;
  const p = o as Json;
  const value = typeof p.valor === "string" ? decimalStringToCentavos(p.valor) : null;
  const paidAt = typeof p.horario === "string" ? new Date(p.horario) : null;
  if (
    typeof p.endToEndId !== "string" ||
    !/^[a-zA-Z0-9]{32}$/.test(p.endToEndId) ||
    value === null ||
    value <= 0 ||
    !paidAt ||
    Number.isNaN(paidAt.getTime())
  )
    return null;
  return {
    endToEndId: p.endToEndId,
    txid: typeof p.txid === "string" && p.txid.length > 0 ? p.txid : null,
    valueCentavos: value,
    paidAt,
    chave: typeof p.chave === "string" ? p.chave : null,
    returns: (Array.isArray(p.devolucoes) ? p.devolucoes : [])
      .map(pixReturnOf)
      .filter((r): r is PixReturnReport => r !== null),
  };
}

const NATUREZAS = ["ORIGINAL", "RETIRADA", "MED_OPERACIONAL", "MED_FRAUDE", "MED_PIX_AUTOMATICO"] as const;
const RETURN_STATUSES = ["EM_PROCESSAMENTO", "DEVOLVIDO", "NAO_REALIZADO"] as const;

/** A devolução as the document describes it (natureza absent = ORIGINAL); null when it is not one we can act on. */
function pixReturnOf(o: unknown): PixReturnReport | null {
  if (!o || typeof o !== "object") return null;
  const d = o as Json;
  const value = typeof d.valor === "string" ? decimalStringToCentavos(d.valor) : null;
  const natureza = d.natureza === undefined ? "ORIGINAL" : d.natureza;
  if (typeof d.id !== "string" || !d.id || value === null || value <= 0) return null;
  if (!NATUREZAS.includes(natureza as never) || !RETURN_STATUSES.includes(d.status as never)) return null;
  const horario = (d.horario ?? {}) as Json;
  const time = (v: unknown) => (typeof v === "string" && !Number.isNaN(Date.parse(v)) ? new Date(v) : null);
  return {
    id: d.id,
    rtrId: typeof d.rtrId === "string" ? d.rtrId : null,
    valueCentavos: value,
    natureza: natureza as PixReturnReport["natureza"],
    status: d.status as PixReturnReport["status"],
    requestedAt: time(horario.solicitacao),
    returnedAt: time(horario.liquidacao),
    description: typeof d.descricao === "string" ? d.descricao.slice(0, 140) : null,
  };
}

function refundStateOf(o: unknown): RefundState | null {
  if (!o || typeof o !== "object") return null;
  const d = o as Json;
  const providerRef = typeof d.rtrId === "string" ? d.rtrId : undefined;
  switch (d.status) {
    case "DEVOLVIDO":
      return { status: "COMPLETED", providerRef };
    case "NAO_REALIZADO":
      return {
        status: "FAILED",
        providerRef,
        reason: typeof d.motivo === "string" && d.motivo ? d.motivo : "the PSP did not make the refund (NAO_REALIZADO)",
      };
    case "EM_PROCESSAMENTO":
      return { status: "PROCESSING", providerRef };
    default:
      return null;
  }
}

function chargeBody(args: {
  valueCentavos: number;
  description?: string;
  expiresInSeconds?: number | null;
  payer?: CollectionPayer;
}) {
  const payer = args.payer
    ? {
        ...("cpf" in args.payer ? { cpf: args.payer.cpf } : { cnpj: args.payer.cnpj }),
        nome: args.payer.name.slice(0, 200),
      }
    : undefined;
  return {
    calendario: { expiracao: args.expiresInSeconds ?? NO_EXPIRY_SECONDS },
    ...(payer ? { devedor: payer } : {}),
    valor: { original: centavosToDecimalString(args.valueCentavos) },
    chave: env().PIX_RECEIVER_KEY,
    ...(args.description ? { solicitacaoPagador: args.description.slice(0, 140) } : {}),
  };
}

/** The charge we asked for is the one the PSP holds: our key and our value. */
function sameCharge(charge: Json, body: ReturnType<typeof chargeBody>): boolean {
  const valor = charge.valor as Json | undefined;
  return (
    charge.chave === body.chave && valor?.original === body.valor.original && typeof charge.pixCopiaECola === "string"
  );
}

export const apiPix: PixProvider = {
  name: API_PIX_PROVIDER,

  async createCollection(args): Promise<PixCollection> {
    const client = pspClientFromEnv();
    const txid = newTxid();
    const body = chargeBody(args);
    const answer = await call(client, "create the charge", "PUT", `/cob/${txid}`, body);
    if (answer.status === 201 || answer.status === 200) {
      const charge = answer.json as Json | null;
      if (!charge || typeof charge.pixCopiaECola !== "string" || charge.pixCopiaECola.length === 0) {
        throw new UpstreamUnavailable("PIX provider answered the charge without its pixCopiaECola");
      }
      return { brcode: charge.pixCopiaECola, txid, provider: API_PIX_PROVIDER, providerRef: txid };
    }
    if (answer.status === 400 || answer.status === 409) {
      // A retry of ours after a lost answer meets the charge it already made: read it back.
      const existing = await call(client, "read the charge", "GET", `/cob/${txid}`);
      if (existing.status === 200 && existing.json && sameCharge(existing.json as Json, body)) {
        return {
          brcode: (existing.json as Json).pixCopiaECola as string,
          txid,
          provider: API_PIX_PROVIDER,
          providerRef: txid,
        };
      }
      throw new InvalidInput(
        `The PIX provider refused the charge${describeProblem(answer.json) || `: HTTP ${answer.status}`}`,
      );
    }
    throw undecided("create the charge", answer);
  },

  async cancelCollection(txid) {
    const client = pspClientFromEnv();
    const answer = await call(client, "remove the charge", "PATCH", `/cob/${txid}`, {
      status: "REMOVIDA_PELO_USUARIO_RECEBEDOR",
    });
    if (answer.status === 200) return "removed";
    if (answer.status === 404) return "gone";
    // Refused: most likely paid meanwhile. The charge says which.
    const read = await call(client, "read the charge", "GET", `/cob/${txid}`);
    const status = read.status === 200 ? (read.json as Json | null)?.status : null;
    if (status === "CONCLUIDA") return "paid";
    if (read.status === 404 || (typeof status === "string" && status.startsWith("REMOVIDA"))) return "gone";
    throw undecided("remove the charge", answer);
  },

  async readPayment(endToEndId) {
    if (!/^[a-zA-Z0-9]{32}$/.test(endToEndId)) return null;
    const answer = await call(pspClientFromEnv(), "read a received PIX", "GET", `/pix/${endToEndId}`);
    if (answer.status === 404) return null;
    if (answer.status !== 200) throw undecided("read a received PIX", answer);
    const pix = receivedPixOf(answer.json);
    if (!pix || pix.endToEndId !== endToEndId)
      throw new UpstreamUnavailable(`PIX provider answered GET /pix/${endToEndId} with something that is not that Pix`);
    return pix;
  },

  async listPayments({ from, to, page, withReturnsOnly }) {
    const query = new URLSearchParams({
      inicio: from.toISOString(),
      fim: to.toISOString(),
      "paginacao.paginaAtual": String(page),
      "paginacao.itensPorPagina": "1000",
    });
    // The document's filter: only the Pix that have devoluções (how MED returns of older Pix are found).
    if (withReturnsOnly) query.set("devolucaoPresente", "true");
    const answer = await call(pspClientFromEnv(), "list received PIX", "GET", `/pix?${query}`);
    if (answer.status !== 200) throw undecided("list received PIX", answer);
    const o = (answer.json ?? {}) as Json;
    const items = Array.isArray(o.pix) ? o.pix : [];
    const paging = ((o.parametros as Json | undefined)?.paginacao ?? {}) as Json;
    const pages = typeof paging.quantidadeDePaginas === "number" ? paging.quantidadeDePaginas : 1;
    const parsed: ReceivedPix[] = [];
    for (const item of items) {
      const pix = receivedPixOf(item);
      if (pix) parsed.push(pix);
      else log.warn("PIX provider listed a Pix we cannot read; skipped", { item: JSON.stringify(item).slice(0, 300) });
    }
    return { items: parsed, pages };
  },

  async refund({ id, paymentRef, valueCentavos, reason }): Promise<SendAnswer> {
    const body = {
      valor: centavosToDecimalString(valueCentavos),
      ...(reason ? { descricao: reason.slice(0, 140) } : {}),
    };
    // Sent once: the document answers a repeat of this id with a 400 whether or not the first was made.
    const answer = await call(
      pspClientFromEnv(),
      "request the refund",
      "PUT",
      `/pix/${paymentRef}/devolucao/${id}`,
      body,
      { once: true },
    );
    if (answer.status === 201 || answer.status === 200) {
      const state = refundStateOf(answer.json);
      if (!state) throw new UpstreamUnavailable("PIX provider answered the refund without a status we know");
      return state;
    }
    if (answer.status === 400 && idAlreadyUsed(answer.json))
      return { status: "DUPLICATE", reason: `PixDevolucaoInvalida${describeProblem(answer.json)}` };
    // Refused (beyond what is left, past the 90 days, no such Pix, …).
    if (answer.status >= 400 && answer.status < 500 && answer.status !== 429)
      return { status: "REFUSED", reason: `refused by the PIX provider${describeProblem(answer.json)}` };
    throw undecided("request the refund", answer);
  },

  async readRefund({ id, paymentRef }) {
    const answer = await call(pspClientFromEnv(), "read the refund", "GET", `/pix/${paymentRef}/devolucao/${id}`);
    if (answer.status === 404) return null;
    if (answer.status !== 200) throw undecided("read the refund", answer);
    const state = refundStateOf(answer.json);
    if (!state) throw new UpstreamUnavailable("PIX provider answered the refund without a status we know");
    return state;
  },
};

/**
 * Registers where the PSP notifies (PUT /webhook/{chave}; it appends /pix itself): the receiving key's
 * PIX, and, when payouts leave from another key at Efí, that key's payout outcomes (Efí sends a PIX only
 * from a key with a webhook). Efí checks the URL first: a call without a client certificate it must
 * refuse, unless asked not to (x-skip-mtls-checking: true, PIX_WEBHOOK_MTLS=skip), then a test POST to
 * the URL itself (answered by the receiver, lib/pix-collection/endpoints.ts). Returns the keys registered.
 */
export async function registerPixWebhooks(url: string): Promise<string[]> {
  const e = env();
  const keys = [
    e.PIX_RECEIVER_KEY,
    ...(e.PIX_PAYOUT_PROVIDER === "efi" && e.PIX_PAYOUT_KEY && e.PIX_PAYOUT_KEY !== e.PIX_RECEIVER_KEY
      ? [e.PIX_PAYOUT_KEY]
      : []),
  ];
  for (const chave of keys) await registerPixWebhook(url, chave);
  return keys;
}

/** One key's registration (see registerPixWebhooks). */
export async function registerPixWebhook(url: string, chave = env().PIX_RECEIVER_KEY): Promise<void> {
  const client = pspClientFromEnv();
  const headers = env().PIX_WEBHOOK_MTLS === "skip" ? { "x-skip-mtls-checking": "true" } : undefined;
  const answer = await call(
    client,
    "register the webhook",
    "PUT",
    `/webhook/${encodeURIComponent(chave)}`,
    { webhookUrl: url },
    { headers },
  );
  if (answer.status !== 200 && answer.status !== 201 && answer.status !== 204) {
    throw new UpstreamUnavailable(
      `PIX provider refused the webhook registration for ${chave}${describeProblem(answer.json) || `: HTTP ${answer.status}`}`,
    );
  }
}
