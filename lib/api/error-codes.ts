import { API_ERROR_CODES, type ApiErrorCode } from "@/lib/errors-api";
import type { Endpoint } from "@/lib/http/endpoint";

// Which error codes (lib/errors-api.ts) each endpoint answers, by status: the ones every endpoint of
// its kind answers (its caller, its body or query, its Idempotency-Key), derived from the declaration,
// and below, by endpoint, the refusals of its own services. The OpenAPI document and docs/api.md list
// exactly these; tests/error-codes.test.ts fails when an endpoint answers a code not listed here.

type ByStatus = Partial<Record<number, readonly ApiErrorCode[]>>;

const CHAIN_IN: readonly ApiErrorCode[] = ["network_not_supported", "asset_not_supported", "asset_not_on_network"];
const MONEY_OUT: readonly ApiErrorCode[] = [
  "insufficient_balance",
  "limit_exceeded",
  "limit_per_transaction_exceeded",
  "limit_daily_exceeded",
  "payout_key_held",
  "destination_held",
];
const UPSTREAM: readonly ApiErrorCode[] = ["upstream_unavailable"];
/** The refusals of a create request's `splits` (lib/splits/service.ts). */
const SPLITS: readonly ApiErrorCode[] = [
  "split_recipient_unknown",
  "split_duplicate_recipient",
  "split_percentage_out_of_range",
  "split_value_not_positive",
  "split_sum_above_value",
  "split_too_many",
];
const INVOICE_TERMS: readonly ApiErrorCode[] = [
  "due_date_past",
  "due_date_too_far",
  "discount_date_invalid",
  "discount_date_past",
  "abatement_too_large",
  "discount_too_large",
  "invoice_amount_too_small",
  "invoice_refused_by_provider",
  "pix_key_required",
];

/** Each endpoint's own refusals, beyond those of its kind (see `errorCodesOf`). */
const OWN: Record<string, ByStatus> = {
  "POST /api/v1/onchain/deposit": {
    400: [...CHAIN_IN, "amount_below_minimum", ...SPLITS],
    500: [...UPSTREAM, "rates_unavailable"],
  },
  "POST /api/v1/onchain/withdraw/initiate": {
    400: [...CHAIN_IN, ...MONEY_OUT, "amount_too_small_for_token"],
    500: [...UPSTREAM, "rates_unavailable"],
  },
  "GET /api/v1/onchain/order/{id}": { 400: ["not_found"] },
  "POST /api/v1/order/create/pix": { 400: ["pix_key_required", "provider_error", ...SPLITS], 500: UPSTREAM },
  "POST /api/v1/order/create": { 400: SPLITS, 500: UPSTREAM },
  "POST /api/v1/order/create/lightning": {
    400: ["provider_error", ...SPLITS],
    500: [...UPSTREAM, "rates_unavailable"],
  },
  "POST /api/v1/order/pix-out": { 400: [...MONEY_OUT, "pix_key_missing", "pix_key_invalid"], 500: UPSTREAM },
  "POST /api/v1/order/{id}/refund": {
    400: [
      "insufficient_balance",
      "order_not_completed",
      "refund_exceeds_remaining",
      "refund_nothing_left",
      "refund_no_receipt",
      "refund_lightning_unsupported",
      "refund_exchange_limit",
    ],
    409: ["conflict"],
    500: UPSTREAM,
  },
  "POST /api/v1/invoices": { 400: INVOICE_TERMS, 500: UPSTREAM },
  "POST /api/v1/invoices/batches": { 400: INVOICE_TERMS, 500: UPSTREAM },
  "POST /api/v1/invoices/{id}/cancel": { 409: ["conflict", "invoice_not_open", "invoice_already_paid"], 500: UPSTREAM },
  "POST /api/v1/subscriptions": {
    400: [
      "subscription_first_date_too_early",
      "subscription_last_date_before_first",
      "subscription_refused_by_provider",
      "pix_key_required",
    ],
    500: UPSTREAM,
  },
  "POST /api/v1/subscriptions/{id}/cancel": { 409: ["subscription_not_cancellable"], 500: UPSTREAM },
  "POST /api/v1/sandbox/subscriptions/{id}/authorize": { 409: ["subscription_not_authorisable"] },
  "POST /api/v1/sandbox/subscriptions/{id}/payer-cancel": { 409: ["subscription_not_cancellable"] },
  "POST /api/v1/sandbox/subscriptions/{id}/cycles/{cycle}/pay": { 409: ["subscription_charge_not_open"] },
  "POST /api/v1/sandbox/subscriptions/{id}/cycles/{cycle}/fail": { 409: ["subscription_charge_not_open"] },
  "POST /api/v1/recipients": { 409: ["recipient_document_taken"] },
  "POST /api/v1/recipients/{id}/payouts": {
    400: ["recipient_disabled", "recipient_pix_key_held", "recipient_balance_insufficient"],
    500: UPSTREAM,
  },
  "POST /api/v1/crypto-pix/onchain/pay": {
    400: [
      ...CHAIN_IN,
      "brcode_invalid",
      "brcode_amount_missing",
      "brcode_amount_mismatch",
      "brcode_dynamic_unsupported",
      "brcode_unpayable",
      "brcode_expires_soon",
      "amount_below_minimum",
      "amount_above_maximum",
      "lightning_unavailable",
      "refund_address_lightning",
    ],
    500: [...UPSTREAM, "rates_unavailable"],
  },
  "POST /api/v1/admin/merchants": { 400: ["pix_key_invalid", "email_taken"] },
  "PATCH /api/v1/admin/merchants/{id}": { 400: ["pix_key_invalid"] },
  "POST /api/v1/sandbox/orders/{id}/pay": { 409: ["conflict", "order_not_pending"] },
  "POST /api/v1/sandbox/invoices/{id}/pay": {
    400: ["pay_date_before_creation"],
    409: ["conflict", "invoice_not_open", "invoice_not_payable_on_date"],
  },
  "POST /api/v1/sandbox/onchain/{paymentLinkId}/transfer": { 409: ["conflict"] },
  "POST /api/v1/sandbox/crypto-pix/{payCryptoPixId}/transfer": { 409: ["conflict"] },
  "POST /api/v1/webhooks": {
    400: ["webhook_limit_reached", "webhook_host_unresolved", "webhook_private_address"],
    409: ["conflict"],
  },
  "POST /api/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver": { 409: ["conflict", "webhook_disabled"] },
};

const key = (e: Pick<Endpoint, "method" | "path">) => `${e.method} ${e.path}`;

/** Every endpoint named above exists (tests/error-codes.test.ts checks it against the list). */
export const ENDPOINTS_WITH_OWN_CODES = Object.keys(OWN);

/** The statuses an endpoint's own refusals add to those of its kind. */
export function ownErrorStatuses(e: Endpoint): number[] {
  return Object.keys(OWN[key(e)] ?? {}).map(Number);
}

/** Whether a POST to it takes an Idempotency-Key: those of callers that own one. */
const idempotent = (e: Endpoint) => e.method === "POST" && e.caller.ownerId !== undefined;

/** The codes of the endpoint's kind for one of its statuses. */
function kindCodes(e: Endpoint, status: number): ApiErrorCode[] {
  switch (status) {
    case 400:
      return [
        ...(e.body || e.query ? (["validation_failed"] as const) : []),
        ...(e.body ? (["malformed_json", "json_too_deep", "invalid_utf8"] as const) : []),
        ...(idempotent(e) ? (["idempotency_key_invalid"] as const) : []),
        "invalid_request",
      ];
    case 401:
      return ["unauthorized"];
    case 403:
      return ["forbidden"];
    case 404:
      return ["not_found"];
    case 408:
      return ["request_timeout"];
    case 409:
      return idempotent(e) ? ["idempotency_key_in_flight"] : ["conflict"];
    case 413:
      return ["payload_too_large"];
    case 415:
      return ["unsupported_media_type"];
    case 422:
      return ["idempotency_key_reused"];
    case 429:
      return ["rate_limited"];
    case 500:
      return ["internal_error"];
    case 503:
      return ["service_unavailable"];
    default:
      return [];
  }
}

/** The codes an endpoint answers with `status` (of its documented statuses), in the document's order. */
export function errorCodesOf(e: Endpoint, status: number): ApiErrorCode[] {
  return [...new Set([...kindCodes(e, status), ...(OWN[key(e)]?.[status] ?? [])])];
}

/** What a code means, for the document and docs/api.md. */
export function meaningOf(code: ApiErrorCode): string {
  return API_ERROR_CODES[code];
}
