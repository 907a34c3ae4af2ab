import { UpstreamUnavailable } from "@/lib/errors";

// Money that leaves (a PIX payout, a refund): what a provider's answer to "send it" means. One rule,
// used by every sender (docs/providers.md, "An outcome we do not know is not a failure"):
//   - the provider reports the payment's own state (processing, made, not made): that is the outcome;
//   - it refuses a request we never sent before: not made;
//   - it refuses a request we may have sent before (a repeat after a lost answer, a read that had not
//     caught up yet), or says the id was used already: unknown. Providers answer a repeated id with
//     a refusal (API Pix 400 PixDevolucaoInvalida "id já utilizado", Efí 409 id_envio_duplicado,
//     Binance a FAIL code) although the first request may have been carried out, so such a refusal
//     says nothing about whether the money went out;
//   - no answer, a 429 or a 5xx: unknown.
// Unknown is never a failure: the payment is read back by our id until the provider states a final
// state, and money goes back only on "not made".

/** A payment's state as the provider reports it. */
export type ProviderState = { status: "PROCESSING" | "COMPLETED" | "FAILED"; providerRef?: string; reason?: string };

/** What a provider answered to a request to move money out. */
export type SendAnswer =
  | ProviderState
  /** The request was refused (a 4xx that is not about a repeated id). */
  | { status: "REFUSED"; reason: string }
  /** The id was used before: whatever happened to that request is the outcome. */
  | { status: "DUPLICATE"; reason: string };

export type SendVerdict = ProviderState | { status: "UNKNOWN"; reason: string };

/** What an answer decides, given whether this id may have reached the provider before. */
export function judgeSendAnswer(answer: SendAnswer, sentBefore: boolean): SendVerdict {
  switch (answer.status) {
    case "DUPLICATE":
      return {
        status: "UNKNOWN",
        reason: `the provider says this id was used before (${answer.reason}); it is read back by its id`,
      };
    case "REFUSED":
      return sentBefore
        ? {
            status: "UNKNOWN",
            reason: `the provider refused a repeat of a request it may have carried out (${answer.reason}); it is read back by its id`,
          }
        : { status: "FAILED", reason: answer.reason };
    default:
      return answer;
  }
}

/** The provider asked us to wait (a 429's Retry-After): the next try comes no sooner. */
export class ProviderBusy extends UpstreamUnavailable {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** Seconds a failed call asks us to wait before the next one (0 when it did not say). */
export function retryAfterOf(err: unknown): number {
  return err instanceof ProviderBusy ? err.retryAfterSeconds : 0;
}

/**
 * Retry-After as RFC 9110 writes it (delay-seconds or an HTTP-date), in whole seconds from now;
 * null when absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

/** Where one step with the provider left a payment. */
export type MoneyOutStep =
  | { kind: "final"; state: ProviderState & { status: "COMPLETED" | "FAILED" } }
  | { kind: "processing"; providerRef: string | null }
  /** `stopped`: sent `maxSends` times and still unknown: read only, an operator decides whether to send again. */
  | { kind: "unknown"; reason: string; retryAfterSeconds: number; stopped: boolean };

export type MoneyOutCalls = {
  read(): Promise<ProviderState | null>;
  /** Records that a send is about to be made (before it is made: a crash after it reads first). */
  beforeSend(): Promise<void>;
  send(): Promise<SendAnswer>;
};

/**
 * One step of a payment that leaves: reads it back when it may have reached the provider before,
 * sends it (again, same id) only when the provider has no record of it and fewer than `maxSends`
 * sends were made, and judges the answer. Never throws for the provider: what it could not learn
 * is an unknown step.
 */
export async function stepMoneyOut(
  calls: MoneyOutCalls,
  record: { sends: number; mayHaveReachedProvider: boolean; maxSends: number },
): Promise<MoneyOutStep> {
  const known = (state: ProviderState): MoneyOutStep =>
    state.status === "PROCESSING"
      ? { kind: "processing", providerRef: state.providerRef ?? null }
      : { kind: "final", state: { ...state, status: state.status } };
  try {
    if (record.mayHaveReachedProvider) {
      const state = await calls.read();
      if (state) return known(state);
      if (record.sends >= record.maxSends) {
        return {
          kind: "unknown",
          reason: `sent ${record.sends} times without an answer the provider stands by, and it shows no such payment: not sent again (check with the provider, then resend or resolve it)`,
          retryAfterSeconds: 0,
          stopped: true,
        };
      }
    }
    await calls.beforeSend();
    const verdict = judgeSendAnswer(await calls.send(), record.sends > 0);
    return verdict.status === "UNKNOWN"
      ? { kind: "unknown", reason: verdict.reason, retryAfterSeconds: 0, stopped: false }
      : known(verdict);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { kind: "unknown", reason: message.slice(0, 500), retryAfterSeconds: retryAfterOf(err), stopped: false };
  }
}
