import { db } from "@/db";
import { apiKeys, merchants } from "@/db/schema";
import { generateApiKey } from "@/lib/identity/api-keys/keys";
import type { Endpoint } from "@/lib/http/endpoint";
import { postLedgerEntry } from "@/lib/ledger/ledger";
import { randomUUID } from "node:crypto";
import { Writable } from "node:stream";
import { createLogger, setLoggerForTests } from "@/lib/log";

export const BASE = "http://localhost:3000";

type CallOptions = {
  method?: string;
  path?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  params?: Record<string, string>;
  apiKey?: string;
  /** Which header carries the key: the spec shows both. */
  authHeader?: "authorization" | "bearer";
};

export type CallResult = { status: number; body: any; headers: Headers };

function request(opts: CallOptions): Request {
  const headers = new Headers(opts.headers);
  if (opts.apiKey !== undefined) {
    if (opts.authHeader === "bearer") headers.set("bearer", opts.apiKey);
    else headers.set("authorization", `Bearer ${opts.apiKey}`);
  }
  let body: string | undefined = opts.rawBody;
  if (body === undefined && opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined) headers.set("content-type", "application/json");
  return new Request(BASE + (opts.path ?? "/api/v1/test"), {
    method: opts.method ?? (body !== undefined ? "POST" : "GET"),
    headers,
    body,
  });
}

async function read(res: Response): Promise<CallResult> {
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

/** A fresh merchant with its own API key; each test seeds its own. */
export async function seedMerchant(
  opts: {
    pixKey?: string | null;
    accountType?: "standard" | "verified" | "business";
    balanceCentavos?: number;
    companyName?: string;
  } = {},
) {
  const [merchant] = await db()
    .insert(merchants)
    .values({
      companyName: opts.companyName ?? `Loja Teste ${randomUUID().slice(0, 8)}`,
      pixKey: opts.pixKey === undefined ? "52998224725" : opts.pixKey,
      pixKeyType: opts.pixKey === null ? null : "cpf",
      accountType: opts.accountType ?? "standard",
    })
    .returning();
  const key = generateApiKey("sandbox");
  await db()
    .insert(apiKeys)
    .values({ merchantId: merchant.id, name: "test", prefix: key.prefix, keyHash: key.hash, mode: "sandbox" });
  if (opts.balanceCentavos) {
    await db().transaction((tx) =>
      postLedgerEntry(tx, {
        merchantId: merchant.id,
        kind: "adjustment",
        amountCentavos: opts.balanceCentavos!,
        refType: "test",
        refId: randomUUID(),
      }),
    );
  }
  return { merchant, apiKey: key.key };
}

/** Calls one endpoint directly with a Web Request, as its route would once the path matched. */
export async function call(endpoint: Endpoint, opts: CallOptions = {}): Promise<CallResult> {
  return read(await endpoint.serve(request(opts), opts.params ?? {}));
}

/** Calls the API by method and path through the router both serving paths use. */
export async function api(
  method: string,
  path: string,
  opts: Omit<CallOptions, "method" | "path" | "params"> = {},
): Promise<CallResult> {
  const { apiRouter } = await import("@/lib/api/endpoints");
  return read(await apiRouter.handle(request({ ...opts, method, path })));
}

/** The service's own logger, at info, writing into the returned array until setLoggerForTests(undefined). */
export function captureLogs(): string[] {
  const lines: string[] = [];
  const logger = createLogger(
    new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    }),
  );
  logger.level = "info"; // the test environment silences logs
  setLoggerForTests(logger);
  return lines;
}

/**
 * An error body's spec fields: the body without the added machine-readable ones (`code`, and `fields`
 * on a validation error), after checking that its `code` is a snake_case code (docs/api.md#error-codes).
 */
export function specOf(body: unknown): unknown {
  if (!body || typeof body !== "object") return body;
  const { code, fields, ...spec } = body as Record<string, unknown>;
  if (typeof code !== "string" || !/^[a-z][a-z0-9_]*$/.test(code))
    throw new Error(`error body without a code: ${JSON.stringify(body)}`);
  if (fields !== undefined && (code !== "validation_failed" || !Array.isArray(fields)))
    throw new Error(`fields on a body that is not a validation error: ${JSON.stringify(body)}`);
  return spec;
}
