// @pixcrypto/sdk: the PixCrypto payments API from TypeScript, on fetch (Node 20+, Deno, Bun, edge runtimes).
//
//   const pix = new PixCrypto({ apiKey: process.env.PIXCRYPTO_API_KEY!, baseUrl: "https://payments.example.com" });
//   const { pixOrder, qrCode } = await pix.orders.createPix({ value: 150, orderId: "pedido-1" });
//
// Sandbox helpers: "@pixcrypto/sdk/sandbox"; webhook verification alone: "@pixcrypto/sdk/webhooks";
// the operator API: "@pixcrypto/sdk/operator".

export { PixCrypto, type PixCryptoOptions } from "./client.js";
export {
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  IdempotencyError,
  NotFoundError,
  PermissionError,
  PixCryptoError,
  RateLimitError,
  ServerError,
  TimeoutError,
  type ErrorBody,
  type ErrorCode,
  type FieldError,
  type MessageErrorBody,
  type RateLimitInfo,
  type SuccessFalseErrorBody,
} from "./errors.js";
export { Paginator } from "./pagination.js";
export type { AuthHeader, RequestOptions, ResponseInfo } from "./transport.js";
export type * from "./types.js";
export type { components, operations, paths } from "./generated/api.js";
export {
  verifyWebhook,
  verifyWebhookRequest,
  WebhookVerificationError,
  type HeadersLike,
  type RawBody,
  type WebhookEvent,
  type WebhookEventData,
  type WebhookEventType,
} from "./webhooks.js";
export { SDK_VERSION } from "./version.js";
