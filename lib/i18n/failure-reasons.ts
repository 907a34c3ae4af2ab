import type { MessageKey, Translator } from "./index";

// Why a withdrawal, a refund or a Crypto-PIX payment failed, for the merchant. The services store the
// provider's or the chain's reason as text (withdrawals, refunds and crypto_pix_payments
// failure_reason): written by lib/providers/payout/efi.ts, lib/providers/pix/api-pix.ts,
// lib/providers/exchange/binance-pay.ts, the sandboxes, lib/hot-wallet/tracker.ts and
// lib/crypto-pix. That text stays as stored (the API returns it, operators search logs for it); this
// one table gives each kind of it a code and a sentence in the catalogs. A reason it does not know
// gets the generic sentence, and the page shows the stored text beside it as data.

// The first match wins: a Crypto-PIX refund's failure wraps the chain's reason, Binance's refusal names a refund.
const REASONS = [
  // The sandbox's failing PIX key, and a PSP naming the recipient's bank.
  { code: "pix.recipientRejected", match: /recipient bank rejected|recebedor.*(recus|rejeit)/i },
  // Efí's pix/enviados answered NAO_REALIZADO (lib/providers/payout/efi.ts notMadeReason).
  { code: "pix.notMade", match: /did not make the PIX \(NAO_REALIZADO|^PIX payout not made$|^not made$/i },
  // Efí refused the send outright (HTTP 4xx).
  { code: "pix.refused", match: /^refused by the PIX payout provider/i },
  { code: "refund.sandbox", match: /^refused by the sandbox/i },
  { code: "refund.binance", match: /^Binance Pay (did not make the refund|refused)/i },
  // API Pix devolução NAO_REALIZADO, its refusal, or a refund the provider never confirmed.
  { code: "refund.notMade", match: /did not make the refund|^refused by the PIX provider|^PixDevolucaoInvalida/i },
  { code: "cryptoPix.expired", match: /^expired with no payment$/i },
  { code: "cryptoPix.refundFailed", match: /^refund failed: /i },
  { code: "payout.unanswered", match: /without an answer the provider stands by/i },
  { code: "chain.reverted", match: /^transaction reverted on-chain$/i },
  { code: "chain.cancelled", match: /^cancelled: a zero-value transaction/i },
  { code: "chain.nonceTaken", match: /^another transaction used its nonce/i },
  { code: "chain.insufficientFunds", match: /insufficient funds/i },
  { code: "lightning.tooLittleTime", match: /^Lightning payment refused/i },
  // Not a failure: an on-chain withdrawal held until the hot wallet is topped up (lib/hot-wallet/float.ts), its waiting_reason.
  { code: "hotWallet.waitingTopUp", match: /waiting for (a|its gas) top-up$/i },
  // Not a failure: a withdrawal or return waiting for a new destination (lib/withdrawals/destination-gate.ts waitingReasonFor).
  { code: "destination.waiting", match: /^waiting for destination /i },
  { code: "withdrawal.cancelled", match: /^cancelled by the merchant while it waited/i },
] as const satisfies readonly { code: string; match: RegExp }[];

export type FailureCode = (typeof REASONS)[number]["code"] | "unknown";

/** Every code, "unknown" included (the catalogs hold `failure.<code>` for each). */
export const FAILURE_CODES: readonly FailureCode[] = [...REASONS.map((r) => r.code), "unknown"];

export function failureCode(reason: string): FailureCode {
  return REASONS.find((r) => r.match.test(reason))?.code ?? "unknown";
}

export type DescribedFailure = { code: FailureCode; text: string; raw: string };

/**
 * The merchant's sentence for a stored reason; `raw` is the stored text, to show as data. `unknown`
 * is the sentence for a reason the table does not know (a waiting reason is not a failure).
 */
export function describeFailure(
  t: Translator,
  reason: string,
  unknown: MessageKey = "failure.unknown",
): DescribedFailure {
  const code = failureCode(reason);
  return { code, text: code === "unknown" ? t(unknown) : t(`failure.${code}` satisfies MessageKey), raw: reason };
}
