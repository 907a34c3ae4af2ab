import { env } from "@/lib/env";
import { InvalidInput, UnreadableAnswer, UpstreamUnavailable } from "@/lib/errors";
import { centavosToDecimalString, decimalStringToCentavos } from "@/lib/money";
import { UpstreamHttpError } from "../http/client";
import type { HttpsAnswer } from "../http/mtls";
import { ProviderBusy, type SendAnswer } from "../outcome";
import { describeProblem, PspProblem, pspClientFromEnv } from "../pix/psp-client";
import type { DecodedCharge, DefenceAnswer, Infraction, PayoutState, PixPayoutProvider, SentPix } from "./types";

// PIX payouts through Efí's documented Pix-send API (docs/providers.md "PIX payouts"), with the same
// OAuth2 + mTLS credentials as its API Pix. Paths as Efí's current official SDK has them
// (efipay/sdk-node-apis-efi src/constants/endpoints.ts):
//   send to a key   PUT /v3/gn/pix/{idEnvio}          { valor, pagador: { chave }, favorecido: { chave } }
//                   (PIX_PAYOUT_SEND_VERSION=v2: PUT /v2/gn/pix/{idEnvio}, the same body)
//   pay a BR Code   PUT /v2/gn/pix/{idEnvio}/qrcode   { pagador: { chave }, pixCopiaECola }
//   read one        GET /v2/gn/pix/enviados/id-envio/{idEnvio}
//   decode a code   POST /v2/gn/qrcodes/detalhar      { pixCopiaECola } (the charge behind a dynamic code)
//   list sent PIX   GET /v2/gn/pix/enviados?inicio=&fim=&paginacao.paginaAtual= (reconciliation): an API Pix
//                   page { parametros, pix } or a bare array (the SDK's typings); anything else is refused
//   balance         GET /v2/gn/saldo → { "saldo": "100.00" } (the solvency report; SDK getAccountBalance)
//   MED infractions GET /v2/gn/infracoes?inicio=&fim= → { parametros, infracoes: [{ idInfracao, endToEndId,
//                   valor, status, razao, tipoSituacao?, dadosAnalise: { abertura, prazoFinalizacao } }] }
//   defend one      POST /v2/gn/infracoes/{idInfracao}/defesa { analise: "aceito"|"rejeitado", justificativa }
//                   (SDK medList / medDefense; docs/providers.md "MED infractions": a defence contests, so
//                   "rejeitado", the receiver rejecting the payer's claim)
// idEnvio is ours (the payout's id without dashes). Efí answers a reused idEnvio with 409
// id_envio_duplicado, and its read by idEnvio can lag the send (404 for a while): neither says
// whether the PIX went out, so both are left to lib/providers/outcome to judge. A send is made
// once per call: the payout machine reads first and repeats it itself.
// States EM_PROCESSAMENTO → REALIZADO | NAO_REALIZADO; the outcome is also notified to the webhook of
// the payer key (tipo SOLICITACAO, gnExtras.idEnvio), which wakes the payout's job.

export const EFI_PAYOUT_PROVIDER = "efi";

type Json = Record<string, unknown>;

function payoutBase(): string {
  const e = env();
  return (e.PIX_PAYOUT_URL ?? new URL(e.PIX_API_URL!).origin).replace(/\/+$/, "");
}

function stateOf(o: unknown): PayoutState | null {
  if (!o || typeof o !== "object") return null;
  const p = o as Json;
  const providerRef =
    typeof p.endToEndId === "string" ? p.endToEndId : typeof p.e2eId === "string" ? p.e2eId : undefined;
  switch (p.status) {
    case "REALIZADO":
      return { status: "COMPLETED", providerRef };
    case "NAO_REALIZADO":
      return { status: "FAILED", providerRef, reason: notMadeReason(p) };
    case "EM_PROCESSAMENTO":
      return { status: "PROCESSING", providerRef };
    default:
      return null;
  }
}

/** Efí names why a PIX was not made in gnExtras.erro (code, origin, reason) where it knows. */
function notMadeReason(p: Json): string {
  const erro = ((p.gnExtras as Json | undefined)?.erro ?? {}) as Json;
  const detail = [erro.codigo, erro.motivo].filter((v) => typeof v === "string" && v).join(": ");
  return `the PSP did not make the PIX (NAO_REALIZADO${detail ? `, ${detail}` : ""})`;
}

async function call(
  what: string,
  method: "GET" | "PUT" | "POST",
  path: string,
  body?: unknown,
  once = false,
): Promise<HttpsAnswer> {
  try {
    return await pspClientFromEnv().call(method, `${payoutBase()}${path}`, body, { once });
  } catch (err) {
    // No answer: the outcome is unknown, never a failure (the payout machine reads it back).
    throw new UpstreamUnavailable(
      `PIX payout provider unavailable (${what}): ${err instanceof UpstreamHttpError ? err.message : String(err)}`,
    );
  }
}

/** An answer that decides nothing (429, 5xx such as erro_aplicacao): thrown as unknown, with Efí's wait when it gave one. */
function undecided(what: string, answer: HttpsAnswer): Error {
  const message = `PIX payout provider could not ${what}: ${new PspProblem(answer.status, answer.json).message}`;
  return answer.status === 429
    ? new ProviderBusy(message, answer.retryAfterSeconds ?? 30)
    : new UpstreamUnavailable(message);
}

/** Efí's detail of a charge (its "Detalhar QR Code Pix" 200); a field we act on that is missing is the PSP's fault, not the payer's. */
function decodedCharge(o: unknown): DecodedCharge {
  const d = (o ?? {}) as Json;
  const valor = (d.valor ?? {}) as Json;
  const amount =
    typeof valor.final === "string"
      ? decimalStringToCentavos(valor.final)
      : typeof valor.original === "string"
        ? decimalStringToCentavos(valor.original)
        : null;
  if (typeof d.chave !== "string" || !d.chave || amount === null || amount <= 0)
    throw new UpstreamUnavailable("PIX payout provider described the QR code without its key or amount");
  const cal = (d.calendario ?? {}) as Json;
  const created = typeof cal.criacao === "string" ? Date.parse(cal.criacao) : NaN;
  const expiresAt =
    !Number.isNaN(created) && typeof cal.expiracao === "number" ? new Date(created + cal.expiracao * 1000) : null;
  const recebedor = (d.recebedor ?? {}) as Json;
  return {
    pixKey: d.chave,
    amountCentavos: amount,
    txid: typeof d.txid === "string" ? d.txid : null,
    recipientName: typeof recebedor.nome === "string" ? recebedor.nome : null,
    payable: d.status === "ATIVA" && (expiresAt === null || expiresAt.getTime() > Date.now()),
    expiresAt,
  };
}

/** One of Efí's infracoes; null when a field we act on is missing (it is left out rather than guessed). */
function infractionOf(raw: unknown): Infraction | null {
  const p = (raw ?? {}) as Json;
  const analysis = (p.dadosAnalise ?? {}) as Json;
  const value = typeof p.valor === "string" ? decimalStringToCentavos(p.valor) : null;
  const openedAt = typeof analysis.abertura === "string" ? new Date(analysis.abertura) : null;
  const deadline = typeof analysis.prazoFinalizacao === "string" ? new Date(analysis.prazoFinalizacao) : null;
  if (typeof p.idInfracao !== "string" || typeof p.endToEndId !== "string" || typeof p.status !== "string") return null;
  if (value === null || !openedAt || Number.isNaN(openedAt.getTime()) || !deadline || Number.isNaN(deadline.getTime()))
    return null;
  return {
    id: p.idInfracao,
    endToEndId: p.endToEndId,
    valueCentavos: value,
    status: p.status,
    open: p.status === "ABERTA",
    reason: typeof p.razao === "string" ? p.razao : "",
    situation: typeof p.tipoSituacao === "string" ? p.tipoSituacao : null,
    openedAt,
    deadline,
    defence: typeof p.defesa === "string" ? p.defesa : null,
  };
}

/** Efí's words for a refusal ({ nome, mensagem } or a problem+json), for the merchant to read. */
function refusalOf(answer: HttpsAnswer): string {
  return describeProblem(answer.json).replace(/^: /, "") || `HTTP ${answer.status}`;
}

/** Items asked for per page of the list of PIX sent. */
const SENT_PAGE_SIZE = 1000;

/**
 * One page of GET /v2/gn/pix/enviados in either shape Efí's SDKs have declared (docs/providers.md
 * "PIX payouts"): API Pix's page `{ parametros: { paginacao }, pix: [...] }`, or the bare array of
 * efipay/sdk-node-apis-efi's typings (`pixSendList`, dist/types/methods/pix.d.ts), which carries no page
 * count: a full page means another may follow. Anything else, an item included, is UnreadableAnswer,
 * never an empty page: read as empty, every payout we made would look missing at the PSP.
 */
export function sentPage(json: unknown, page: number): { items: SentPix[]; pages: number } {
  const envelope = json && typeof json === "object" && !Array.isArray(json) ? (json as Json) : null;
  const list = Array.isArray(json) ? json : envelope && Array.isArray(envelope.pix) ? envelope.pix : null;
  const paging = ((envelope?.parametros as Json | undefined)?.paginacao ?? null) as Json | null;
  const count = paging?.quantidadeDePaginas;
  if (!list || (envelope && (typeof count !== "number" || !Number.isInteger(count) || count < 0)))
    throw new UnreadableAnswer(
      `PIX payout provider answered the list of PIX sent in a shape we cannot read (${describeShape(json)})`,
    );
  const items = list.map((raw, i) => {
    const item = sentItem(raw);
    if (!item)
      throw new UnreadableAnswer(
        `PIX payout provider listed a PIX sent we cannot read (page ${page}, item ${i}: ${describeShape(raw)})`,
      );
    return item;
  });
  const pages = envelope ? (count as number) : list.length >= SENT_PAGE_SIZE ? page + 2 : page + 1;
  return { items, pages };
}

/** One PIX sent as the read by idEnvio shows it; null when a field we match on is missing or unknown. */
function sentItem(raw: unknown): SentPix | null {
  const p = (raw ?? {}) as Json;
  const state = stateOf(p);
  const value = typeof p.valor === "string" ? decimalStringToCentavos(p.valor) : null;
  const requested = (p.horario as Json | undefined)?.solicitacao;
  const at = typeof requested === "string" ? new Date(requested) : null;
  const id = typeof p.idEnvio === "string" ? p.idEnvio : null;
  const endToEndId = typeof p.endToEndId === "string" ? p.endToEndId : typeof p.e2eId === "string" ? p.e2eId : null;
  if (!state || value === null || !at || Number.isNaN(at.getTime()) || (!id && !endToEndId)) return null;
  return { id, endToEndId, valueCentavos: value, status: state.status, at };
}

/** What an unreadable answer looked like, for the operator: its type and keys, never its values. */
function describeShape(json: unknown): string {
  if (Array.isArray(json)) return `an array of ${json.length}`;
  if (json && typeof json === "object")
    return `an object with ${Object.keys(json).slice(0, 8).join(", ") || "no keys"}`;
  return json === null || json === undefined ? "no body" : typeof json;
}

export const efiPayout: PixPayoutProvider = {
  name: EFI_PAYOUT_PROVIDER,

  async send({ id, destination, valueCentavos, description }): Promise<SendAnswer> {
    const pagador = {
      chave: env().PIX_PAYOUT_KEY!,
      ...(description ? { infoPagador: description.slice(0, 140) } : {}),
    };
    const [path, body] =
      "pixKey" in destination
        ? [
            `/${env().PIX_PAYOUT_SEND_VERSION}/gn/pix/${id}`,
            { valor: centavosToDecimalString(valueCentavos), pagador, favorecido: { chave: destination.pixKey } },
          ]
        : [`/v2/gn/pix/${id}/qrcode`, { pagador, pixCopiaECola: destination.brcode }];
    const answer = await call("send the PIX", "PUT", path, body, true);
    if (answer.status === 200 || answer.status === 201) {
      const state = stateOf(answer.json);
      if (state) return state;
      throw new UpstreamUnavailable("PIX payout provider answered the send without a status we know");
    }
    if (answer.status === 409)
      return { status: "DUPLICATE", reason: `Efí${describeProblem(answer.json) || ": HTTP 409"}` };
    if (answer.status === 429 || answer.status >= 500) throw undecided("send the PIX", answer);
    // Refused (an invalid key, no balance, denied by analysis, a code it cannot pay).
    return {
      status: "REFUSED",
      reason: `refused by the PIX payout provider${describeProblem(answer.json) || `: HTTP ${answer.status}`}`,
    };
  },

  async decode(pixCopiaECola): Promise<DecodedCharge> {
    const answer = await call("read the PIX QR code", "POST", "/v2/gn/qrcodes/detalhar", { pixCopiaECola });
    if (answer.status === 400 || answer.status === 422)
      throw new InvalidInput(`Invalid PIX QR code: the PSP cannot read it${describeProblem(answer.json)}`, {
        code: "brcode.invalid",
      });
    if (answer.status !== 200) throw undecided("read the PIX QR code", answer);
    return decodedCharge(answer.json);
  },

  async listSent({ from, to, page }) {
    const query = new URLSearchParams({
      inicio: from.toISOString(),
      fim: to.toISOString(),
      "paginacao.paginaAtual": String(page),
      "paginacao.itensPorPagina": String(SENT_PAGE_SIZE),
    });
    const answer = await call("list the PIX sent", "GET", `/v2/gn/pix/enviados?${query}`);
    if (answer.status !== 200) throw undecided("list the PIX sent", answer);
    return sentPage(answer.json, page);
  },

  async balance() {
    const answer = await call("read the account's balance", "GET", "/v2/gn/saldo");
    if (answer.status !== 200) throw undecided("read the account's balance", answer);
    const saldo = ((answer.json ?? {}) as Json).saldo;
    // Efí gives reais as a decimal string; a negative one is read as such rather than refused.
    const negative = typeof saldo === "string" && saldo.startsWith("-");
    const value = typeof saldo === "string" ? decimalStringToCentavos(negative ? saldo.slice(1) : saldo) : null;
    if (value === null)
      throw new UpstreamUnavailable("PIX payout provider answered the balance without a saldo we can read");
    return negative ? -value : value;
  },

  async blocked() {
    // The SDK's getAccountBalance typing: { saldo, bloqueios?: { judicial, med, total } }, reais as
    // decimal strings. Absent: nothing blocked. Present but unreadable: refused, never read as zero.
    const answer = await call("read the account's blocked amounts", "GET", "/v2/gn/saldo");
    if (answer.status !== 200) throw undecided("read the account's blocked amounts", answer);
    const bloqueios = ((answer.json ?? {}) as Json).bloqueios;
    if (bloqueios === undefined || bloqueios === null) return null;
    const b = (typeof bloqueios === "object" ? bloqueios : {}) as Json;
    const med = typeof b.med === "string" ? decimalStringToCentavos(b.med) : null;
    const judicial = typeof b.judicial === "string" ? decimalStringToCentavos(b.judicial) : null;
    if (med === null || judicial === null)
      throw new UnreadableAnswer(
        `PIX payout provider answered the balance with bloqueios we cannot read (${describeShape(bloqueios)})`,
      );
    return { medCentavos: med, judicialCentavos: judicial };
  },

  async listInfractions({ from, to }) {
    const items: Infraction[] = [];
    // Pages as Efí's other lists do (parametros.paginacao, from 0); a bound keeps a bad count from looping.
    for (let page = 0, pages = 1; page < pages && page < 100; page++) {
      const query = new URLSearchParams({ inicio: from.toISOString(), fim: to.toISOString() });
      if (page > 0) query.set("paginacao.paginaAtual", String(page));
      const answer = await call("list the MED infractions", "GET", `/v2/gn/infracoes?${query}`);
      if (answer.status !== 200) throw undecided("list the MED infractions", answer);
      const o = (answer.json ?? {}) as Json;
      const paging = ((o.parametros as Json | undefined)?.paginacao ?? {}) as Json;
      if (typeof paging.quantidadeDePaginas === "number") pages = paging.quantidadeDePaginas;
      for (const raw of Array.isArray(o.infracoes) ? (o.infracoes as unknown[]) : []) {
        const item = infractionOf(raw);
        if (item) items.push(item);
      }
    }
    return items;
  },

  async defendInfraction(id, justification): Promise<DefenceAnswer> {
    // Once: a defence whose answer was lost is read back from the list (EM_DEFESA) before any second one.
    const answer = await call(
      "send the defence",
      "POST",
      `/v2/gn/infracoes/${encodeURIComponent(id)}/defesa`,
      { analise: "rejeitado", justificativa: justification },
      true,
    );
    if (answer.status >= 200 && answer.status < 300) return { status: "ACCEPTED" };
    if (answer.status === 429 || answer.status >= 500) throw undecided("send the defence", answer);
    return { status: "REFUSED", reason: refusalOf(answer) };
  },

  async read(id) {
    const answer = await call("read the PIX sent", "GET", `/v2/gn/pix/enviados/id-envio/${id}`);
    if (answer.status === 404) return null;
    if (answer.status !== 200) throw undecided("read the PIX sent", answer);
    const state = stateOf(answer.json);
    if (!state) throw new UpstreamUnavailable("PIX payout provider answered the read without a status we know");
    return state;
  },
};
