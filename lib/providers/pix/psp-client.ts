import type { Agent } from "node:https";
import { env, type Env } from "@/lib/env";
import { UpstreamUnavailable } from "@/lib/errors";
import { log } from "@/lib/log";
import { credentialFile, secret } from "@/lib/secrets";
import { UpstreamHttpError } from "../http/client";
import { httpsRequest, mtlsAgent, type HttpsAnswer } from "../http/mtls";

// The PSP's API as every PIX adapter reaches it (docs/providers.md#pix-collection-api-pix-any-psp): OAuth2 client credentials with HTTP
// Basic client authentication, and the PSP's client certificate on every call, the token call too.
// The token is cached until shortly before it expires and fetched again when the PSP refuses it
// (tokens can be revoked early). Reads and charge creation are retried a bounded number of times after
// a timeout, a network error, a 429 (after its Retry-After) or a 5xx. A request that moves money (a
// devolução, a payout) is sent once per call: a PSP answers a repeat of its id with a refusal (API Pix
// 400, Efí 409) even when the first one was carried out, so the caller must know whether this id may
// have reached the PSP before (lib/providers/outcome); its machine reads it back and decides.

export type PspConfig = {
  /** API Pix base: its paths (/cob/{txid}, /pix, …) are relative to it. */
  apiUrl: string;
  oauthUrl: string;
  clientId: string;
  clientSecret: string;
  agent: Agent;
  timeoutMs: number;
};

/** A problem the PSP answered (RFC 7807 in API Pix: type, title, detail, violacoes). */
export class PspProblem extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`HTTP ${status}${describeProblem(body)}`);
    this.name = "PspProblem";
  }
}

/** "title: detail (propriedade: razao; …)", from whichever of those fields the PSP gave. */
export function describeProblem(body: unknown): string {
  if (!body || typeof body !== "object") return "";
  const o = body as Record<string, unknown>;
  const parts = [o.title, o.detail, o.mensagem, o.nome, o.error_description, o.error].filter(
    (v): v is string => typeof v === "string" && v.length > 0,
  );
  const violations = Array.isArray(o.violacoes)
    ? o.violacoes
        .map((v) =>
          v && typeof v === "object"
            ? `${(v as Record<string, unknown>).propriedade ?? "?"}: ${(v as Record<string, unknown>).razao ?? "?"}`
            : "",
        )
        .filter(Boolean)
    : [];
  const text = [...new Set(parts)].join(": ") + (violations.length ? ` (${violations.join("; ")})` : "");
  return text ? `: ${text.slice(0, 300)}` : "";
}

const RETRIES = 2;
const RETRY_BASE_MS = 250;
// A token is renewed this long before the PSP says it expires, so a call never starts with one about to lapse.
const TOKEN_MARGIN_MS = 30_000;

type Token = { value: string; until: number };

export type CallOptions = {
  /** Sent once: no retry after a timeout, a network error, a 429 or a 5xx (requests that move money). */
  once?: boolean;
  headers?: Record<string, string>;
};

export type PspClient = {
  readonly config: PspConfig;
  /**
   * One call with a bearer token; any answer is returned. Throws UpstreamHttpError when none came
   * (after the retries, unless `once`). `headers` are added to the request (a PSP's own switches).
   */
  call(
    method: "GET" | "PUT" | "PATCH" | "POST" | "DELETE",
    url: string,
    body?: unknown,
    opts?: CallOptions,
  ): Promise<HttpsAnswer>;
};

export function pspClient(config: PspConfig): PspClient {
  let token: Token | null = null;
  let pending: Promise<Token> | null = null;

  async function fetchToken(): Promise<Token> {
    const basic = Buffer.from(`${config.clientId}:${config.clientSecret}`).toString("base64");
    const answer = await withRetries(
      () =>
        httpsRequest(config.oauthUrl, {
          agent: config.agent,
          method: "POST",
          headers: { authorization: `Basic ${basic}`, "content-type": "application/x-www-form-urlencoded" },
          body: "grant_type=client_credentials",
          timeoutMs: config.timeoutMs,
        }),
      RETRIES,
    );
    const o = (answer.json ?? {}) as Record<string, unknown>;
    if (answer.status !== 200 || typeof o.access_token !== "string") {
      throw new UpstreamUnavailable(
        `PIX provider refused our credentials at ${new URL(config.oauthUrl).pathname}${describeProblem(answer.json) || `: HTTP ${answer.status}`}`,
      );
    }
    const seconds = typeof o.expires_in === "number" && o.expires_in > 0 ? o.expires_in : 300;
    return { value: o.access_token, until: Date.now() + Math.max(seconds * 1000 - TOKEN_MARGIN_MS, 1000) };
  }

  // Concurrent calls share one token request.
  async function bearer(fresh: boolean): Promise<string> {
    if (!fresh && token && token.until > Date.now()) return token.value;
    pending ??= fetchToken().finally(() => (pending = null));
    token = await pending;
    return token.value;
  }

  return {
    config,
    async call(method, url, body, opts = {}) {
      const send = async (fresh: boolean) =>
        withRetries(
          async () =>
            httpsRequest(url, {
              agent: config.agent,
              method,
              headers: {
                authorization: `Bearer ${await bearer(fresh)}`,
                ...(body !== undefined ? { "content-type": "application/json" } : {}),
                ...opts.headers,
              },
              body: body !== undefined ? JSON.stringify(body) : undefined,
              timeoutMs: config.timeoutMs,
            }),
          opts.once ? 0 : RETRIES,
        );
      const answer = await send(false);
      // API Pix answers 403 AcessoNegado (some PSPs 401) for a token it no longer accepts: once, with a new one.
      if (answer.status === 401 || answer.status === 403) {
        log.info("PIX provider refused the access token; asking for a new one", { status: answer.status });
        token = null;
        return send(true);
      }
      return answer;
    },
  };
}

// A 429 asking for a longer wait than this is handed back to the caller, whose job waits it out.
const MAX_INLINE_WAIT_SECONDS = 5;

async function withRetries(attempt: () => Promise<HttpsAnswer>, retries: number): Promise<HttpsAnswer> {
  for (let n = 0; ; n++) {
    let answer: HttpsAnswer;
    try {
      answer = await attempt();
    } catch (err) {
      if (!(err instanceof UpstreamHttpError) || n >= retries) throw err;
      await sleep(RETRY_BASE_MS * 2 ** n);
      continue;
    }
    if (answer.status === 429 && n < retries) {
      // The PSP says when it will take another request (RFC 9110 Retry-After); without it, back off.
      const wait = answer.retryAfterSeconds;
      if (wait !== null && wait > MAX_INLINE_WAIT_SECONDS) return answer;
      await sleep(wait !== null ? wait * 1000 : RETRY_BASE_MS * 2 ** n);
      continue;
    }
    if (answer.status >= 500 && n < retries) {
      await sleep(RETRY_BASE_MS * 2 ** n);
      continue;
    }
    return answer;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// One client per configuration: its agent keeps the TLS sessions, its cache the token.
const clients = new WeakMap<Env, PspClient>();

/** The PSP client of PIX_* (collection and payouts share the credentials: docs/providers.md#pix-payouts). */
export function pspClientFromEnv(): PspClient {
  const e = env();
  let client = clients.get(e);
  if (!client) {
    client = pspClient(pspConfigFromEnv(e));
    clients.set(e, client);
  }
  return client;
}

function pspConfigFromEnv(e: Env): PspConfig {
  const apiUrl = (e.PIX_API_URL ?? e.PIX_PAYOUT_URL ?? "").replace(/\/+$/, "");
  const identity = e.PIX_PFX_FILE
    ? {
        pfx: credentialFile("PIX_PFX_FILE", e.PIX_PFX_FILE),
        passphrase: secret("PIX_PFX_PASSPHRASE", e.PIX_PFX_PASSPHRASE, e.PIX_PFX_PASSPHRASE_FILE),
      }
    : { cert: credentialFile("PIX_CERT_FILE", e.PIX_CERT_FILE!), key: credentialFile("PIX_KEY_FILE", e.PIX_KEY_FILE!) };
  return {
    apiUrl,
    oauthUrl: e.PIX_OAUTH_URL ?? `${new URL(apiUrl).origin}/oauth/token`,
    clientId: e.PIX_CLIENT_ID!,
    clientSecret: secret("PIX_CLIENT_SECRET", e.PIX_CLIENT_SECRET, e.PIX_CLIENT_SECRET_FILE)!,
    agent: mtlsAgent({ ...identity, ca: e.PIX_CA_FILE ? credentialFile("PIX_CA_FILE", e.PIX_CA_FILE) : undefined }),
    timeoutMs: e.PIX_TIMEOUT_MS,
  };
}
