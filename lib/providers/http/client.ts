// JSON over HTTP for live provider adapters: a timeout on every call, retries with backoff where a
// repeat is harmless, and errors that say what the upstream answered (the spec's Lightning error row
// names the provider status).

export class UpstreamHttpError extends Error {
  /** The HTTP status, or "timeout" / "network" when no answer came. */
  readonly status: number | "timeout" | "network";
  constructor(status: number | "timeout" | "network", message: string) {
    super(message);
    this.name = "UpstreamHttpError";
    this.status = status;
  }
}

export type JsonRequest = {
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: unknown;
  timeoutMs: number;
  /** Extra attempts after a timeout, a network error, a 429 or a 5xx. Only for requests safe to repeat. */
  retries?: number;
};

const RETRY_BASE_MS = 200;

function retryable(err: UpstreamHttpError): boolean {
  return err.status === "timeout" || err.status === "network" || err.status === 429 || err.status >= 500;
}

export async function requestJson(url: string, req: JsonRequest): Promise<unknown> {
  const attempts = 1 + (req.retries ?? 0);
  for (let attempt = 1; ; attempt++) {
    try {
      return await once(url, req);
    } catch (err) {
      if (!(err instanceof UpstreamHttpError) || !retryable(err) || attempt >= attempts) throw err;
      await new Promise((r) => setTimeout(r, RETRY_BASE_MS * 2 ** (attempt - 1)));
    }
  }
}

async function once(url: string, req: JsonRequest): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: req.method ?? "GET",
      headers: { accept: "application/json", ...(req.body !== undefined ? { "content-type": "application/json" } : {}), ...req.headers },
      body: req.body !== undefined ? JSON.stringify(req.body) : undefined,
      signal: AbortSignal.timeout(req.timeoutMs),
      redirect: "error",
    });
  } catch (err) {
    const name = err instanceof Error ? err.name : "";
    if (name === "TimeoutError" || name === "AbortError") throw new UpstreamHttpError("timeout", `no answer within ${req.timeoutMs} ms`);
    throw new UpstreamHttpError("network", `unreachable (${err instanceof Error ? err.message : String(err)})`);
  }
  const text = await res.text().catch(() => "");
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    if (res.ok) throw new UpstreamHttpError(res.status, `HTTP ${res.status} with a body that is not JSON`);
  }
  if (!res.ok) throw new UpstreamHttpError(res.status, `HTTP ${res.status}${upstreamMessage(body)}`);
  return body;
}

/** The provider's own explanation, when it gives one in a usual field; kept short for messages. */
function upstreamMessage(body: unknown): string {
  if (!body || typeof body !== "object") return "";
  const o = body as Record<string, unknown>;
  const nested = o.error && typeof o.error === "object" ? (o.error as Record<string, unknown>) : null;
  const msg = [o.message, o.error, nested?.message, nested?.error_message, o.status].find((v) => typeof v === "string" && v.length > 0);
  return typeof msg === "string" ? `: ${msg.slice(0, 200)}` : "";
}

export type TextRequest = {
  method: "GET" | "POST";
  /** Built again for every attempt: a signature over a timestamp and a nonce must be fresh each time. */
  headers: () => Record<string, string>;
  body?: string;
  timeoutMs: number;
  retries?: number;
  /** An answer that is a decided one whatever its HTTP status (a provider's error body): returned, not thrown. */
  acceptBody?: (status: number, body: string) => boolean;
};

/** A request whose answer is read as text (for a provider whose body must be parsed with care); retried like requestJson. */
export async function requestText(url: string, req: TextRequest): Promise<string> {
  const attempts = 1 + (req.retries ?? 0);
  for (let attempt = 1; ; attempt++) {
    try {
      return await textOnce(url, req);
    } catch (err) {
      if (!(err instanceof UpstreamHttpError) || !retryable(err) || attempt >= attempts) throw err;
      await new Promise((r) => setTimeout(r, RETRY_BASE_MS * 2 ** (attempt - 1)));
    }
  }
}

async function textOnce(url: string, req: TextRequest): Promise<string> {
  let res: Response;
  try {
    res = await fetch(url, { method: req.method, headers: req.headers(), body: req.body, signal: AbortSignal.timeout(req.timeoutMs), redirect: "error" });
  } catch (err) {
    const name = err instanceof Error ? err.name : "";
    if (name === "TimeoutError" || name === "AbortError") throw new UpstreamHttpError("timeout", `no answer within ${req.timeoutMs} ms`);
    throw new UpstreamHttpError("network", `unreachable (${err instanceof Error ? err.message : String(err)})`);
  }
  const text = await res.text().catch(() => "");
  if (res.ok || req.acceptBody?.(res.status, text)) return text;
  throw new UpstreamHttpError(res.status, `HTTP ${res.status}`);
}
