import { DomainError, NotFound, UpstreamUnavailable } from "@/lib/errors";
import { networkName } from "@/lib/chain/network-names";
import { formatCrypto, formatDateTime, formatMoney, isMessageKey, translate, type Locale, type MessageKey, type Vars } from "./index";

// Service errors (DomainError) on the dashboard, in the merchant's language. Services word them in
// English for API clients (the spec's error bodies); the dashboard calls the same services, so the
// sentences they write are matched here, in one table, to catalog messages. English keeps the
// service's own sentence, the most precise one; a sentence not in the table gets its kind's
// general message rather than English text.

type Rule = [RegExp, MessageKey, ((m: RegExpMatchArray, locale: Locale) => Vars)?];

const brl = (amount: string, locale: Locale) => formatMoney(Math.round(Number(amount) * 100), locale);

const MONEY = String.raw`(R\$\s?[\d.,]+)`;

const RULES: Rule[] = [
  [/^Invalid PIX QR code/, "errors.api.brcode"],
  [/^This PIX QR code has no amount/, "errors.api.brcodeNoAmount"],
  [/^value ([\d.]+) contradicts the amount in the PIX QR code \(([\d.]+)\)/, "errors.api.brcodeContradicts", (m, l) => ({ value: brl(m[1], l), code: brl(m[2], l) })],
  [/^Dynamic PIX QR codes cannot be/, "errors.api.brcodeDynamic"],
  [/^This PIX QR code can no longer be paid/, "errors.api.brcodeUnpayable"],
  [/^This PIX QR code expires at (\S+): too soon/, "errors.api.brcodeExpiresSoon", (m, l) => ({ at: formatDateTime(m[1], l) })],
  [/^Token not supported: (\w+) is not available on (\w+)/, "errors.api.tokenNetwork", (m) => ({ asset: m[1], network: networkName(m[2]) })],
  [/^Token not supported/, "errors.api.token"],
  [/^Network not supported/, "errors.api.network"],
  [
    /^Computed crypto value is invalid: .* minimum (?:deposit )?of ([\d.]+) (\w+) on (\w+)/,
    "errors.api.belowMinimum",
    (m, l) => ({ min: formatCrypto(m[1], l), asset: m[2], network: networkName(m[3]) }),
  ],
  [/^The amount is above the maximum of ([\d.]+) BRL/, "errors.api.aboveMax", (m, l) => ({ max: brl(m[1], l) })],
  [
    new RegExp(`^Insufficient balance: this withdrawal needs ${MONEY} and the available balance is ${MONEY}`),
    "errors.api.balanceWithdrawal",
    (m) => ({ needed: m[1], balance: m[2] }),
  ],
  [
    new RegExp(`^Insufficient balance: this refund needs ${MONEY} and the available balance is ${MONEY}`),
    "errors.api.balanceRefund",
    (m) => ({ needed: m[1], balance: m[2] }),
  ],
  [
    new RegExp(`^Per-transaction withdrawal limit exceeded: .* limit is ${MONEY} per withdrawal \\(${MONEY} of the ${MONEY} daily limit`),
    "errors.api.limitPerTransaction",
    (m) => ({ limit: m[1], left: m[2], daily: m[3] }),
  ],
  [new RegExp(`^Daily withdrawal limit exceeded: .* limit is ${MONEY} per day and ${MONEY} is left`), "errors.api.limitDaily", (m) => ({ daily: m[1], left: m[2] })],
  [/^Withdrawal value is too small/, "errors.api.tooSmallForTokens"],
  [/^No pixKey was given and the merchant has no registered PIX key/, "errors.api.noPixKey"],
  [/^The registered PIX key was changed recently: withdrawals to it wait until (\S+) unless/, "withdrawals.payoutHeld", (m, l) => ({ until: formatDateTime(m[1], l) })],
  [
    /^Withdrawal destination (\S+) is new: withdrawals to it wait until (\S+) unless/,
    "withdrawals.destinationHeld",
    (m, l) => ({ destination: m[1], until: formatDateTime(m[2], l) }),
  ],
  [/^The merchant has no registered PIX key/, "errors.api.noPixKeyCollect"],
  [/^Invalid PIX key|^pixKey is not a valid PIX key/, "errors.pixKey"],
  [new RegExp(`^Refund value exceeds what is left to refund on this order: ${MONEY} of ${MONEY}`), "errors.api.refundExceeds", (m) => ({ left: m[1], total: m[2] })],
  [/^Nothing is left to refund|^This order has already been refunded in full/, "errors.api.refundNothingLeft"],
  [/^Only COMPLETED orders can be refunded/, "errors.api.refundNotCompleted"],
  [/^This order cannot be refunded through the API/, "errors.api.refundNoReceipt"],
  [/^Lightning orders cannot be refunded/, "errors.api.refundLightning"],
  [new RegExp(`^An exchange-wallet order takes at most (\\d+) refunds: .*\\(${MONEY}\\)`), "errors.api.refundExchangeMax", (m) => ({ max: m[1], left: m[2] })],
  [/^Order is \w+, not PENDING/, "errors.api.notPending"],
  [/^A merchant can have at most (\d+) webhook endpoints/, "errors.api.webhookMax", (m) => ({ max: m[1] })],
  [/^A merchant can have at most (\d+) active API keys/, "errors.api.apiKeyMax", (m) => ({ max: m[1] })],
  [/^Invalid request: url: host (\S+) could not be resolved/, "errors.api.webhookHost", (m) => ({ host: m[1] })],
  [/^Invalid request: url:/, "errors.api.webhookPrivate"],
  [/^This webhook endpoint was disabled/, "errors.api.webhookDisabled"],
  [/^A user with this e-mail already exists/, "auth.emailTaken"],
  [/^Crypto-PIX over Lightning needs/, "errors.api.cryptoPixLightning"],
  [/^refundAddress is for chain payments/, "errors.api.refundAddressLightning"],
  [/^Rate source/, "errors.api.rates"],
  [/^Too many wrong codes\. Try again in (\d+) min/, "security.factorLocked", (m) => ({ minutes: m[1] })],
];

/** A service error as the dashboard shows it to a person reading `locale`. */
export function apiErrorMessage(err: DomainError, locale: Locale): string {
  if (isMessageKey(err.message)) return translate(locale, err.message);
  if (locale === "en") return err.message;
  for (const [pattern, key, vars] of RULES) {
    const m = err.message.match(pattern);
    if (m) return translate(locale, key, vars?.(m, locale));
  }
  if (err instanceof UpstreamUnavailable) return translate(locale, "errors.api.upstream");
  if (err instanceof NotFound) return translate(locale, "errors.api.notFound");
  return translate(locale, "errors.api.refused");
}
