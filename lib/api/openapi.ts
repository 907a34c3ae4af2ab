import { z } from "zod";
import { accountResponse } from "@/lib/account/schemas";
import { cryptoPixSchema, payCryptoPixBody, payCryptoPixResponse } from "@/lib/crypto-pix/schemas";
import { publicBaseUrl } from "@/lib/env";
import { createMerchantBody, createMerchantResponse, updateMerchantBody, updateMerchantResponse } from "@/lib/merchants/schemas";
import { createDepositBody, createDepositError, createDepositResponse, getDepositResponse } from "@/lib/onchain/schemas";
import {
  createExchangeOrderBody,
  createExchangeOrderResponse,
  createLightningOrderBody,
  createLightningOrderResponse,
  createPixOrderBody,
  createPixOrderError,
  createPixOrderResponse,
  getOrderResponse,
  listOrdersQuery,
  listOrdersResponse,
} from "@/lib/orders/schemas";
import { publicPaymentResponse } from "@/lib/public/schemas";
import { sandboxCryptoPixTransferResponse, sandboxOnchainTransferResponse, sandboxPayOrderResponse, transferBody } from "@/lib/sandbox/schemas";
import {
  getWithdrawalResponse,
  listWithdrawalsQuery,
  listWithdrawalsResponse,
  onchainWithdrawBody,
  onchainWithdrawResponse,
  pixOutBody,
  pixOutResponse,
} from "@/lib/withdrawals/schemas";
import { createWebhookBody, listDeliveriesQuery, listEventsQuery } from "@/lib/webhooks/schemas";
import { messageBody, pixOutBody as pixOutErrorBody, successFalseBody, withdrawBody, type ErrorBody } from "./error-body";
import { QRCODE_EXAMPLE, RESPONSE_EXAMPLES as R } from "./openapi-examples";
import { API_ROUTES } from "./routes";

// The OpenAPI 3.1 document of /api/v1 (CONTRACT §9), generated from the zod schemas that validate
// requests and type the responses: request bodies on zod's input side (what the client sends, e.g.
// BRL as a JSON number), responses on the output side. Every route in API_ROUTES needs an entry in
// OPERATIONS below; tests/openapi.test.ts enforces that and sends every request example through the
// real handler.

export type DocAuth = "merchant" | "admin" | "public";

export const TAGS = [
  { name: "PIX and wallet orders", description: "PIX, exchange-wallet and Lightning orders: create and look up" },
  { name: "On-chain", description: "Stablecoin deposits and on-chain withdrawals" },
  { name: "Crypto-PIX", description: "Pay a PIX QR code with crypto" },
  { name: "Withdrawals", description: "PIX withdrawals and withdrawal tracking" },
  { name: "Account", description: "The merchant account and its orders" },
  { name: "Public", description: "Payer-side views; no authentication" },
  { name: "Sandbox", description: "Test helpers, sandbox mode only (404 in live mode)" },
  { name: "Webhooks", description: "Webhook endpoints, their deliveries, and the event log" },
  { name: "Operator", description: "Provisioning with ADMIN_TOKEN (404 when it is unset)" },
  { name: "Meta", description: "This document" },
] as const;
type Tag = (typeof TAGS)[number]["name"];

type Success =
  | { status: number; description: string; schema: z.ZodType; example: unknown }
  | { status: number; description: string; contentType: "image/png" }
  /** A body whose schema its owner has not written yet (documented by description only), or none (204). */
  | { status: number; description: string };

export type Operation = {
  summary: string;
  description: string;
  tag: Tag;
  auth: DocAuth;
  errorBody: ErrorBody;
  request?: { schema: z.ZodType; example: unknown };
  query?: z.ZodObject;
  params?: Record<string, string>;
  /** Extra request headers beyond Idempotency-Key. */
  headers?: { name: string; description: string }[];
  success: Success;
  /** Statuses beyond those every endpoint of its kind answers (see defaultErrors). */
  errors?: number[];
  /** Where the endpoint's error body adds fields for a status (the spec's rows). */
  errorSchemas?: Partial<Record<number, z.ZodObject>>;
  /** A realistic message (and extra fields) per status for the examples. */
  errorExamples?: Partial<Record<number, { message: string; extra?: Record<string, unknown> }>>;
};

const merchantIdParam = { id: "Order id (UUID) or payment link id" };

/** Keyed by "METHOD path" exactly as API_ROUTES spells it. */
export const OPERATIONS: Record<string, Operation> = {
  "POST /api/v1/onchain/deposit": {
    summary: "Create an on-chain deposit",
    description:
      "Creates an order with a fresh deposit address on the chosen network. The BRL value is converted to the token at the current rate, rounded up to 6 decimals, and the rate is fixed for the order. The order expires after 24 h.",
    tag: "On-chain",
    auth: "merchant",
    errorBody: messageBody,
    request: { schema: createDepositBody, example: { value: 100.5, asset: "USDT", network: "polygon" } },
    success: { status: 201, description: "Deposit order created", schema: createDepositResponse, example: R.deposit },
    errorSchemas: { 400: createDepositError },
    errorExamples: {
      400: { message: 'Network not supported: "tron". Supported networks: eth, bsc, polygon', extra: { supportedNetworks: ["eth", "bsc", "polygon"] } },
    },
  },
  "POST /api/v1/onchain/withdraw/initiate": {
    summary: "Withdraw on-chain",
    description:
      "Sends tokens worth `value` BRL to an external address. Tokens sent = value ÷ rate, rounded down; the debit is value + 0.5% service fee (rounded up to the centavo) + the network fee in BRL. Counts against the account's withdrawal limits.",
    tag: "On-chain",
    auth: "merchant",
    errorBody: withdrawBody,
    request: {
      schema: onchainWithdrawBody,
      example: { toAddress: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC", value: 50, token: "USDT", network: "polygon" },
    },
    success: { status: 200, description: "Withdrawal signed and sent; it is PENDING until confirmed", schema: onchainWithdrawResponse, example: R.withdraw },
    errorExamples: { 400: { message: "Insufficient balance: the withdrawal needs R$ 50,30 and the balance is R$ 12,00" } },
  },
  "GET /api/v1/onchain/order/[id]": {
    summary: "Look up an on-chain deposit",
    description: "By payment link id. An unknown id is a 400 here, as the spec has it.",
    tag: "On-chain",
    auth: "merchant",
    errorBody: successFalseBody,
    params: { id: "Payment link id of the deposit order" },
    success: { status: 200, description: "The deposit order", schema: getDepositResponse, example: R.depositGet },
    errors: [400],
    errorExamples: { 400: { message: "On-chain order not found" } },
  },
  "POST /api/v1/order/create/pix": {
    summary: "Create a PIX order",
    description:
      "Returns a PIX BR Code (copy and paste, or render as a QR code) and a payment link. The code pays the service, which credits the merchant's balance. A merchant without a registered PIX key gets a 400 with `details`.",
    tag: "PIX and wallet orders",
    auth: "merchant",
    errorBody: messageBody,
    request: { schema: createPixOrderBody, example: { value: 25.9, orderId: "pedido-1042", name: "Maria Souza", cpf: "529.982.247-25" } },
    success: { status: 200, description: "PIX order created", schema: createPixOrderResponse, example: R.pix },
    errorSchemas: { 400: createPixOrderError },
    errorExamples: {
      400: {
        message: "Required data missing for the payment provider: register a PIX key for this merchant",
        extra: { details: { pixKey: null, identifier: "c57406aa-c731-408f-9ea5-5d708a78e91a" } },
      },
    },
  },
  "POST /api/v1/order/create": {
    summary: "Create an exchange-wallet order",
    description: "Returns a QR-code image link and a payment link. Expires after 30 minutes.",
    tag: "PIX and wallet orders",
    auth: "merchant",
    errorBody: successFalseBody,
    request: { schema: createExchangeOrderBody, example: { value: 150, payerId: "cliente-77", merchant: { subMerchantId: "loja-centro" } } },
    success: { status: 201, description: "Order created", schema: createExchangeOrderResponse, example: R.exchange },
  },
  "POST /api/v1/order/create/lightning": {
    summary: "Create a Lightning invoice",
    description: "Converts the BRL value to satoshis at the current rate (rounded up) and returns a BOLT11 invoice. Expires after 15 minutes.",
    tag: "PIX and wallet orders",
    auth: "merchant",
    errorBody: successFalseBody,
    request: { schema: createLightningOrderBody, example: { value: 35, email: "maria@example.com", name: "Maria Souza" } },
    success: { status: 201, description: "Invoice created", schema: createLightningOrderResponse, example: R.lightning },
  },
  "POST /api/v1/order/pix-out": {
    summary: "Withdraw by PIX",
    description:
      "Pays `value` centavos from the balance to a PIX key (the merchant's registered key when omitted). Counts against the account's withdrawal limits.",
    tag: "Withdrawals",
    auth: "merchant",
    errorBody: pixOutErrorBody,
    request: { schema: pixOutBody, example: { value: 5000, pixKey: "maria@example.com" } },
    success: { status: 201, description: "PIX withdrawal created; it is PENDING until the PIX settles", schema: pixOutResponse, example: R.pixOut },
    errorExamples: { 400: { message: "Withdrawal limit exceeded: R$ 5.000,00 per transaction for a standard account" } },
  },
  "GET /api/v1/order/[id]": {
    summary: "Look up an order",
    description: "PIX, exchange-wallet or Lightning order, by id or payment link id. `providerDetails` appears only for Lightning orders.",
    tag: "PIX and wallet orders",
    auth: "merchant",
    errorBody: successFalseBody,
    params: merchantIdParam,
    success: { status: 200, description: "The order", schema: getOrderResponse, example: R.getOrder },
    errors: [404],
    errorExamples: { 404: { message: "Order not found" } },
  },
  "GET /api/v1/orders": {
    summary: "List orders",
    description: "Every kind of order of the merchant, newest first, keyset-paginated: pass `nextCursor` back as `cursor`.",
    tag: "Account",
    auth: "merchant",
    errorBody: messageBody,
    query: listOrdersQuery,
    success: { status: 200, description: "A page of orders", schema: listOrdersResponse, example: R.orders },
    errors: [400],
    errorExamples: { 400: { message: "Invalid cursor" } },
  },
  "POST /api/v1/crypto-pix/onchain/pay": {
    summary: "Pay a PIX QR code with crypto",
    description:
      "Reads the BR Code, fixes the rate, and returns an address to send the tokens to. Once the full amount is confirmed the PIX is paid; if the PIX fails the crypto is refunded. A code without an amount needs `value`.",
    tag: "Crypto-PIX",
    auth: "merchant",
    errorBody: messageBody,
    request: { schema: payCryptoPixBody, example: { qrcode: QRCODE_EXAMPLE, network: "bsc" } },
    success: { status: 201, description: "Payment created; send `cryptoValue` of `asset` to `address`", schema: payCryptoPixResponse, example: R.cryptoPix },
    errorExamples: { 400: { message: "PIX QR code checksum (CRC) does not match" } },
  },
  "GET /api/v1/crypto-pix/order/[id]": {
    summary: "Look up a Crypto-PIX payment",
    description: "By `payCryptoPixId` (base64url; standard base64 is accepted too). An `id` header is used when the path carries no decodable id.",
    tag: "Crypto-PIX",
    auth: "merchant",
    errorBody: messageBody,
    params: { id: "payCryptoPixId" },
    headers: [{ name: "id", description: "payCryptoPixId, when the path does not carry it" }],
    success: { status: 200, description: "The payment (top-level fields)", schema: cryptoPixSchema, example: R.cryptoPixGet },
    errors: [404],
    errorExamples: { 404: { message: "Crypto-PIX payment not found" } },
  },
  "GET /api/v1/account": {
    summary: "The merchant account",
    description: "Balance in centavos, account type and what is left of today's withdrawal limit.",
    tag: "Account",
    auth: "merchant",
    errorBody: messageBody,
    success: { status: 200, description: "The account", schema: accountResponse, example: R.account },
  },
  "GET /api/v1/withdrawals": {
    summary: "List withdrawals",
    description: "On-chain and PIX withdrawals, newest first.",
    tag: "Withdrawals",
    auth: "merchant",
    errorBody: messageBody,
    query: listWithdrawalsQuery,
    success: { status: 200, description: "A page of withdrawals", schema: listWithdrawalsResponse, example: R.withdrawals },
    errors: [400],
    errorExamples: { 400: { message: "Invalid cursor" } },
  },
  "GET /api/v1/withdrawals/[id]": {
    summary: "Look up a withdrawal",
    description: "Status (PENDING, COMPLETED, FAILED), fees and, on-chain, the transaction hash.",
    tag: "Withdrawals",
    auth: "merchant",
    errorBody: messageBody,
    params: { id: "Withdrawal id" },
    success: { status: 200, description: "The withdrawal", schema: getWithdrawalResponse, example: R.withdrawal },
    errors: [404],
    errorExamples: { 404: { message: "Withdrawal not found" } },
  },
  "POST /api/v1/admin/merchants": {
    summary: "Create a merchant",
    description: "Creates the merchant, its first API key (shown once) and, with email and password, its dashboard user. `openingBalance` (centavos) is sandbox-only.",
    tag: "Operator",
    auth: "admin",
    errorBody: messageBody,
    request: {
      schema: createMerchantBody,
      example: { companyName: "Padaria Pão Quente", pixKey: "11222333000181", accountType: "verified", email: "dono@padaria.example", password: "correct horse battery" },
    },
    success: { status: 201, description: "Merchant created", schema: createMerchantResponse, example: R.adminCreate },
  },
  "PATCH /api/v1/admin/merchants/[id]": {
    summary: "Update a merchant",
    description: "Sets the account type (and so the withdrawal limits), company name or PIX key.",
    tag: "Operator",
    auth: "admin",
    errorBody: messageBody,
    params: { id: "Merchant id" },
    request: { schema: updateMerchantBody, example: { accountType: "business" } },
    success: { status: 200, description: "Merchant updated", schema: updateMerchantResponse, example: R.adminUpdate },
  },
  "POST /api/v1/sandbox/orders/[id]/pay": {
    summary: "Pay an order (sandbox)",
    description: "A PENDING PIX, exchange-wallet or Lightning order becomes COMPLETED and the balance is credited, as a real payment would.",
    tag: "Sandbox",
    auth: "merchant",
    errorBody: messageBody,
    params: merchantIdParam,
    success: { status: 200, description: "The paid order", schema: sandboxPayOrderResponse, example: R.sandboxPay },
    errors: [404],
    errorExamples: { 409: { message: "Order is not PENDING (it is COMPLETED)" }, 404: { message: "Order not found" } },
  },
  "POST /api/v1/sandbox/onchain/[paymentLinkId]/transfer": {
    summary: "Send tokens to a deposit (sandbox)",
    description: "A confirmed transfer of `amount` to the order's address: enough in total gives COMPLETED, less gives PARTIAL_ORDER.",
    tag: "Sandbox",
    auth: "merchant",
    errorBody: messageBody,
    params: { paymentLinkId: "Payment link id of the deposit order" },
    request: { schema: transferBody, example: { amount: "10" } },
    success: { status: 200, description: "The order after the transfer", schema: sandboxOnchainTransferResponse, example: R.depositTransfer },
    errors: [404],
    errorExamples: { 404: { message: "On-chain order not found" } },
  },
  "POST /api/v1/sandbox/crypto-pix/[payCryptoPixId]/transfer": {
    summary: "Send tokens to a Crypto-PIX payment (sandbox)",
    description: "The full amount pays the PIX (COMPLETED); `failPix: true` makes the PIX fail so the crypto is refunded (REFUNDED).",
    tag: "Sandbox",
    auth: "merchant",
    errorBody: messageBody,
    params: { payCryptoPixId: "payCryptoPixId" },
    request: { schema: transferBody, example: { amount: "9.240741" } },
    success: { status: 200, description: "The payment after the transfer", schema: sandboxCryptoPixTransferResponse, example: R.cryptoPixTransfer },
    errors: [404],
    errorExamples: { 404: { message: "Crypto-PIX payment not found" } },
  },
  "GET /api/v1/public/payments/[paymentLinkId]": {
    summary: "A payment, as the payer sees it",
    description: "Status, amount, method, how to pay and expiry; nothing private to the merchant.",
    tag: "Public",
    auth: "public",
    errorBody: messageBody,
    params: { paymentLinkId: "Payment link id" },
    success: { status: 200, description: "The payment", schema: publicPaymentResponse, example: R.publicPayment },
    errors: [404],
    errorExamples: { 404: { message: "Payment not found" } },
  },
  "GET /api/v1/public/payments/[paymentLinkId]/qr.png": {
    summary: "QR code image of a payment",
    description: "The exchange-wallet `qrCodeLink`; for other kinds, the BR Code, `lightning:` invoice or EIP-681 transfer URI as a PNG.",
    tag: "Public",
    auth: "public",
    errorBody: messageBody,
    params: { paymentLinkId: "Payment link id" },
    success: { status: 200, description: "PNG image", contentType: "image/png" },
    errors: [404],
    errorExamples: { 404: { message: "Payment not found" } },
  },
  // Webhooks (CONTRACT §7): their response bodies have no zod schema yet, so they are described in words.
  "POST /api/v1/webhooks": {
    summary: "Register a webhook endpoint",
    description: "Events are POSTed to `url`, signed the Standard Webhooks way with the returned `secret` (shown only here).",
    tag: "Webhooks",
    auth: "merchant",
    errorBody: messageBody,
    request: { schema: createWebhookBody, example: { url: "https://shop.example.com/hooks/payments", description: "Order updates" } },
    success: { status: 201, description: "`{ webhook: { id, url, description, status, disabledAt, createdAt, secret } }`" },
  },
  "GET /api/v1/webhooks": {
    summary: "List webhook endpoints",
    description: "Without their secrets.",
    tag: "Webhooks",
    auth: "merchant",
    errorBody: messageBody,
    success: { status: 200, description: "`{ webhooks: [...] }`" },
  },
  "DELETE /api/v1/webhooks/[id]": {
    summary: "Delete a webhook endpoint",
    description: "Pending deliveries to it are cancelled.",
    tag: "Webhooks",
    auth: "merchant",
    errorBody: messageBody,
    params: { id: "Webhook id" },
    success: { status: 204, description: "Deleted" },
    errors: [404],
    errorExamples: { 404: { message: "Webhook not found" } },
  },
  "GET /api/v1/webhooks/[id]/deliveries": {
    summary: "List deliveries of a webhook endpoint",
    description: "Each delivery with its attempts, newest first.",
    tag: "Webhooks",
    auth: "merchant",
    errorBody: messageBody,
    params: { id: "Webhook id" },
    query: listDeliveriesQuery,
    success: { status: 200, description: "`{ deliveries: [...], nextCursor }`" },
    errors: [404],
    errorExamples: { 404: { message: "Webhook not found" } },
  },
  "POST /api/v1/webhooks/[id]/deliveries/[deliveryId]/redeliver": {
    summary: "Redeliver an event",
    description: "A new delivery of the same event to the same endpoint, pointing at the original.",
    tag: "Webhooks",
    auth: "merchant",
    errorBody: messageBody,
    params: { id: "Webhook id", deliveryId: "Delivery id" },
    success: { status: 201, description: "`{ delivery }`" },
    errors: [404],
    errorExamples: { 404: { message: "Delivery not found" } },
  },
  "GET /api/v1/events": {
    summary: "List events",
    description: "The merchant's events oldest first, for reconciliation; pass the returned cursor as `after`.",
    tag: "Webhooks",
    auth: "merchant",
    errorBody: messageBody,
    query: listEventsQuery,
    success: { status: 200, description: "`{ events: [...], nextCursor, hasMore }`, each event `{ id, type, createdAt, data }`" },
    errors: [400],
  },
  "GET /api/v1/openapi.json": {
    summary: "This document",
    description: "The OpenAPI 3.1 description of every /api/v1 endpoint, generated from the zod schemas that validate requests. Rendered at /docs.",
    tag: "Meta",
    auth: "public",
    errorBody: messageBody,
    success: { status: 200, description: "OpenAPI 3.1 document", schema: z.looseObject({ openapi: z.string(), info: z.looseObject({}), paths: z.record(z.string(), z.unknown()) }), example: { openapi: "3.1.0", info: { title: "Payments API", version: "1.0.0" }, paths: {} } },
  },
};

const STATUS_TEXT: Record<number, string> = {
  400: "Invalid request: malformed JSON or nested more than 32 levels, a field at fault (every one is named), or a refusal by the service",
  401: "Missing, malformed, unknown or revoked key",
  404: "Not found",
  409: "Conflict: a request with this Idempotency-Key is still in flight, or the object is not in a state that allows this",
  413: "Request body larger than 64 KiB",
  422: "This Idempotency-Key was already used with a different body",
  429: "Rate limit exceeded; see Retry-After",
  500: "Processing error; the message carries the request id",
};

const DEFAULT_MESSAGES: Record<number, string> = {
  400: "Invalid request: value: must be greater than 0",
  401: "Missing API key: send the header Authorization: Bearer <API_KEY> (or Bearer: <API_KEY>)",
  404: "Not found",
  409: "A request with this Idempotency-Key is still being processed; retry later",
  413: "Request body is larger than 65536 bytes",
  422: "This Idempotency-Key was already used with a different request body",
  429: "Rate limit exceeded: at most 600 requests per minute; retry in 12 s",
  500: "Internal error while processing the request (request id req_4kTq9ZfY2bW1xVnD)",
};

/** The error statuses an operation answers: those of its kind, plus its own. */
export function errorStatuses(method: string, op: Operation): number[] {
  const s = new Set<number>([500, ...(op.errors ?? [])]);
  if (op.auth === "merchant") [401, 429].forEach((x) => s.add(x));
  if (op.auth === "admin") [401, 404].forEach((x) => s.add(x));
  if (op.auth === "public") s.add(429);
  if (op.request) [400, 413].forEach((x) => s.add(x));
  if (op.query) s.add(400);
  // Idempotency-Key applies to merchant POSTs (CONTRACT §9).
  if (method === "POST" && op.auth === "merchant") [409, 422].forEach((x) => s.add(x));
  if (op.tag === "Sandbox") s.add(404);
  return [...s].sort((a, b) => a - b);
}

/** The documented schema of an operation's error body for a status. */
export function errorSchemaFor(op: Operation, status: number): z.ZodObject {
  return op.errorSchemas?.[status] ?? op.errorBody.schema(status);
}

/** An example error body, written by the endpoint's own error body function so it cannot drift. */
export function errorExampleFor(op: Operation, status: number): Record<string, unknown> {
  const e = op.errorExamples?.[status];
  return op.errorBody(status, e?.message ?? DEFAULT_MESSAGES[status] ?? "Error", e?.extra);
}

/** "/api/v1/order/[id]" → "/api/v1/order/{id}" */
export function openApiPath(path: string): string {
  return path.replace(/\[([^\]]+)\]/g, "{$1}");
}

type JsonSchema = { [k: string]: unknown };

/**
 * zod → JSON Schema for the document: refs into components, no `$schema`, no regex where a
 * `format` already says it (zod's date-time and uuid patterns are long and say nothing more), and
 * `clientRequired` (fields the service checks itself so it can answer with the spec's own error
 * body) moved into `required`.
 */
function toSchema(schema: z.ZodType, io: "input" | "output", components: Record<string, JsonSchema>): JsonSchema {
  const json = z.toJSONSchema(schema, { io }) as JsonSchema;
  const defs = (json.$defs ?? {}) as Record<string, JsonSchema>;
  delete json.$defs;
  delete json.$schema;
  const rename = (id: string) => (io === "input" ? `${id}Input` : id);
  const fix = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(fix);
    if (!node || typeof node !== "object") return node;
    const out: JsonSchema = {};
    for (const [k, v] of Object.entries(node)) out[k] = fix(v);
    if (typeof out.$ref === "string" && out.$ref.startsWith("#/$defs/")) out.$ref = `#/components/schemas/${rename(out.$ref.slice(8))}`;
    if ((out.format === "date-time" || out.format === "uuid") && typeof out.pattern === "string") delete out.pattern;
    if (out.properties && typeof out.properties === "object") {
      const required = new Set<string>(Array.isArray(out.required) ? (out.required as string[]) : []);
      for (const [name, prop] of Object.entries(out.properties as Record<string, JsonSchema>)) {
        if (prop.clientRequired === true) required.add(name);
        delete prop.clientRequired;
      }
      if (required.size) out.required = [...required];
    }
    return out;
  };
  for (const [id, def] of Object.entries(defs)) {
    const fixed = fix(def) as JsonSchema;
    const name = rename(id);
    if (components[name] && JSON.stringify(components[name]) !== JSON.stringify(fixed)) {
      throw new Error(`Two different schemas are registered as ${name}`);
    }
    components[name] = fixed;
  }
  return fix(json) as JsonSchema;
}

function curlFor(method: string, path: string, op: Operation): string {
  const lines = [`curl -X ${method} '${publicBaseUrl()}${openApiPath(path)}'`];
  if (op.auth === "merchant") lines.push(`-H 'Authorization: Bearer sk_test_…'`);
  if (op.auth === "admin") lines.push(`-H 'Authorization: Bearer <ADMIN_TOKEN>'`);
  if (op.request) lines.push(`-H 'Content-Type: application/json'`, `-d '${JSON.stringify(op.request.example).replace(/'/g, "'\\''")}'`);
  return lines.join(" \\\n  ");
}

const SECURITY: Record<DocAuth, Record<string, string[]>[]> = {
  merchant: [{ bearerAuth: [] }, { bearerHeader: [] }],
  admin: [{ adminToken: [] }],
  public: [],
};

export type OpenApiDocument = {
  openapi: "3.1.0";
  info: Record<string, unknown>;
  servers: { url: string; description?: string }[];
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, JsonSchema>>;
  components: { schemas: Record<string, JsonSchema>; securitySchemes: Record<string, JsonSchema> };
};

export function buildOpenApiDocument(routes: readonly { method: string; path: string }[] = API_ROUTES): OpenApiDocument {
  const components: Record<string, JsonSchema> = {};
  const paths: OpenApiDocument["paths"] = {};
  for (const route of routes) {
    const key = `${route.method} ${route.path}`;
    const op = OPERATIONS[key];
    if (!op) throw new Error(`No OpenAPI entry for ${key}: add it to OPERATIONS in lib/api/openapi.ts`);
    const parameters: JsonSchema[] = [];
    for (const name of [...route.path.matchAll(/\[([^\]]+)\]/g)].map((m) => m[1])) {
      parameters.push({ name, in: "path", required: true, description: op.params?.[name] ?? name, schema: { type: "string" } });
    }
    if (op.query) {
      const q = toSchema(op.query, "input", components);
      const required = new Set((q.required as string[] | undefined) ?? []);
      for (const [name, schema] of Object.entries((q.properties ?? {}) as Record<string, JsonSchema>)) {
        parameters.push({ name, in: "query", required: required.has(name), schema });
      }
    }
    for (const h of op.headers ?? []) parameters.push({ name: h.name, in: "header", required: false, description: h.description, schema: { type: "string" } });
    if (route.method === "POST" && op.auth === "merchant") {
      parameters.push({
        name: "Idempotency-Key",
        in: "header",
        required: false,
        description: "Retry safely: the first response is stored for 24 h and replayed with `Idempotent-Replayed: true` for the same body",
        schema: { type: "string", minLength: 1, maxLength: 255 },
      });
    }

    const responses: Record<string, JsonSchema> = {};
    const requestIdHeader = { "x-request-id": { description: "Request id, also in the logs", schema: { type: "string" } } };
    const s = op.success;
    responses[String(s.status)] =
      "contentType" in s
        ? { description: s.description, headers: requestIdHeader, content: { [s.contentType]: { schema: { type: "string", contentMediaType: s.contentType } } } }
        : "schema" in s
          ? { description: s.description, headers: requestIdHeader, content: { "application/json": { schema: toSchema(s.schema, "output", components), example: s.example } } }
          : { description: s.description, headers: requestIdHeader };
    for (const status of errorStatuses(route.method, op)) {
      responses[String(status)] = {
        description: STATUS_TEXT[status] ?? "Error",
        headers: status === 429 ? { ...requestIdHeader, "Retry-After": { description: "Seconds to wait", schema: { type: "integer" } } } : requestIdHeader,
        content: { "application/json": { schema: toSchema(errorSchemaFor(op, status), "output", components), example: errorExampleFor(op, status) } },
      };
    }

    const operation: JsonSchema = {
      operationId: operationId(route.method, route.path),
      summary: op.summary,
      description: op.description,
      tags: [op.tag],
      security: SECURITY[op.auth],
      ...(parameters.length ? { parameters } : {}),
      ...(op.request
        ? { requestBody: { required: true, content: { "application/json": { schema: toSchema(op.request.schema, "input", components), example: op.request.example } } } }
        : {}),
      responses,
      "x-codeSamples": [{ lang: "curl", source: curlFor(route.method, route.path, op) }],
    };
    (paths[openApiPath(route.path)] ??= {})[route.method.toLowerCase()] = operation;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Crypto-backed Payments API",
      version: "1.0.0",
      description:
        "PIX, exchange-wallet and Lightning orders, on-chain stablecoin deposits and withdrawals, Crypto-PIX and PIX withdrawals for Brazilian merchants. JSON in and out; BRL `value` is a JSON number with at most 2 decimals unless a field says centavos. Each endpoint has one error body shape, used for every status.",
    },
    servers: [{ url: publicBaseUrl() }],
    tags: TAGS.map((t) => ({ ...t })),
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", description: "`Authorization: Bearer sk_test_…` (or sk_live_…)" },
        bearerHeader: { type: "apiKey", in: "header", name: "Bearer", description: "The API key in a header named `Bearer`, as the spec's deposit sample sends it" },
        adminToken: { type: "http", scheme: "bearer", description: "`Authorization: Bearer <ADMIN_TOKEN>` (operator API)" },
      },
    },
  };
}

/** "POST /api/v1/order/create/pix" → "postOrderCreatePix" */
function operationId(method: string, path: string): string {
  const words = path.replace(/^\/api\/v1\//, "").split(/[/.\-[\]]+/).filter(Boolean);
  return method.toLowerCase() + words.map((w) => w[0].toUpperCase() + w.slice(1)).join("");
}

let cached: string | null = null;

/** The document as JSON text, built once per process: it depends only on code and start-up config. */
export function openApiJson(): string {
  cached ??= JSON.stringify(buildOpenApiDocument());
  return cached;
}

