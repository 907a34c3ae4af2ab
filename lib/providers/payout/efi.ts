import { env } from "@/lib/env";
import { UpstreamUnavailable } from "@/lib/errors";
import { centavosToDecimalString } from "@/lib/money";
import { UpstreamHttpError } from "../http/client";
import { describeProblem, PspProblem, pspClientFromEnv } from "../pix/psp-client";
import type { PayoutState, PixPayoutProvider } from "./types";

// PIX payouts through Efí's documented Pix-send API (CONTRACT §10), with the same OAuth2 + mTLS
// credentials as its API Pix:
//   send to a key   PUT /v2/gn/pix/{idEnvio}          { valor, pagador: { chave }, favorecido: { chave } }
//   pay a BR Code   PUT /v2/gn/pix/{idEnvio}/qrcode   { pagador: { chave }, pixCopiaECola }
//   read one        GET /v2/gn/pix/enviados/id-envio/{idEnvio}
// idEnvio is ours (the payout's id without dashes): sending it again is never a second payment.
// States EM_PROCESSAMENTO → REALIZADO | NAO_REALIZADO.

export const EFI_PAYOUT_PROVIDER = "efi";

type Json = Record<string, unknown>;

function payoutBase(): string {
  const e = env();
  return (e.PIX_PAYOUT_URL ?? new URL(e.PIX_API_URL!).origin).replace(/\/+$/, "");
}

function stateOf(o: unknown): PayoutState | null {
  if (!o || typeof o !== "object") return null;
  const p = o as Json;
  const providerRef = typeof p.endToEndId === "string" ? p.endToEndId : typeof p.e2eId === "string" ? p.e2eId : undefined;
  switch (p.status) {
    case "REALIZADO":
      return { status: "COMPLETED", providerRef };
    case "NAO_REALIZADO":
      return { status: "FAILED", providerRef, reason: "the PSP did not make the PIX (NAO_REALIZADO)" };
    case "EM_PROCESSAMENTO":
      return { status: "PROCESSING", providerRef };
    default:
      return null;
  }
}

async function call(what: string, method: "GET" | "PUT", path: string, body?: unknown) {
  try {
    return await pspClientFromEnv().call(method, `${payoutBase()}${path}`, body);
  } catch (err) {
    // No answer: the outcome is unknown, never a failure (the payout machine reads it back).
    throw new UpstreamUnavailable(`PIX payout provider unavailable (${what}): ${err instanceof UpstreamHttpError ? err.message : String(err)}`);
  }
}

export const efiPayout: PixPayoutProvider = {
  name: EFI_PAYOUT_PROVIDER,

  async send({ id, destination, valueCentavos, description }) {
    const pagador = { chave: env().PIX_PAYOUT_KEY!, ...(description ? { infoPagador: description.slice(0, 140) } : {}) };
    const [path, body] =
      "pixKey" in destination
        ? [`/v2/gn/pix/${id}`, { valor: centavosToDecimalString(valueCentavos), pagador, favorecido: { chave: destination.pixKey } }]
        : [`/v2/gn/pix/${id}/qrcode`, { pagador, pixCopiaECola: destination.brcode }];
    const answer = await call("send the PIX", "PUT", path, body);
    if (answer.status === 200 || answer.status === 201) {
      const state = stateOf(answer.json);
      if (state) return state;
      throw new UpstreamUnavailable("PIX payout provider answered without a status we know");
    }
    if (answer.status === 409 || (answer.status === 400 && /duplicad|ja_existe|já existe/i.test(JSON.stringify(answer.json ?? "")))) {
      // This id was sent before: its outcome is that payment's, whatever it was.
      const read = await this.read(id);
      if (read) return read;
    }
    if (answer.status >= 400 && answer.status < 500) {
      // Refused outright (an invalid key, no funds, a code it cannot pay): the PIX was not made.
      return { status: "FAILED", reason: `refused by the PIX payout provider${describeProblem(answer.json) || `: HTTP ${answer.status}`}` };
    }
    throw new UpstreamUnavailable(`PIX payout provider unavailable (send the PIX): ${new PspProblem(answer.status, answer.json).message}`);
  },

  async read(id) {
    const answer = await call("read the PIX sent", "GET", `/v2/gn/pix/enviados/id-envio/${id}`);
    if (answer.status === 404) return null;
    if (answer.status !== 200)
      throw new UpstreamUnavailable(`PIX payout provider unavailable (read the PIX sent): ${new PspProblem(answer.status, answer.json).message}`);
    const state = stateOf(answer.json);
    if (!state) throw new UpstreamUnavailable("PIX payout provider answered the read without a status we know");
    return state;
  },
};
