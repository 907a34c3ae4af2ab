import { env } from "@/lib/env";
import { UpstreamUnavailable } from "@/lib/errors";
import { timeOrderedBase62 } from "@/lib/ids";
import { centavosToDecimalString } from "@/lib/money";
import type { DueTerms } from "@/lib/pix/due-amount";
import { API_PIX_PROVIDER, call, undecided } from "./api-pix";
import {
  DueChargeRefused,
  type BatchItem,
  type DueChargeProblem,
  type DueChargeProvider,
  type DueChargeRequest,
} from "./due-charges";
import { pspClientFromEnv } from "./psp-client";

// Charges with a due date through API Pix (docs/providers.md#charges-with-a-due-date-cobv): PUT, GET and
// PATCH /cobv/{txid}, and batches through PUT and GET /lotecobv/{id}, on the same OAuth2 + mTLS client
// as immediate charges. The bodies are the document's CobVSolicitada; answers are read tolerantly, but
// every value acted on is checked.

type Json = Record<string, unknown>;

const newTxid = () => timeOrderedBase62(32);
const money = (centavos: number) => centavosToDecimalString(centavos);
// The document's valorPerc: two decimals, a value or a percentage as the modalidade says.
const valorPerc = (hundredths: number) => centavosToDecimalString(hundredths);

/** The document's `valor` of a cobv from our terms. */
export function cobvValor(t: DueTerms): Json {
  const d = t.discount;
  return {
    original: money(t.originalCentavos),
    ...(t.fine ? { multa: { modalidade: t.fine.modalidade, valorPerc: valorPerc(t.fine.hundredths) } } : {}),
    ...(t.interest
      ? { juros: { modalidade: t.interest.modalidade, valorPerc: valorPerc(t.interest.hundredths) } }
      : {}),
    ...(t.abatement
      ? { abatimento: { modalidade: t.abatement.modalidade, valorPerc: valorPerc(t.abatement.hundredths) } }
      : {}),
    ...(d
      ? {
          desconto:
            "dates" in d
              ? {
                  modalidade: d.modalidade,
                  descontoDataFixa: d.dates.map((e) => ({ data: e.date, valorPerc: valorPerc(e.hundredths) })),
                }
              : { modalidade: d.modalidade, valorPerc: valorPerc(d.hundredths) },
        }
      : {}),
  };
}

/** CobVSolicitada: the due date and its grace days, the payer (required here), the value, our key. */
export function cobvBody(r: DueChargeRequest): Json {
  const p = r.payer;
  return {
    calendario: { dataDeVencimento: r.terms.dueDate, validadeAposVencimento: r.terms.daysAfterDue },
    devedor: {
      ...("cpf" in p ? { cpf: p.cpf } : { cnpj: p.cnpj }),
      nome: p.name.slice(0, 200),
      ...(p.email ? { email: p.email } : {}),
    },
    valor: cobvValor(r.terms),
    chave: env().PIX_RECEIVER_KEY,
    ...(r.description ? { solicitacaoPagador: r.description.slice(0, 140) } : {}),
  };
}

/** An API Pix problem (RFC 7807 with violacoes) as we keep it. */
export function problemOf(body: unknown, status: number): DueChargeProblem {
  const o = (body && typeof body === "object" ? body : {}) as Json;
  const violations = (Array.isArray(o.violacoes) ? o.violacoes : [])
    .filter((v): v is Json => !!v && typeof v === "object")
    .map((v) => ({
      property: typeof v.propriedade === "string" ? v.propriedade.slice(0, 200) : "",
      reason: typeof v.razao === "string" ? v.razao.slice(0, 300) : "",
    }));
  return {
    title: typeof o.title === "string" && o.title ? o.title.slice(0, 200) : `HTTP ${status}`,
    ...(typeof o.detail === "string" && o.detail ? { detail: o.detail.slice(0, 300) } : {}),
    violations,
  };
}

/** The charge we asked for is the one the PSP holds: our key, due date and value. */
function sameCharge(charge: Json, body: Json): boolean {
  const cal = (charge.calendario ?? {}) as Json;
  const valor = (charge.valor ?? {}) as Json;
  return (
    charge.chave === body.chave &&
    cal.dataDeVencimento === (body.calendario as Json).dataDeVencimento &&
    valor.original === (body.valor as Json).original &&
    typeof charge.pixCopiaECola === "string"
  );
}

function madeCharge(json: unknown, txid: string) {
  const charge = (json ?? {}) as Json;
  if (typeof charge.pixCopiaECola !== "string" || charge.pixCopiaECola.length === 0)
    throw new UpstreamUnavailable("PIX provider answered the charge without its pixCopiaECola");
  return {
    txid,
    brcode: charge.pixCopiaECola,
    provider: API_PIX_PROVIDER,
    location: typeof charge.location === "string" ? charge.location : null,
  };
}

const BATCH_STATUSES = ["EM_PROCESSAMENTO", "CRIADA", "NEGADA"] as const;

export const apiPixDueCharges: DueChargeProvider = {
  name: API_PIX_PROVIDER,
  newTxid,

  async create(request) {
    const client = pspClientFromEnv();
    const body = cobvBody(request);
    const path = `/cobv/${request.txid}`;
    const answer = await call(client, "create the charge with a due date", "PUT", path, body);
    if (answer.status === 201 || answer.status === 200) return madeCharge(answer.json, request.txid);
    if (answer.status === 400) {
      // A retry of ours after a lost answer meets the charge it already made: read it back.
      const existing = await call(client, "read the charge with a due date", "GET", path);
      if (existing.status === 200 && existing.json && sameCharge(existing.json as Json, body))
        return madeCharge(existing.json, request.txid);
      throw new DueChargeRefused(problemOf(answer.json, answer.status));
    }
    throw undecided("create the charge with a due date", answer);
  },

  async read(txid) {
    const answer = await call(pspClientFromEnv(), "read the charge with a due date", "GET", `/cobv/${txid}`);
    if (answer.status === 404) return null;
    if (answer.status !== 200) throw undecided("read the charge with a due date", answer);
    const charge = (answer.json ?? {}) as Json;
    if (charge.txid !== txid || typeof charge.status !== "string")
      throw new UpstreamUnavailable(`PIX provider answered GET /cobv/${txid} with something that is not that charge`);
    const made = madeCharge(charge, txid);
    return { brcode: made.brcode, location: made.location, status: charge.status };
  },

  async cancel(txid) {
    const client = pspClientFromEnv();
    const answer = await call(client, "remove the charge with a due date", "PATCH", `/cobv/${txid}`, {
      status: "REMOVIDA_PELO_USUARIO_RECEBEDOR",
    });
    if (answer.status === 200) return "removed";
    if (answer.status === 404) return "gone";
    // Refused: most likely paid meanwhile. The charge says which.
    const read = await call(client, "read the charge with a due date", "GET", `/cobv/${txid}`);
    const status = read.status === 200 ? (read.json as Json | null)?.status : null;
    if (status === "CONCLUIDA") return "paid";
    if (read.status === 404 || (typeof status === "string" && status.startsWith("REMOVIDA"))) return "gone";
    throw undecided("remove the charge with a due date", answer);
  },

  async createBatch({ id, description, items }) {
    const body = {
      descricao: description,
      cobsv: items.map((item) => ({ ...cobvBody(item), txid: item.txid })),
    };
    const answer = await call(pspClientFromEnv(), "create the batch", "PUT", `/lotecobv/${id}`, body);
    if (answer.status === 202 || answer.status === 200 || answer.status === 201) return null;
    if (answer.status === 400) throw new DueChargeRefused(problemOf(answer.json, answer.status));
    throw undecided("create the batch", answer);
  },

  async readBatch(id) {
    const answer = await call(pspClientFromEnv(), "read the batch", "GET", `/lotecobv/${id}`);
    if (answer.status !== 200) throw undecided("read the batch", answer);
    const o = (answer.json ?? {}) as Json;
    if (!Array.isArray(o.cobsv))
      throw new UpstreamUnavailable(`PIX provider answered GET /lotecobv/${id} without cobsv`);
    return o.cobsv.map((raw): BatchItem => {
      const item = (raw ?? {}) as Json;
      if (typeof item.txid !== "string" || !BATCH_STATUSES.includes(item.status as never))
        throw new UpstreamUnavailable(`PIX provider listed a charge of batch ${id} we cannot read`);
      return item.status === "NEGADA"
        ? { txid: item.txid, status: "NEGADA", problem: problemOf(item.problema, 400) }
        : { txid: item.txid, status: item.status as "EM_PROCESSAMENTO" | "CRIADA" };
    });
  },
};
