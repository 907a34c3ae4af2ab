import type { Coded, DomainError, ErrorCode, ErrorValues } from "@/lib/errors";
import { networkName } from "@/lib/chain/network-names";
import {
  formatCrypto,
  formatDateTime,
  formatFullDay,
  formatMoney,
  translate,
  type Locale,
  type MessageKey,
} from "./index";

// Service errors (DomainError) on the dashboard, in the merchant's language. Services word them in
// English for API clients (the spec's error bodies) and give each refusal a code with the values it
// is made of (lib/errors.ts); the dashboard words it from those, through the table below. A code
// without a wording here fails typecheck. In English the dashboard keeps the service's own sentence,
// the most precise one there is; a refusal only the dashboard shows has none, and is worded here in
// both languages. A refusal thrown without a code gets its kind's general message in Portuguese.

type Wording<C extends ErrorCode> = (values: ErrorValues[C], locale: Locale) => string;

/** The catalog message `key`, for a code whose message takes no values. */
const say =
  (key: MessageKey): Wording<ErrorCode> =>
  (_, locale) =>
    translate(locale, key);

const WORDINGS: { [C in ErrorCode]: Wording<C> } = {
  refused: say("errors.api.refused"),
  notFound: say("errors.api.notFound"),
  upstream: say("errors.api.upstream"),

  "brcode.invalid": say("errors.api.brcode"),
  "brcode.noAmount": say("errors.api.brcodeNoAmount"),
  "brcode.contradicts": (v, l) =>
    translate(l, "errors.api.brcodeContradicts", { value: formatMoney(v.value, l), code: formatMoney(v.codeValue, l) }),
  "brcode.dynamic": say("errors.api.brcodeDynamic"),
  "brcode.unpayable": say("errors.api.brcodeUnpayable"),
  "brcode.expiresSoon": (v, l) => translate(l, "errors.api.brcodeExpiresSoon", { at: formatDateTime(v.at, l) }),

  "asset.notSupported": say("errors.api.token"),
  "asset.notOnNetwork": (v, l) =>
    translate(l, "errors.api.tokenNetwork", { asset: v.asset, network: networkName(v.network) }),
  "network.notSupported": say("errors.api.network"),
  "amount.belowMinimum": (v, l) =>
    translate(l, "errors.api.belowMinimum", {
      min: formatCrypto(v.min, l),
      asset: v.asset,
      network: networkName(v.network),
    }),
  "amount.aboveMax": (v, l) => translate(l, "errors.api.aboveMax", { max: formatMoney(v.max, l) }),
  "amount.tooSmallForTokens": say("errors.api.tooSmallForTokens"),
  "rates.unavailable": say("errors.api.rates"),

  "balance.insufficient": (v, l) =>
    translate(l, v.debit === "refund" ? "errors.api.balanceRefund" : "errors.api.balanceWithdrawal", {
      needed: formatMoney(v.needed, l),
      balance: formatMoney(v.balance, l),
    }),
  "limit.perTransaction": (v, l) =>
    translate(l, "errors.api.limitPerTransaction", {
      limit: formatMoney(v.limit, l),
      left: formatMoney(v.left, l),
      daily: formatMoney(v.daily, l),
    }),
  "limit.daily": (v, l) =>
    translate(l, "errors.api.limitDaily", { daily: formatMoney(v.daily, l), left: formatMoney(v.left, l) }),
  "pixKey.none": say("errors.api.noPixKey"),
  "pixKey.noneToCollect": say("errors.api.noPixKeyCollect"),
  "pixKey.invalid": say("errors.pixKey"),
  "payoutKey.held": (v, l) => translate(l, "withdrawals.payoutHeld", { until: formatDateTime(v.until, l) }),
  "destination.held": (v, l) =>
    translate(l, "withdrawals.destinationHeld", { destination: v.destination, until: formatDateTime(v.until, l) }),

  "order.notPending": say("errors.api.notPending"),
  "refund.exceeds": (v, l) =>
    translate(l, "errors.api.refundExceeds", { left: formatMoney(v.left, l), total: formatMoney(v.total, l) }),
  "refund.nothingLeft": say("errors.api.refundNothingLeft"),
  "refund.notCompleted": say("errors.api.refundNotCompleted"),
  "refund.noReceipt": say("errors.api.refundNoReceipt"),
  "refund.lightning": say("errors.api.refundLightning"),
  "refund.exchangeMax": (v, l) =>
    translate(l, "errors.api.refundExchangeMax", { max: v.max, left: formatMoney(v.left, l) }),
  "cryptoPix.lightningUnavailable": say("errors.api.cryptoPixLightning"),
  "cryptoPix.refundAddressLightning": say("errors.api.refundAddressLightning"),

  "invoice.refusedByProvider": (v, l) => translate(l, "errors.api.invoiceRefusedByProvider", { reason: v.reason }),
  "invoice.dueDatePast": (v, l) => translate(l, "errors.api.invoiceDueDatePast", { today: formatFullDay(v.today, l) }),
  "invoice.dueDateFar": (v, l) => translate(l, "errors.api.invoiceDueDateFar", { latest: formatFullDay(v.latest, l) }),
  "invoice.discountDate": (v, l) =>
    translate(l, "errors.api.invoiceDiscountDate", { dueDate: formatFullDay(v.dueDate, l) }),
  "invoice.discountDatePast": (v, l) =>
    translate(l, "errors.api.invoiceDiscountDatePast", { today: formatFullDay(v.today, l) }),
  "invoice.abatementTooLarge": say("errors.api.invoiceAbatementTooLarge"),
  "invoice.discountTooLarge": say("errors.api.invoiceDiscountTooLarge"),
  "invoice.amountTooSmall": (v, l) =>
    translate(l, "errors.api.invoiceAmountTooSmall", { day: formatFullDay(v.day, l) }),
  "invoice.notOpen": (v, l) => translate(l, "errors.api.invoiceNotOpen", { status: v.status }),
  "invoice.alreadyPaid": say("errors.api.invoiceAlreadyPaid"),
  "invoice.notPayableOn": (v, l) =>
    translate(l, "errors.api.invoiceNotPayableOn", {
      day: formatFullDay(v.day, l),
      lastDay: formatFullDay(v.lastDay, l),
    }),
  "invoice.payDayBeforeCreation": (v, l) =>
    translate(l, "errors.api.invoicePayDayBeforeCreation", { created: formatFullDay(v.created, l) }),

  "subscription.refusedByProvider": (v, l) =>
    translate(l, "errors.api.subscriptionRefusedByProvider", { reason: v.reason }),
  "subscription.firstDatePast": (v, l) =>
    translate(l, "errors.api.subscriptionFirstDatePast", { earliest: formatFullDay(v.earliest, l) }),
  "subscription.lastDateBeforeFirst": say("errors.api.subscriptionLastDateBeforeFirst"),
  "subscription.notCancellable": (v, l) => translate(l, "errors.api.subscriptionNotCancellable", { status: v.status }),
  "subscription.notAuthorisable": (v, l) =>
    translate(l, "errors.api.subscriptionNotAuthorisable", { status: v.status }),
  "subscription.chargeNotOpen": (v, l) => translate(l, "errors.api.subscriptionChargeNotOpen", { status: v.status }),

  "recipient.documentTaken": say("errors.api.recipientDocumentTaken"),
  "recipient.disabled": say("errors.api.recipientDisabled"),
  "recipient.pixKeyHeld": (v, l) =>
    translate(l, "errors.api.recipientPixKeyHeld", { until: formatDateTime(v.until, l) }),
  "recipient.balanceInsufficient": (v, l) =>
    translate(l, "errors.api.recipientBalanceInsufficient", {
      needed: formatMoney(v.needed, l),
      balance: formatMoney(v.balance, l),
    }),

  "webhook.max": (v, l) => translate(l, "errors.api.webhookMax", { max: v.max }),
  "webhook.hostUnresolved": (v, l) => translate(l, "errors.api.webhookHost", { host: v.host }),
  "webhook.privateAddress": say("errors.api.webhookPrivate"),
  "webhook.disabled": say("errors.api.webhookDisabled"),
  "apiKey.max": (v, l) => translate(l, "errors.api.apiKeyMax", { max: v.max }),

  "auth.emailTaken": say("auth.emailTaken"),
  "auth.tooManySignUps": say("auth.tooManySignUps"),
  "auth.signUpLinkInvalid": say("auth.signUpLinkInvalid"),
  "auth.tooManyAttempts": say("auth.tooManyAttempts"),
  "auth.resetInvalid": say("auth.resetInvalid"),
  "auth.inviteInvalid": say("auth.inviteInvalid"),
  "security.factorLocked": (v, l) => translate(l, "security.factorLocked", { minutes: v.minutes }),
  "security.wrongPassword": say("security.wrongPassword"),
  "security.wrongCode": say("security.wrongCode"),
  "security.wrongEmailCode": say("security.wrongEmailCode"),
  "security.userGone": say("security.userGone"),
  "security.twoFactorAlreadyOn": say("security.twoFactorAlreadyOn"),
  "security.enrollAgain": say("security.enrollAgain"),
  "security.linkInvalid": say("security.linkInvalid"),
  "security.confirmOwnFactor": say("security.confirmOwnFactor"),
  "security.nothingToConfirm": say("security.nothingToConfirm"),
  "team.cannotManage": say("team.cannotManage"),
  "team.alreadyMember": say("team.alreadyMember"),
  "team.lastOwner": say("team.lastOwner"),
  "developers.scopeNotAllowed": say("developers.scopeNotAllowed"),
  "destinations.linkInvalid": say("destinations.linkInvalid"),
  "destinations.isPayoutKey": say("destinations.isPayoutKey"),
  "destinations.exists": say("destinations.exists"),
  "destinations.gone": say("destinations.gone"),
  "destinations.incomplete": say("common.fixFields"),
  "disputes.error.length": say("disputes.error.length"),
  "disputes.error.notFound": say("disputes.error.notFound"),
  "disputes.error.alreadyDefended": say("disputes.error.alreadyDefended"),
  "disputes.error.late": say("disputes.error.late"),
  "disputes.error.closed": say("disputes.error.closed"),
  "developers.testEventWaiting": say("developers.testEventWaiting"),
  "unapplied.notResolvable": say("unapplied.notResolvable"),
  "unapplied.alreadyResolved": say("unapplied.alreadyResolved"),
  "unapplied.tooSmallToAccept": say("unapplied.tooSmallToAccept"),
  "unapplied.addressInvalid": say("unapplied.addressInvalid"),
  "unapplied.feeAboveAmount": say("unapplied.feeAboveAmount"),
  "withdrawals.notFound": say("withdrawals.notFound"),
  "withdrawals.notWaiting": say("withdrawals.notWaiting"),
  "unapplied.notWaiting": say("unapplied.notWaiting"),
  "destinations.inUse": say("destinations.inUse"),
};

/** What a coded refusal says to a person reading `locale`. */
export function wordError<C extends ErrorCode>(code: C, values: ErrorValues[C], locale: Locale): string {
  return WORDINGS[code](values, locale);
}

/** A service error as the dashboard shows it to a person reading `locale`. */
export function apiErrorMessage(err: DomainError, locale: Locale): string {
  if (locale === "en" && err.isSentence) return err.message;
  const { code, values = {} }: Coded = err.coded;
  return wordError(code, values as ErrorValues[typeof code], locale);
}
