// The API answers errors in one of two body shapes, fixed per endpoint: `{ message, … }` (with extra
// fields on some endpoints: `supportedNetworks`, `details`, `error`) and `{ success: false, error }`.
// Every error is thrown as an ApiError (a subclass per status) that carries the body as sent, which
// shape it was, one `message` to show whichever it was, and the request id to quote to support.

import type { components } from "./generated/api.js";

/** The stable code of an API error: one of those the API's document declares (each endpoint's own are listed there and in docs/api.md). */
export type ErrorCode = components["schemas"]["ErrorCode"];
/** A field at fault in a validation error (`code: "validation_failed"`). */
export type FieldError = components["schemas"]["FieldError"];

/** `{ message, code, … }`: the extra fields are as the endpoint sends them. */
export type MessageErrorBody = { message: string; code?: ErrorCode; fields?: FieldError[]; [field: string]: unknown };
/** `{ success: false, error, code }` */
export type SuccessFalseErrorBody = { success: false; error: string; code?: ErrorCode; fields?: FieldError[] };
export type ErrorBody = MessageErrorBody | SuccessFalseErrorBody;

/** Every error the SDK throws for a request. */
export class PixCryptoError extends Error {
  override name = "PixCryptoError";
}

/** The rate-limit headers of an answer (absent when no limit applied to it). */
export type RateLimitInfo = { limit: number; remaining: number; resetSeconds: number };

export type ApiErrorInit = {
  status: number;
  method: string;
  path: string;
  headers: Headers;
  /** The parsed body; null when the answer had none or it was not JSON. */
  body: ErrorBody | null;
  /** The body's text when it was not JSON (a proxy's HTML page). */
  text?: string;
  attempts: number;
};

/** The API answered with a status other than 2xx. */
export class ApiError extends PixCryptoError {
  override name = "ApiError";
  readonly status: number;
  /** Which of the API's two error shapes the body had; null when it had neither (not our server). */
  readonly shape: "message" | "success-false" | null;
  readonly body: ErrorBody | null;
  /** `x-request-id` of the answer: quote it to support, it names every log line of the request. */
  readonly requestId: string | null;
  /** Seconds the server asked to wait (Retry-After), on 429 and 503. */
  readonly retryAfterSeconds: number | null;
  readonly rateLimit: RateLimitInfo | null;
  readonly headers: Headers;
  readonly method: string;
  readonly path: string;
  /** How many times the request was sent before giving up. */
  readonly attempts: number;
  /** The error's stable code (`insufficient_balance`, `validation_failed`, …): branch on this, not on the message. Null when the body had none (not our server). */
  readonly code: ErrorCode | null;
  /** The fields at fault of a validation error; empty otherwise. */
  readonly fields: FieldError[];

  constructor(init: ApiErrorInit) {
    const shape = shapeOf(init.body);
    const text =
      shape === "message"
        ? (init.body as MessageErrorBody).message
        : shape === "success-false"
          ? (init.body as SuccessFalseErrorBody).error
          : init.text?.slice(0, 200) || "";
    const requestId = init.headers.get("x-request-id");
    super(
      `${init.method} ${init.path} → ${init.status}: ${text || "(no message)"}${requestId ? ` (request id ${requestId})` : ""}`,
    );
    this.status = init.status;
    this.shape = shape;
    this.body = init.body;
    this.requestId = requestId;
    this.retryAfterSeconds = retryAfterSeconds(init.headers.get("retry-after"));
    this.rateLimit = rateLimitOf(init.headers);
    this.headers = init.headers;
    this.method = init.method;
    this.path = init.path;
    this.attempts = init.attempts;
    const b = (init.body ?? {}) as { code?: unknown; fields?: unknown };
    this.code = shape !== null && typeof b.code === "string" ? (b.code as ErrorCode) : null;
    this.fields = shape !== null && Array.isArray(b.fields) ? (b.fields as FieldError[]) : [];
  }

  /** The server's own sentence, from whichever shape the body had. */
  get apiMessage(): string | null {
    if (this.shape === "message") return (this.body as MessageErrorBody).message;
    if (this.shape === "success-false") return (this.body as SuccessFalseErrorBody).error;
    return null;
  }
}

export class BadRequestError extends ApiError {
  override name = "BadRequestError";
}
export class AuthenticationError extends ApiError {
  override name = "AuthenticationError";
}
/** The key lacks the scope the endpoint needs (read, payments, refunds, withdrawals); the message names it. */
export class PermissionError extends ApiError {
  override name = "PermissionError";
}
export class NotFoundError extends ApiError {
  override name = "NotFoundError";
}
/** The object's state does not allow this, or a request with the same Idempotency-Key is still running. */
export class ConflictError extends ApiError {
  override name = "ConflictError";
}
/** The Idempotency-Key was already used with another body. */
export class IdempotencyError extends ApiError {
  override name = "IdempotencyError";
}
export class RateLimitError extends ApiError {
  override name = "RateLimitError";
}
export class ServerError extends ApiError {
  override name = "ServerError";
}

/** No answer: the connection failed, or no answer came within the timeout. */
export class ConnectionError extends PixCryptoError {
  override name = "ConnectionError";
  constructor(
    message: string,
    readonly attempts: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
export class TimeoutError extends ConnectionError {
  override name = "TimeoutError";
}

export function apiError(init: ApiErrorInit): ApiError {
  const s = init.status;
  const Kind =
    s === 400
      ? BadRequestError
      : s === 401
        ? AuthenticationError
        : s === 403
          ? PermissionError
          : s === 404
            ? NotFoundError
            : s === 409
              ? ConflictError
              : s === 422
                ? IdempotencyError
                : s === 429
                  ? RateLimitError
                  : s >= 500
                    ? ServerError
                    : ApiError;
  return new Kind(init);
}

function shapeOf(body: unknown): ApiError["shape"] {
  if (!body || typeof body !== "object") return null;
  const b = body as Record<string, unknown>;
  if (typeof b.message === "string") return "message";
  if (b.success === false && typeof b.error === "string") return "success-false";
  return null;
}

/** Retry-After in seconds: delta-seconds or an HTTP date. */
export function retryAfterSeconds(value: string | null): number | null {
  if (value === null) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

export function rateLimitOf(headers: Headers): RateLimitInfo | null {
  const limit = headers.get("ratelimit-limit");
  const remaining = headers.get("ratelimit-remaining");
  const reset = headers.get("ratelimit-reset");
  if (limit === null || remaining === null || reset === null) return null;
  return { limit: Number(limit), remaining: Number(remaining), resetSeconds: Number(reset) };
}
