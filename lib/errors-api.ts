import {
  Conflict,
  DomainError,
  Forbidden,
  InsufficientBalance,
  InvalidInput,
  LimitExceeded,
  NotFound,
  PayloadTooLarge,
  ProviderError,
  Unauthorized,
  UpstreamUnavailable,
  type ErrorCode,
} from "./errors";
import { IdempotencyKeyBusy } from "./idempotency-binding";

// The stable, machine-readable `code` of every API error body (docs/api.md#error-codes), in one place:
// every public code with what it means, and the public code of each internal one (lib/errors.ts). The
// internal codes may be renamed with the dashboard's wording; these may not: clients branch on them.
// Which endpoint answers which code is lib/api/error-codes.ts.

/** Every public error code and what it means, as the document and docs/api.md say it. */
export const API_ERROR_CODES = {
  // The request itself.
  validation_failed: "A field of the body or query is missing or invalid; `fields` names each one",
  malformed_json: "The body is not valid JSON",
  json_too_deep: "The body's JSON nests more than 32 levels",
  invalid_utf8: "The body is not valid UTF-8",
  unsupported_media_type: "The body's Content-Type is not JSON (send application/json, or no Content-Type)",
  payload_too_large: "The body is larger than 64 KiB",
  request_timeout: "The body did not arrive in full within the request deadline",
  invalid_request: "The service refused the request as it stands (the message says why)",
  idempotency_key_invalid: "The Idempotency-Key header is not 1 to 255 printable ASCII characters",
  idempotency_key_reused: "This Idempotency-Key was already used with a different body",
  idempotency_key_in_flight: "A request with this Idempotency-Key is still being processed; retry after Retry-After",
  unauthorized: "The API key (or operator token) is missing, malformed, unknown or revoked",
  forbidden: "The API key does not have the scope this endpoint needs",
  not_found: "No such object (or it belongs to another merchant), or the endpoint is not available here",
  method_not_allowed: "The path exists, but not with this method (see Allow)",
  conflict: "The object is not in a state that allows this",
  rate_limited: "Too many requests; retry after Retry-After",
  provider_error: "The payment provider refused the request",
  upstream_unavailable: "A provider the request needs (rates, node, PSP, Lightning) failed or timed out",
  internal_error: "Processing error; the message carries the request id",
  service_unavailable:
    "Temporarily unavailable (database unreachable or restarting, or the request passed its deadline); retry after Retry-After",

  // Assets, networks, amounts.
  network_not_supported: "The network is not one this endpoint supports (`supportedNetworks` lists them)",
  asset_not_supported: "The asset (token) is not supported",
  asset_not_on_network: "The token has no contract on that network",
  amount_below_minimum: "The amount is below the network's minimum",
  amount_above_maximum: "The amount is above the maximum per order",
  amount_too_small_for_token: "The amount is worth less than the token's smallest unit",
  rates_unavailable: "No fresh exchange rate is available",

  // Money leaving.
  insufficient_balance: "The balance does not cover the amount (fees included)",
  limit_exceeded: "A withdrawal limit would be passed",
  limit_per_transaction_exceeded: "The amount is above the account's per-transaction withdrawal limit",
  limit_daily_exceeded: "The amount is above what is left of the account's daily withdrawal limit",
  pix_key_missing: "No PIX key was given and the merchant has none registered",
  pix_key_required: "The merchant has no registered PIX key, which collecting requires (`details` says so)",
  pix_key_invalid: "The PIX key is not a valid CPF, CNPJ, e-mail, +55 phone or random key",
  payout_key_held: "The merchant's payout key changed recently and is on hold",
  destination_held: "The destination was added recently and is on hold",

  // PIX QR codes (BR Codes) paid with crypto.
  brcode_invalid: "The PIX QR code is not a valid BR Code",
  brcode_amount_missing: "The BR Code has no amount and the request gives no `value`",
  brcode_amount_mismatch: "`value` contradicts the amount the BR Code carries",
  brcode_dynamic_unsupported: "A dynamic BR Code that this server cannot resolve",
  brcode_unpayable: "The BR Code cannot be paid (expired, removed or already paid)",
  brcode_expires_soon: "The BR Code expires before a crypto payment could pay it",
  lightning_unavailable: "Lightning is not available for Crypto-PIX on this server",
  refund_address_lightning: "A refund address cannot be given for a Lightning payment",

  // Orders and refunds.
  order_not_pending: "The order is not PENDING",
  order_not_completed: "Only a COMPLETED order can be refunded",
  refund_exceeds_remaining: "The refund is more than what is left to refund",
  refund_nothing_left: "The order has been refunded in full",
  refund_no_receipt: "The payment's receipt needed to send it back is not known",
  refund_lightning_unsupported: "A Lightning payment cannot be refunded",
  refund_exchange_limit: "Exchange-wallet orders can be refunded only a limited number of times",

  // Splits of an order between the merchant and its recipients.
  split_recipient_unknown:
    "A split's recipientId is not one of the merchant's recipients (unknown, or another merchant's)",
  split_duplicate_recipient: "A recipient appears in more than one part of the split",
  split_percentage_out_of_range: "A split's percentage is not greater than 0 and at most 100",
  split_value_not_positive: "A split's value is not greater than 0",
  split_sum_above_value: "The split's parts add up to more than the order's value",
  split_too_many: "The split has more than 20 parts",

  // Invoices with a due date.
  invoice_refused_by_provider: "The PIX provider refused the invoice",
  due_date_past: "The due date is in the past",
  due_date_too_far: "The due date is too far ahead",
  discount_date_invalid: "A discount date is after the due date",
  discount_date_past: "A discount date is in the past",
  abatement_too_large: "The abatement is not less than the amount",
  discount_too_large: "The discount is not less than the amount",
  invoice_amount_too_small: "Fine, interest, abatement and discount leave an amount below the minimum",
  invoice_not_open: "The invoice is not OPEN",
  invoice_already_paid: "The invoice has been paid",
  invoice_not_payable_on_date: "The invoice cannot be paid on that day",
  pay_date_before_creation: "The payment date is before the invoice was created",

  // Subscriptions (Pix Automático).
  subscription_refused_by_provider: "The PIX provider refused the recurrence or its charge",
  subscription_first_date_too_early: "The first charge date is earlier than the first cycle can be charged",
  subscription_last_date_before_first: "The last date is before the first",
  subscription_not_cancellable: "The subscription has already ended",
  subscription_not_authorisable: "The subscription is not waiting for the payer's authorisation",
  subscription_charge_not_open: "The subscription's charge is no longer open",

  // Recipients (sub-accounts) and their payouts.
  recipient_document_taken: "The merchant already has a recipient with this CPF/CNPJ",
  recipient_disabled: "The recipient is DISABLED: it is not paid out",
  recipient_pix_key_held:
    "The recipient's PIX key changed recently and is on hold until an owner confirms it or the hold ends",
  recipient_balance_insufficient: "The recipient's balance does not cover the payout",

  // Webhooks, keys, merchants.
  webhook_limit_reached: "The merchant has the maximum number of webhook endpoints",
  webhook_host_unresolved: "The webhook URL's host does not resolve",
  webhook_private_address: "The webhook URL resolves to a private, loopback or metadata address",
  webhook_disabled: "The webhook endpoint is disabled",
  api_key_limit_reached: "The merchant has the maximum number of API keys",
  email_taken: "The e-mail is already in use",

  // Dashboard-only refusals (no API client meets them; listed so every internal code has one).
  dashboard_refused: "A dashboard-only refusal",
} as const satisfies Record<string, string>;

export type ApiErrorCode = keyof typeof API_ERROR_CODES;
export const API_ERROR_CODE_LIST = Object.keys(API_ERROR_CODES) as [ApiErrorCode, ...ApiErrorCode[]];

/** The public code of each internal one. The general three are resolved by the error's kind instead (apiErrorCode). */
const DOMAIN_CODES: { [C in ErrorCode]: ApiErrorCode } = {
  refused: "invalid_request",
  notFound: "not_found",
  upstream: "upstream_unavailable",
  "brcode.invalid": "brcode_invalid",
  "brcode.noAmount": "brcode_amount_missing",
  "brcode.contradicts": "brcode_amount_mismatch",
  "brcode.dynamic": "brcode_dynamic_unsupported",
  "brcode.unpayable": "brcode_unpayable",
  "brcode.expiresSoon": "brcode_expires_soon",
  "asset.notSupported": "asset_not_supported",
  "asset.notOnNetwork": "asset_not_on_network",
  "network.notSupported": "network_not_supported",
  "amount.belowMinimum": "amount_below_minimum",
  "amount.aboveMax": "amount_above_maximum",
  "amount.tooSmallForTokens": "amount_too_small_for_token",
  "rates.unavailable": "rates_unavailable",
  "balance.insufficient": "insufficient_balance",
  "limit.perTransaction": "limit_per_transaction_exceeded",
  "limit.daily": "limit_daily_exceeded",
  "pixKey.none": "pix_key_missing",
  "pixKey.noneToCollect": "pix_key_required",
  "pixKey.invalid": "pix_key_invalid",
  "payoutKey.held": "payout_key_held",
  "destination.held": "destination_held",
  "order.notPending": "order_not_pending",
  "refund.exceeds": "refund_exceeds_remaining",
  "refund.nothingLeft": "refund_nothing_left",
  "refund.notCompleted": "order_not_completed",
  "refund.noReceipt": "refund_no_receipt",
  "refund.lightning": "refund_lightning_unsupported",
  "refund.exchangeMax": "refund_exchange_limit",
  "cryptoPix.lightningUnavailable": "lightning_unavailable",
  "cryptoPix.refundAddressLightning": "refund_address_lightning",
  "invoice.refusedByProvider": "invoice_refused_by_provider",
  "invoice.dueDatePast": "due_date_past",
  "invoice.dueDateFar": "due_date_too_far",
  "invoice.discountDate": "discount_date_invalid",
  "invoice.discountDatePast": "discount_date_past",
  "invoice.abatementTooLarge": "abatement_too_large",
  "invoice.discountTooLarge": "discount_too_large",
  "invoice.amountTooSmall": "invoice_amount_too_small",
  "invoice.notOpen": "invoice_not_open",
  "invoice.alreadyPaid": "invoice_already_paid",
  "invoice.notPayableOn": "invoice_not_payable_on_date",
  "invoice.payDayBeforeCreation": "pay_date_before_creation",
  "subscription.refusedByProvider": "subscription_refused_by_provider",
  "subscription.firstDatePast": "subscription_first_date_too_early",
  "subscription.lastDateBeforeFirst": "subscription_last_date_before_first",
  "subscription.notCancellable": "subscription_not_cancellable",
  "subscription.notAuthorisable": "subscription_not_authorisable",
  "subscription.chargeNotOpen": "subscription_charge_not_open",
  "recipient.documentTaken": "recipient_document_taken",
  "recipient.disabled": "recipient_disabled",
  "recipient.pixKeyHeld": "recipient_pix_key_held",
  "recipient.balanceInsufficient": "recipient_balance_insufficient",
  "webhook.max": "webhook_limit_reached",
  "webhook.hostUnresolved": "webhook_host_unresolved",
  "webhook.privateAddress": "webhook_private_address",
  "webhook.disabled": "webhook_disabled",
  "apiKey.max": "api_key_limit_reached",
  "auth.emailTaken": "email_taken",
  "auth.tooManySignUps": "dashboard_refused",
  "auth.signUpLinkInvalid": "dashboard_refused",
  "auth.tooManyAttempts": "dashboard_refused",
  "auth.resetInvalid": "dashboard_refused",
  "auth.inviteInvalid": "dashboard_refused",
  "security.factorLocked": "dashboard_refused",
  "security.wrongPassword": "dashboard_refused",
  "security.wrongCode": "dashboard_refused",
  "security.wrongEmailCode": "dashboard_refused",
  "security.userGone": "dashboard_refused",
  "security.twoFactorAlreadyOn": "dashboard_refused",
  "security.enrollAgain": "dashboard_refused",
  "security.linkInvalid": "dashboard_refused",
  "security.confirmOwnFactor": "dashboard_refused",
  "security.nothingToConfirm": "dashboard_refused",
  "team.cannotManage": "dashboard_refused",
  "team.alreadyMember": "dashboard_refused",
  "team.lastOwner": "dashboard_refused",
  "developers.scopeNotAllowed": "dashboard_refused",
  "destinations.linkInvalid": "dashboard_refused",
  "destinations.isPayoutKey": "dashboard_refused",
  "destinations.exists": "dashboard_refused",
  "destinations.gone": "dashboard_refused",
  "destinations.incomplete": "dashboard_refused",
  "disputes.error.length": "dashboard_refused",
  "disputes.error.notFound": "dashboard_refused",
  "disputes.error.alreadyDefended": "dashboard_refused",
  "disputes.error.late": "dashboard_refused",
  "disputes.error.closed": "dashboard_refused",
  "developers.testEventWaiting": "conflict",
  "unapplied.notResolvable": "dashboard_refused",
  "unapplied.alreadyResolved": "dashboard_refused",
  "unapplied.tooSmallToAccept": "dashboard_refused",
  "unapplied.addressInvalid": "dashboard_refused",
  "unapplied.feeAboveAmount": "dashboard_refused",
  "withdrawals.notFound": "dashboard_refused",
  "withdrawals.notWaiting": "dashboard_refused",
  "unapplied.notWaiting": "dashboard_refused",
  "destinations.inUse": "dashboard_refused",
};

/** One field at fault in a validation error. */
export type FieldProblem = { field: string; code: string; message: string };

/**
 * A refusal by the HTTP layer itself (the body, a header), which has no internal code: it carries its
 * public one, and for validation errors the fields at fault.
 */
export class RequestRefused extends InvalidInput {
  override readonly status: number;
  constructor(
    message: string,
    readonly apiCode: ApiErrorCode,
    status = 400,
    readonly fields?: FieldProblem[],
  ) {
    super(message);
    this.status = status;
  }
}

const BY_STATUS: Partial<Record<number, ApiErrorCode>> = {
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  405: "method_not_allowed",
  408: "request_timeout",
  409: "conflict",
  413: "payload_too_large",
  415: "unsupported_media_type",
  422: "idempotency_key_reused",
  429: "rate_limited",
  503: "service_unavailable",
};

/** The public code of an error answered with `status`; anything that is not a DomainError is an internal error. */
export function apiErrorCode(err: unknown, status: number): ApiErrorCode {
  if (err instanceof RequestRefused) return err.apiCode;
  if (!(err instanceof DomainError)) return status === 503 ? "service_unavailable" : "internal_error";
  const { code } = err.coded;
  if (code !== "refused" && code !== "notFound" && code !== "upstream") return DOMAIN_CODES[code];
  // Thrown without a code: its kind says what it is.
  if (err instanceof IdempotencyKeyBusy) return "idempotency_key_in_flight";
  if (err instanceof NotFound) return "not_found";
  if (err instanceof Unauthorized) return "unauthorized";
  if (err instanceof Forbidden) return "forbidden";
  if (err instanceof PayloadTooLarge) return "payload_too_large";
  if (err instanceof InsufficientBalance) return "insufficient_balance";
  if (err instanceof LimitExceeded) return "limit_exceeded";
  if (err instanceof ProviderError) return "provider_error";
  if (err instanceof UpstreamUnavailable) return "upstream_unavailable";
  if (err instanceof Conflict) return "conflict";
  return statusCode(status);
}

/** The general code of a status, for an answer no error stands behind. */
export function statusCode(status: number): ApiErrorCode {
  return BY_STATUS[status] ?? (status >= 500 ? "internal_error" : "invalid_request");
}
