import {
  apiError,
  ConnectionError,
  PixCryptoError,
  rateLimitOf,
  retryAfterSeconds,
  TimeoutError,
  type ErrorBody,
  type RateLimitInfo,
} from "./errors.js";
import { SDK_VERSION } from "./version.js";

// One request, sent until it has an answer worth returning: fetch only (Node 20+, Deno, Bun, edge
// runtimes), a timeout per attempt, and retries on what is safe to repeat. A POST that takes an
// Idempotency-Key gets one made here (or the caller's) and sends the same key on every attempt, so
// the server runs it once however many times it arrives; that is what makes retrying a POST after a
// lost answer safe. What may be retried:
//   - a 429, always (the server refused it before doing anything), after its Retry-After;
//   - a network error, a timeout or a 5xx, when repeating cannot do the thing twice: GET, DELETE,
//     PATCH, and POSTs that carry an Idempotency-Key; after Retry-After when the answer has one,
//     else after an exponential backoff with jitter;
//   - a 409 to a POST retried after such a failure: its first attempt still holds the key.
// A Retry-After longer than `maxRetryDelayMs` is not waited for: the error is thrown with it.

export type AuthHeader = "authorization" | "bearer";

export type TransportOptions = {
  baseUrl: string;
  /** The credential and how to send it; absent for the public endpoints. */
  credential?: { token: string; header: AuthHeader };
  /** Retries after the first attempt (default 2). */
  maxRetries?: number;
  /** Per attempt (default 30 000). */
  timeoutMs?: number;
  /** The longest wait a Retry-After may ask for and still be retried (default 60 000: the API's windows are calendar minutes). */
  maxRetryDelayMs?: number;
  /** A fetch of your own (a proxy agent, instrumentation); default globalThis.fetch. */
  fetch?: typeof fetch;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** Told of every answer, retried ones included: logging, metrics, pacing by the rate-limit headers. */
  onResponse?: (info: ResponseInfo) => void;
};

/** Per call. */
export type RequestOptions = {
  /** Sent as Idempotency-Key (POSTs that take one); default: a fresh UUID per call, kept across its retries. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
  maxRetries?: number;
  headers?: Record<string, string>;
};

export type ResponseInfo = {
  /** The OpenAPI operationId, e.g. "postOrderCreatePix". */
  operation: string;
  method: string;
  /** The path as requested (parameters filled in). */
  path: string;
  status: number;
  /** 1 for the first attempt. */
  attempt: number;
  requestId: string | null;
  rateLimit: RateLimitInfo | null;
  /** `Idempotent-Replayed: true`: the answer is the stored one of an earlier request with the same key. */
  replayed: boolean;
  idempotencyKey: string | null;
};

/** How an operation may be repeated. */
export type Repeatable = "safe" | "idempotency-key" | "once";

export type Call = {
  operation: string;
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** The template, e.g. /api/v1/order/{id}. */
  path: string;
  params?: Record<string, string>;
  query?: Record<string, string | number | boolean | undefined | null>;
  body?: unknown;
  repeatable: Repeatable;
  /** The answer is not JSON (an image): returned as bytes. */
  binary?: boolean;
};

const RETRY_BASE_MS = 500;
const RETRY_CAP_MS = 8_000;

export class Transport {
  private readonly base: string;
  private readonly fetch: typeof fetch;

  constructor(readonly options: TransportOptions) {
    if (!options.baseUrl) throw new PixCryptoError("baseUrl is required, e.g. https://payments.example.com");
    this.base = options.baseUrl.replace(/\/+$/, "");
    if (!options.fetch && typeof globalThis.fetch !== "function")
      throw new PixCryptoError("No fetch in this runtime: pass one in the options");
    // Called unbound, some runtimes' fetch throws "Illegal invocation".
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /** The absolute URL of a path (parameters filled in and encoded). */
  url(path: string, params?: Record<string, string>, query?: Call["query"]): string {
    const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = params?.[name];
      if (value === undefined || value === "") throw new PixCryptoError(`${path}: ${name} is required`);
      return encodeURIComponent(value);
    });
    const search = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null) search.set(k, String(v));
    const qs = search.toString();
    return this.base + filled + (qs ? `?${qs}` : "");
  }

  async request<T>(call: Call, opts: RequestOptions = {}): Promise<T> {
    const url = this.url(call.path, call.params, call.query);
    const path = url.slice(this.base.length);
    const maxRetries = opts.maxRetries ?? this.options.maxRetries ?? 2;
    const idempotencyKey = call.repeatable === "idempotency-key" ? (opts.idempotencyKey ?? crypto.randomUUID()) : null;
    const headers: Record<string, string> = {
      accept: "application/json",
      "user-agent": `pixcrypto-sdk-typescript/${SDK_VERSION}`,
      ...this.options.headers,
      ...opts.headers,
    };
    const cred = this.options.credential;
    if (cred) {
      if (cred.header === "bearer") headers["bearer"] = cred.token;
      else headers["authorization"] = `Bearer ${cred.token}`;
    }
    if (idempotencyKey) headers["idempotency-key"] = idempotencyKey;
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    if (body !== undefined) headers["content-type"] = "application/json";

    // Whether an earlier attempt may have reached the server and done its work (its answer lost).
    let mayHaveRun = false;
    for (let attempt = 1; ; attempt++) {
      const canRetry = attempt <= maxRetries;
      let res: Response;
      try {
        res = await this.send(
          url,
          { method: call.method, headers, body },
          opts.timeoutMs ?? this.options.timeoutMs ?? 30_000,
          opts.signal,
        );
      } catch (err) {
        if (opts.signal?.aborted) throw err;
        const failure =
          err instanceof TimeoutError
            ? new TimeoutError(`${call.method} ${path}: no answer within the timeout`, attempt, { cause: err })
            : new ConnectionError(`${call.method} ${path}: ${(err as Error)?.message ?? "network error"}`, attempt, {
                cause: err,
              });
        if (canRetry && call.repeatable !== "once") {
          mayHaveRun = true;
          await sleep(backoffMs(attempt), opts.signal);
          continue;
        }
        throw failure;
      }
      this.options.onResponse?.({
        operation: call.operation,
        method: call.method,
        path,
        status: res.status,
        attempt,
        requestId: res.headers.get("x-request-id"),
        rateLimit: rateLimitOf(res.headers),
        replayed: res.headers.get("idempotent-replayed") === "true",
        idempotencyKey,
      });
      if (res.ok) {
        if (call.binary) return new Uint8Array(await res.arrayBuffer()) as T;
        const text = await res.text();
        return (text ? JSON.parse(text) : undefined) as T;
      }
      // The DELETE that was lost on its way back did delete: gone is what was asked for.
      if (call.method === "DELETE" && res.status === 404 && mayHaveRun) return undefined as T;
      const text = await res.text().catch(() => "");
      // A 409 after an attempt whose answer was lost is, with the same key, most likely that attempt still
      // running (the server holds the key meanwhile); once it ends, the retry gets its stored answer. A
      // replayed 409 is that stored answer: asking again cannot change it.
      const stillRunning =
        res.status === 409 &&
        idempotencyKey !== null &&
        mayHaveRun &&
        res.headers.get("idempotent-replayed") !== "true";
      const retryable = res.status === 429 || (res.status >= 500 && call.repeatable !== "once") || stillRunning;
      const asked = retryAfterSeconds(res.headers.get("retry-after"));
      const wait = asked !== null ? asked * 1000 + jitterMs() : backoffMs(attempt);
      if (retryable && canRetry && wait <= (this.options.maxRetryDelayMs ?? 60_000) + 1_000) {
        if (res.status !== 429) mayHaveRun = true;
        await sleep(wait, opts.signal);
        continue;
      }
      throw apiError({
        status: res.status,
        method: call.method,
        path,
        headers: res.headers,
        body: parseErrorBody(text),
        text,
        attempts: attempt,
      });
    }
  }

  private async send(url: string, init: RequestInit, timeoutMs: number, signal?: AbortSignal): Promise<Response> {
    // One controller per attempt, aborted by the caller's signal or the timeout, whichever comes first.
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const forward = () => controller.abort(signal?.reason);
    if (signal?.aborted) controller.abort(signal.reason);
    signal?.addEventListener("abort", forward, { once: true });
    try {
      return await this.fetch(url, { ...init, signal: controller.signal });
    } catch (err) {
      if (timedOut) throw new TimeoutError("timeout", 0, { cause: err });
      throw err;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", forward);
    }
  }
}

function parseErrorBody(text: string): ErrorBody | null {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === "object" ? (parsed as ErrorBody) : null;
  } catch {
    return null;
  }
}

/** Exponential backoff with "equal jitter": half fixed, half random, so retrying clients spread out. */
function backoffMs(attempt: number): number {
  const ceiling = Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** (attempt - 1));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/** Added to a Retry-After so clients told the same second do not all return in it. */
function jitterMs(): number {
  return Math.random() * 500;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", abort, { once: true });
  });
}
