// JSON over HTTP for live provider adapters: a timeout on every call, retries with backoff where a
// repeat is harmless (after the wait a 429's or 503's Retry-After asks for, within MAX_RETRY_AFTER_MS),
// and errors that say what the upstream answered (the spec's Lightning error row names the provider status).

export class UpstreamHttpError extends Error {
  /** The HTTP status, or "timeout" / "network" when no answer came. */
  readonly status: number | "timeout" | "network";
  /** How long the answer's Retry-After asked us to wait before asking again, in ms, when it gave one. */
  readonly retryAfterMs: number | undefined;
  constructor(status: number | "timeout" | "network", message: string, retryAfterMs?: number) {
    super(message);
    this.name = "UpstreamHttpError";
    this.status = status;
    this.retryAfterMs = retryAfterMs;
  }
}

export type JsonRequest = {
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: unknown;
  timeoutMs: number;
  /** Extra attempts after a timeout, a network error, a 429 or a 5xx. Only for requests safe to repeat. */
  retries?: number;
  /** The longest Retry-After waited for before a retry (default MAX_RETRY_AFTER_MS). */
  maxRetryAfterMs?: number;
};

const RETRY_BASE_MS = 200;

/**
 * The longest wait a Retry-After gets from us. A provider asking for more is not retried at all: the call
 * fails now (its caller, a merchant's request or the next poll, tries later) rather than holding a request
 * open for minutes, and a retry before the time it named would only be refused again (Binance bans an
 * address that keeps asking after a 429: binance-spot-api-docs, rest-api/limits).
 */
export const MAX_RETRY_AFTER_MS = 5_000;

function retryable(err: UpstreamHttpError): boolean {
  return err.status === "timeout" || err.status === "network" || err.status === 429 || err.status >= 500;
}

/**
 * Retry-After as RFC 9110 §10.2.3 writes it, in ms from `now`: delay-seconds, or an HTTP-date (a date
 * already past is 0). Undefined when absent or unreadable.
 */
export function retryAfterMs(value: string | null | undefined, now = Date.now()): number | undefined {
  const v = value?.trim();
  if (!v) return undefined;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  // Date.parse reads much that is not an HTTP-date ("1.5", "3 apples"): only a weekday-led date counts.
  if (Number.isNaN(at) || !/^[A-Za-z]{3,9},? /.test(v)) return undefined;
  return Math.max(0, at - now);
}

/** Runs `attempt` up to 1 + retries times, waiting between tries: backoff, or what the provider's Retry-After asked. */
async function withRetries<T>(attempt: () => Promise<T>, retries: number, maxRetryAfterMs: number): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (!(err instanceof UpstreamHttpError) || !retryable(err) || n > retries) throw err;
      const asked = err.retryAfterMs;
      if (asked !== undefined && asked > maxRetryAfterMs) throw err;
      await new Promise((r) => setTimeout(r, Math.max(RETRY_BASE_MS * 2 ** (n - 1), asked ?? 0)));
    }
  }
}

/** The HTTP error of an answer that is not a success, carrying its Retry-After. */
function httpError(res: Response, message: string): UpstreamHttpError {
  const wait = retryAfterMs(res.headers.get("retry-after"));
  return new UpstreamHttpError(
    res.status,
    wait === undefined ? message : `${message} (Retry-After ${Math.ceil(wait / 1000)} s)`,
    wait,
  );
}

export function requestJson(url: string, req: JsonRequest): Promise<unknown> {
  return withRetries(() => once(url, req), req.retries ?? 0, req.maxRetryAfterMs ?? MAX_RETRY_AFTER_MS);
}

async function once(url: string, req: JsonRequest): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: req.method ?? "GET",
      headers: {
        accept: "application/json",
        ...(req.body !== undefined ? { "content-type": "application/json" } : {}),
        ...req.headers,
      },
      body: req.body !== undefined ? JSON.stringify(req.body) : undefined,
      signal: AbortSignal.timeout(req.timeoutMs),
      redirect: "error",
    });
  } catch (err) {
    const name = err instanceof Error ? err.name : "";
    if (name === "TimeoutError" || name === "AbortError")
      throw new UpstreamHttpError("timeout", `no answer within ${req.timeoutMs} ms`);
    throw new UpstreamHttpError("network", `unreachable (${err instanceof Error ? err.message : String(err)})`);
  }
  const text = await res.text().catch(() => "");
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    if (res.ok) throw new UpstreamHttpError(res.status, `HTTP ${res.status} with a body that is not JSON`);
  }
  if (!res.ok) throw httpError(res, `HTTP ${res.status}${upstreamMessage(body)}`);
  return body;
}

/** The provider's own explanation, when it gives one in a usual field; kept short for messages. */
function upstreamMessage(body: unknown): string {
  if (!body || typeof body !== "object") return "";
  const o = body as Record<string, unknown>;
  const nested = o.error && typeof o.error === "object" ? (o.error as Record<string, unknown>) : null;
  const msg = [o.message, o.error, nested?.message, nested?.error_message, o.status].find(
    (v) => typeof v === "string" && v.length > 0,
  );
  return typeof msg === "string" ? `: ${msg.slice(0, 200)}` : "";
}

export type TextRequest = {
  method: "GET" | "POST";
  /** Built again for every attempt: a signature over a timestamp and a nonce must be fresh each time. */
  headers: () => Record<string, string>;
  body?: string;
  timeoutMs: number;
  retries?: number;
  /** The longest Retry-After waited for before a retry (default MAX_RETRY_AFTER_MS). */
  maxRetryAfterMs?: number;
  /** An answer that is a decided one whatever its HTTP status (a provider's error body): returned, not thrown. */
  acceptBody?: (status: number, body: string) => boolean;
};

/** A request whose answer is read as text (for a provider whose body must be parsed with care); retried like requestJson. */
export function requestText(url: string, req: TextRequest): Promise<string> {
  return withRetries(() => textOnce(url, req), req.retries ?? 0, req.maxRetryAfterMs ?? MAX_RETRY_AFTER_MS);
}

async function textOnce(url: string, req: TextRequest): Promise<string> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: req.method,
      headers: req.headers(),
      body: req.body,
      signal: AbortSignal.timeout(req.timeoutMs),
      redirect: "error",
    });
  } catch (err) {
    const name = err instanceof Error ? err.name : "";
    if (name === "TimeoutError" || name === "AbortError")
      throw new UpstreamHttpError("timeout", `no answer within ${req.timeoutMs} ms`);
    throw new UpstreamHttpError("network", `unreachable (${err instanceof Error ? err.message : String(err)})`);
  }
  const text = await res.text().catch(() => "");
  if (res.ok || req.acceptBody?.(res.status, text)) return text;
  throw httpError(res, `HTTP ${res.status}`);
}
