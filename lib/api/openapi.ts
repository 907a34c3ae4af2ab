import { z } from "zod";
import { publicBaseUrl } from "@/lib/env";
import type { Endpoint } from "@/lib/http/endpoint";
import { API_ERROR_CODE_LIST, type ApiErrorCode } from "@/lib/errors-api";
import { messageBody, type Problem } from "@/lib/http/error-body";
import { defineEndpoint } from "@/lib/http/endpoint";
import { anyone } from "@/lib/identity/api-keys/callers";
import { errorCodesOf, meaningOf, ownErrorStatuses } from "./error-codes";
import { enforcedInput, enforcedQuery } from "./openapi-enforced";

// The OpenAPI 3.1 document of /api/v1 (docs/api.md), derived from the endpoints' own declarations:
// request bodies and query strings on zod's input side (what the client sends, e.g. BRL as a JSON
// number), responses on the output side. tests/openapi.test.ts checks the document and sends every
// request example through the real handler.

export const TAGS = [
  { name: "PIX and wallet orders", description: "PIX, exchange-wallet and Lightning orders: create and look up" },
  { name: "On-chain", description: "Stablecoin deposits and on-chain withdrawals" },
  { name: "Crypto-PIX", description: "Pay a PIX QR code with crypto" },
  { name: "Invoices", description: "Invoices with a due date (API Pix cobv): fine, interest, discounts; batches" },
  {
    name: "Subscriptions",
    description: "Pix Automático (API Pix rec, cobr): authorised once by the payer, charged every cycle",
  },
  {
    name: "Payment links",
    description: "Reusable payment links: one page, each payer their own order on the rail they choose",
  },
  {
    name: "Recipients",
    description: "Sub-accounts (recebedores) that splits credit: their balance, statement and PIX payouts",
  },
  { name: "Withdrawals", description: "PIX withdrawals and withdrawal tracking" },
  { name: "Account", description: "The merchant account and its orders" },
  { name: "Public", description: "Payer-side views; no authentication" },
  { name: "Sandbox", description: "Test helpers, sandbox mode only (404 in live mode)" },
  { name: "Webhooks", description: "Webhook endpoints, their deliveries, and the event log" },
  { name: "Operator", description: "Provisioning with ADMIN_TOKEN (404 when it is unset)" },
  {
    name: "Provider callbacks",
    description: "Where payment providers notify us (live mode, when configured; 404 otherwise)",
  },
  { name: "Meta", description: "This document" },
] as const;

const STATUS_TEXT: Record<number, string> = {
  400: "Invalid request: malformed JSON or nested more than 32 levels, a field at fault (every one is named), or a refusal by the service",
  401: "Missing, malformed, unknown or revoked key",
  403: "The API key does not have the scope this endpoint needs (named in the message)",
  404: "Not found",
  409: "Conflict: a request with this Idempotency-Key is still in flight, or the object is not in a state that allows this",
  408: "The request body did not arrive in full within the request deadline (REQUEST_DEADLINE_MS); the connection is closed",
  413: "Request body larger than 64 KiB",
  415: "A Content-Type that is not JSON (send application/json in UTF-8, or none)",
  422: "This Idempotency-Key was already used with a different body",
  429: "Rate limit exceeded; see Retry-After",
  500: "Processing error; the message carries the request id",
  503: "Temporarily unavailable (the database cannot be reached or is restarting, or the request passed its deadline); see Retry-After",
};

const DEFAULT_MESSAGES: Record<number, string> = {
  400: "Invalid request: value: must be greater than 0",
  401: "Missing API key: send the header Authorization: Bearer <API_KEY> (or Bearer: <API_KEY>)",
  404: "Not found",
  409: "A request with this Idempotency-Key is still being processed; retry later",
  408: "The request body did not arrive in full within the request deadline (REQUEST_DEADLINE_MS, 10000 ms)",
  413: "Request body is larger than 65536 bytes",
  415: 'Unsupported Content-Type "text/plain": send the body as application/json (UTF-8)',
  422: "This Idempotency-Key was already used with a different request body",
  429: "Rate limit exceeded: at most 600 requests per minute; retry in 12 s",
  500: "Internal error while processing the request (request id req_4kTq9ZfY2bW1xVnD)",
  503: "Service temporarily unavailable: the database cannot be reached; retry in a few seconds (request id req_4kTq9ZfY2bW1xVnD)",
};

/** Sent on every answer that was counted against a rate limit (docs/api.md, "Rate limits"). */
const RATE_LIMIT_HEADERS = {
  "RateLimit-Limit": { description: "Requests allowed in the current calendar minute", schema: { type: "integer" } },
  "RateLimit-Remaining": {
    description: "Requests left in it (as the instance that answered counts them)",
    schema: { type: "integer" },
  },
  "RateLimit-Reset": {
    description: "Seconds until it ends and the allowance is whole again",
    schema: { type: "integer" },
  },
};

/** Whether POSTs to it take an Idempotency-Key (docs/api.md#idempotency-and-rate-limits): those of callers that own one. */
export function takesIdempotencyKey(e: Endpoint): boolean {
  return e.method === "POST" && e.caller.ownerId !== undefined;
}

/** The error statuses an endpoint answers: those of its kind of caller and input, plus its own. */
export function errorStatuses(e: Endpoint): number[] {
  const s = new Set<number>([500, 503, ...e.caller.docs.statuses, ...(e.docs.errors ?? []), ...ownErrorStatuses(e)]);
  // A JSON body: malformed or not UTF-8 (400), too large (413), not arrived in full by the deadline (408), not JSON (415).
  if (e.body) [400, 408, 413, 415].forEach((x) => s.add(x));
  if (e.query) s.add(400);
  // An Idempotency-Key that is not 1–255 printable characters is a 400, body or not.
  if (takesIdempotencyKey(e)) [400, 409, 422].forEach((x) => s.add(x));
  if (e.unavailable) s.add(404);
  return [...s].sort((a, b) => a - b);
}

/** The documented schema of an endpoint's error body for a status: its shape, with the codes it answers then. */
export function errorSchemaFor(e: Endpoint, status: number): z.ZodObject {
  const shape = e.docs.errorSchemas?.[status] ?? e.errorBody.schema(status);
  const codes = errorCodesOf(e, status);
  if (codes.length === 0) throw new Error(`${e.method} ${e.path}: no error code for status ${status}`);
  return shape.extend({ code: z.enum(codes as [string, ...string[]]).meta({ description: codeList(codes) }) });
}

/** The example's code: the endpoint's own first refusal for the status when it has an example of it, else its kind's first. */
function exampleProblem(e: Endpoint, status: number): Problem {
  const codes = errorCodesOf(e, status);
  const own = e.docs.errorExamples?.[status] ? codes.find((c) => !GENERAL_400.has(c)) : undefined;
  const code = own ?? codes[0];
  if (code !== "validation_failed") return { code };
  return { code, fields: [{ field: "value", code: "too_small", message: "must be greater than 0" }] };
}
const GENERAL_400 = new Set([
  "validation_failed",
  "malformed_json",
  "json_too_deep",
  "invalid_utf8",
  "idempotency_key_invalid",
  "invalid_request",
]);

/** An example error body, written by the endpoint's own error body function so it cannot drift. */
export function errorExampleFor(e: Endpoint, status: number): Record<string, unknown> {
  const x = e.docs.errorExamples?.[status];
  // A 403 is the caller's refusal of this endpoint's scope, worded as the caller words it.
  const refusal = status === 403 && e.scope !== undefined ? e.caller.docs.refusal?.(e.scope) : undefined;
  return e.errorBody(
    status,
    x?.message ?? refusal ?? DEFAULT_MESSAGES[status] ?? "Error",
    x?.extra,
    exampleProblem(e, status),
  );
}

/** The codes of a response, each with its meaning, as a Markdown list. */
function codeList(codes: readonly string[]): string {
  return codes.map((c) => `- \`${c}\`: ${meaningOf(c as Parameters<typeof meaningOf>[0])}`).join("\n");
}

/** The security requirement, with the endpoint's scope as the role OpenAPI 3.1 lets a requirement name. */
function securityFor(e: Endpoint): Record<string, string[]>[] {
  const scope = e.scope;
  if (scope === undefined) return e.caller.docs.security;
  return e.caller.docs.security.map((r) => Object.fromEntries(Object.keys(r).map((name) => [name, [scope]])));
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
    if (typeof out.$ref === "string" && out.$ref.startsWith("#/$defs/"))
      out.$ref = `#/components/schemas/${rename(out.$ref.slice(8))}`;
    if ((out.format === "date-time" || out.format === "uuid") && typeof out.pattern === "string") delete out.pattern;
    if (out.properties && typeof out.properties === "object") {
      const required = new Set<string>(Array.isArray(out.required) ? (out.required as string[]) : []);
      const props = out.properties as Record<string, JsonSchema>;
      for (const [name, prop] of Object.entries(props)) {
        if (prop.clientRequired === true) required.add(name);
        delete prop.clientRequired;
        if (io === "input") props[name] = enforcedInput(prop, name);
      }
      if (required.size) out.required = [...required];
    }
    return io === "input" ? enforcedInput(out) : out;
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

function curlFor(e: Endpoint): string {
  const lines = [`curl -X ${e.method} '${publicBaseUrl()}${e.path}'`];
  if (e.caller.docs.curlHeader) lines.push(`-H '${e.caller.docs.curlHeader}'`);
  if (e.docs.requestExample !== undefined)
    lines.push(
      `-H 'Content-Type: application/json'`,
      `-d '${JSON.stringify(e.docs.requestExample).replace(/'/g, "'\\''")}'`,
    );
  return lines.join(" \\\n  ");
}

export type OpenApiDocument = {
  openapi: "3.1.0";
  info: Record<string, unknown>;
  servers: { url: string; description?: string }[];
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, JsonSchema>>;
  components: { schemas: Record<string, JsonSchema>; securitySchemes: Record<string, JsonSchema> };
};

export function buildOpenApiDocument(endpoints: readonly Endpoint[]): OpenApiDocument {
  const components: Record<string, JsonSchema> = {};
  const securitySchemes: Record<string, JsonSchema> = {};
  const tags = new Set<string>(TAGS.map((t) => t.name));
  const paths: OpenApiDocument["paths"] = {};
  for (const e of endpoints) {
    const where = `${e.method} ${e.path}`;
    if (!tags.has(e.docs.tag))
      throw new Error(`${where}: unknown tag ${e.docs.tag} (add it to TAGS in lib/api/openapi.ts)`);
    Object.assign(securitySchemes, e.caller.docs.schemes);
    const parameters: JsonSchema[] = [];
    for (const name of [...e.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1])) {
      const description = e.docs.params?.[name];
      if (!description) throw new Error(`${where}: path parameter ${name} has no description in docs.params`);
      parameters.push({ name, in: "path", required: true, description, schema: { type: "string" } });
    }
    if (e.query) {
      const q = toSchema(e.query, "input", components);
      const required = new Set((q.required as string[] | undefined) ?? []);
      for (const [name, schema] of Object.entries((q.properties ?? {}) as Record<string, JsonSchema>)) {
        parameters.push({ name, in: "query", required: required.has(name), schema: enforcedQuery(name, schema) });
      }
    }
    for (const h of e.docs.headers ?? [])
      parameters.push({
        name: h.name,
        in: "header",
        required: false,
        description: h.description,
        schema: { type: "string" },
      });
    if (takesIdempotencyKey(e)) {
      parameters.push({
        name: "Idempotency-Key",
        in: "header",
        required: false,
        description:
          "Retry safely: a 2xx answer is stored for 24 h and replayed with `Idempotent-Replayed: true` for the same body; no error is stored, so the corrected body under the same key is processed. The same key with another body is a 422; a retry while the first request runs is a 409 with Retry-After. If that request died, its lease runs out (4 s, renewed while it runs; at once when its instance restarts) and the next retry either gets, replayed, the success answer for what it had already created (built from that object as it stands now), or, if it had created nothing, is processed. 1 to 255 printable ASCII characters, else a 400 (`idempotency_key_invalid`).",
        schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x21-\\x7e]+$" },
      });
    }

    const responses: Record<string, JsonSchema> = {};
    const answerHeaders = {
      "x-request-id": { description: "Request id, also in the logs", schema: { type: "string" } },
      ...RATE_LIMIT_HEADERS,
    };
    const s = e.response;
    responses[String(s.status)] =
      "schema" in s
        ? {
            description: s.description,
            headers: answerHeaders,
            content: { "application/json": { schema: toSchema(s.schema, "output", components), example: s.example } },
          }
        : s.contentType
          ? {
              description: s.description,
              headers: answerHeaders,
              content: { [s.contentType]: { schema: { type: "string", contentMediaType: s.contentType } } },
            }
          : { description: s.description, headers: answerHeaders };
    for (const status of errorStatuses(e)) {
      const codes = errorCodesOf(e, status);
      responses[String(status)] = {
        description: `${STATUS_TEXT[status] ?? "Error"}. \`code\` is one of:\n\n${codeList(codes)}`,
        "x-error-codes": codes.map((code) => ({ code, meaning: meaningOf(code) })),
        headers:
          status === 429
            ? { ...answerHeaders, "Retry-After": { description: "Seconds to wait", schema: { type: "integer" } } }
            : answerHeaders,
        content: {
          "application/json": {
            schema: toSchema(errorSchemaFor(e, status), "output", components),
            example: errorExampleFor(e, status),
          },
        },
      };
    }

    const operation: JsonSchema = {
      operationId: operationId(e.method, e.path),
      summary: e.docs.summary,
      description: e.docs.description,
      tags: [e.docs.tag],
      security: securityFor(e),
      ...(parameters.length ? { parameters } : {}),
      ...(e.body
        ? {
            requestBody: {
              // An absent body is read as {}: a body is required only when {} is not a request it takes.
              required: !e.body.safeParse({}).success,
              content: {
                "application/json": { schema: toSchema(e.body, "input", components), example: e.docs.requestExample },
              },
            },
          }
        : {}),
      responses,
      "x-codeSamples": [{ lang: "curl", source: curlFor(e) }],
    };
    (paths[e.path] ??= {})[e.method.toLowerCase()] = operation;
  }
  // Every code an endpoint answers, as one type (the SDK's ApiError.code), in the order of lib/errors-api.ts.
  const answered = new Set(endpoints.flatMap((e) => errorStatuses(e).flatMap((s) => errorCodesOf(e, s))));
  ["not_found", "method_not_allowed", "internal_error"].forEach((c) => answered.add(c as ApiErrorCode)); // the router's own
  components.ErrorCode = {
    type: "string",
    description: "Every error code an endpoint answers; each response lists its own (docs/api.md#error-codes)",
    enum: API_ERROR_CODE_LIST.filter((c) => answered.has(c)),
  };
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
    components: { schemas: components, securitySchemes },
  };
}

/** "POST /api/v1/order/create/pix" → "postOrderCreatePix" */
function operationId(method: string, path: string): string {
  const words = path
    .replace(/^\/api\/v1\//, "")
    .split(/[/.\-{}]+/)
    .filter(Boolean);
  return method.toLowerCase() + words.map((w) => w[0].toUpperCase() + w.slice(1)).join("");
}

/** GET /api/v1/openapi.json, serving the document `documentJson` gives (built from a list that includes this endpoint). */
export function openApiEndpoint(documentJson: () => string): Endpoint {
  return defineEndpoint({
    method: "GET",
    path: "/api/v1/openapi.json",
    caller: anyone,
    errorBody: messageBody,
    response: {
      status: 200,
      description: "OpenAPI 3.1 document",
      schema: z.looseObject({ openapi: z.string(), info: z.looseObject({}), paths: z.record(z.string(), z.unknown()) }),
      example: { openapi: "3.1.0", info: { title: "Payments API", version: "1.0.0" }, paths: {} },
    },
    docs: {
      summary: "This document",
      description:
        "The OpenAPI 3.1 description of every /api/v1 endpoint, generated from the zod schemas that validate requests. Rendered at /docs.",
      tag: "Meta",
    },
    async handle() {
      return new Response(documentJson(), {
        status: 200,
        headers: { "content-type": "application/json; charset=utf-8", "cache-control": "public, max-age=300" },
      });
    },
  });
}
