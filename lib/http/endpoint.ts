import type { z } from "zod";
import { env } from "@/lib/env";
import { DomainError, NotFound } from "@/lib/errors";
import { apiErrorCode, RequestRefused, type ApiErrorCode } from "@/lib/errors-api";
import { IdempotencyKeyBusy, type IdempotentResource } from "@/lib/idempotency-binding";
import { newRequestId } from "@/lib/ids";
import { log } from "@/lib/log";
import { withRequestContext, type RequestContext } from "@/lib/request-context";
import { processSingleton } from "@/lib/singleton";
import { bodyTimedOut, parseJsonBody, readBodyText, refuseNonJsonContentType } from "./body";
import { arrivalOf, INCOMPLETE_BODY, knownRequestBody } from "./body-cache";
import type { ErrorBody, Problem } from "./error-body";
import { openIdempotencyKey, type HeldKey } from "./idempotent-request";
import { setResponseHeader } from "./json-response";
import { enforceRateLimit, RateLimited } from "./rate-limit";
import { databaseKnownDown, noteDatabaseUnreachable } from "./database-circuit";
import { databaseUnavailable, RESTARTING, ServiceUnavailable, UNREACHABLE } from "./unavailable";
import { pathOf, type ApiRequest } from "./request";
import { json } from "./respond";
import { withSecurityHeaders } from "./security-headers";
import { refuseUnstorableText, storablePathParams, validationRefusal } from "./validation";

// One declaration per endpoint: its method and path, who may call it, its error body, the schemas
// of what it reads and answers, its documentation, and what it does. The router (./router.ts) is
// built from the list of these, and so is the OpenAPI document; nothing about an endpoint is written
// anywhere else. The wrapper runs every request the same way: request id, availability,
// authentication, rate limit, body size and JSON, validation, Idempotency-Key, and the mapping of
// every error to the endpoint's own error body. Services stay free of HTTP.

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * Who may call an endpoint. The principal's fields are spread into the handler's context. `N` is what
 * each endpoint of this caller declares it needs beyond being who the caller is (an API key: its
 * scope, lib/identity/api-keys/scopes.ts); a caller without one has none to declare.
 */
export type Caller<P extends object, N extends string = never> = {
  /** Throws a DomainError (401, 403, 404) to refuse. Synchronous where it can be: most requests then await nothing. */
  authenticate(req: ApiRequest, need: N): P | Promise<P>;
  /** The rate-limit bucket of an admitted request; undefined: not limited. */
  rateLimitBucket?(principal: P, req: ApiRequest): string | undefined;
  /** Requests per minute per bucket when not RATE_LIMIT_PER_MINUTE (0: not limited). */
  rateLimitPerMinute?(): number;
  /** Whose Idempotency-Key namespace a POST belongs to (and who the log line names); absent: no Idempotency-Key. */
  ownerId?(principal: P): string;
  /** For the OpenAPI document: the security requirement, its schemes, and the statuses this kind of caller can meet. */
  docs: {
    security: Record<string, string[]>[];
    schemes: Record<string, Record<string, unknown>>;
    statuses: readonly number[];
    curlHeader?: string;
    /** The 403 a request without `need` gets, for the document's example. */
    refusal?: (need: N) => string;
  };
};

export type JsonSuccess<R extends z.ZodType> = { status: number; description: string; schema: R; example: unknown };
/** A body that is not JSON (an image), or none (204). */
export type OtherSuccess = { status: number; description: string; contentType?: string };

export type EndpointDocs = {
  summary: string;
  description: string;
  tag: string;
  /** Path parameters by name (every {name} in the path needs one). */
  params?: Record<string, string>;
  /** Extra request headers beyond Idempotency-Key. */
  headers?: { name: string; description: string }[];
  /** A request the API accepts: sent through the real handler by tests/openapi.test.ts. */
  requestExample?: unknown;
  /** Statuses beyond those every endpoint of its kind answers. */
  errors?: number[];
  /** Where the endpoint's error body adds fields for a status (the spec's rows). */
  errorSchemas?: Partial<Record<number, z.ZodObject>>;
  /** A realistic message (and extra fields) per status for the examples. */
  errorExamples?: Partial<Record<number, { message: string; extra?: Record<string, unknown> }>>;
};

type Output<S> = S extends z.ZodType ? z.output<S> : undefined;
type SuccessBody<R> = R extends z.ZodType ? z.output<R> : never;

export type HandlerContext<P extends object, B, Q> = P & {
  req: ApiRequest;
  requestId: string;
  params: Record<string, string>;
  body: Output<B>;
  query: Output<Q>;
};

export type EndpointConfig<
  P extends object,
  B extends z.ZodType | undefined,
  Q extends z.ZodType | undefined,
  R extends z.ZodType | undefined,
  N extends string = never,
> = {
  method: HttpMethod;
  /** As the spec writes it: /api/v1/order/{id}. */
  path: string;
  caller: Caller<P, N>;
  errorBody: ErrorBody;
  body?: B;
  query?: Q;
  response: R extends z.ZodType ? JsonSuccess<R> : OtherSuccess;
  /** Why the endpoint does not exist in this configuration (answered 404), or null when it does. */
  unavailable?: () => string | null;
  /** The status an unknown object answers with, when the spec says other than 404 (the on-chain lookup: 400). */
  notFoundStatus?: number;
  /** Path parameters that are secrets (the token in a provider's notification URL): logged as [redacted]. */
  secretParams?: readonly string[];
  docs: EndpointDocs;
  /** Returns the response body (sent as JSON with `response.status`) or a Response of its own. */
  handle(ctx: HandlerContext<P, B, Q>): Promise<SuccessBody<R> | Response>;
  /**
   * Required of every POST that takes an Idempotency-Key. Its handler's services bind the key to what
   * they commit (lib/idempotency-binding.ts); when the request died after that commit and before its
   * response was stored, a retry gets, instead of a second run, what this builds from the bound
   * resource (as it stands now), with `response.status`. Same context as the handler's (the retry's
   * body is the original's: the key guarantees it).
   */
  replay?(ctx: HandlerContext<P, B, Q> & { resource: IdempotentResource }): Promise<SuccessBody<R>>;
} & NeedOf<N>;

/** What the endpoint needs of its caller (an API key's scope): required where the caller checks one. */
type NeedOf<N extends string> = [N] extends [never] ? { scope?: undefined } : { scope: N };

/** An endpoint as the router and the OpenAPI document see it. */
export type Endpoint = {
  readonly method: HttpMethod;
  readonly path: string;
  readonly caller: Caller<object, string>;
  /** What the caller must hold for this endpoint (an API key's scope), or undefined. */
  readonly scope?: string;
  readonly errorBody: ErrorBody;
  readonly body?: z.ZodType;
  readonly query?: z.ZodType;
  readonly response: JsonSuccess<z.ZodType> | OtherSuccess;
  readonly unavailable?: () => string | null;
  readonly docs: EndpointDocs;
  /** Whether a request with an Idempotency-Key that committed and died can be answered from what it committed (`replay`). */
  readonly replays: boolean;
  /** Runs one request whose path matched, with its decoded path parameters. Never rejects. */
  readonly serve: (req: ApiRequest, params: Record<string, string>) => Promise<Response>;
};

export function defineEndpoint<
  P extends object,
  B extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  R extends z.ZodType | undefined = undefined,
  N extends string = never,
>(config: EndpointConfig<P, B, Q, R, N>): Endpoint {
  const def = config as unknown as Definition;
  return {
    method: def.method,
    path: def.path,
    caller: def.caller,
    scope: def.scope,
    errorBody: def.errorBody,
    body: def.body,
    query: def.query,
    response: def.response,
    unavailable: def.unavailable,
    docs: def.docs,
    replays: def.replay !== undefined,
    serve: (req, params) => {
      // A client-supplied id is kept only when it is short and plain, so it cannot forge log lines.
      const given = req.headers.get("x-request-id");
      const requestId = given && /^[A-Za-z0-9._:-]{1,64}$/.test(given) ? given : newRequestId();
      const context: RequestContext = { requestId };
      return withRequestContext(context, () => run(def, req, params, context));
    },
  };
}

/** The configuration with its types erased: what run() needs. */
type Definition = {
  method: HttpMethod;
  path: string;
  caller: Caller<Record<string, unknown>, string>;
  scope?: string;
  errorBody: ErrorBody;
  body?: z.ZodType;
  query?: z.ZodType;
  response: JsonSuccess<z.ZodType> | OtherSuccess;
  unavailable?: () => string | null;
  notFoundStatus?: number;
  secretParams?: readonly string[];
  docs: EndpointDocs;
  handle(ctx: Record<string, unknown>): Promise<unknown>;
  replay?(ctx: Record<string, unknown>): Promise<unknown>;
};

async function run(
  def: Definition,
  req: ApiRequest,
  params: Record<string, string>,
  context: RequestContext,
): Promise<Response> {
  const { requestId } = context;
  const started = performance.now();
  const path = pathOf(req.url);
  const loggedPath = def.secretParams ? maskedPath(def.path, params, def.secretParams) : path;
  let owner: string | undefined;
  let held: HeldKey | null = null;
  // While the body is still arriving, the deadline's answer is a 408, not the 503 of work that may complete.
  let readingBody = false;

  const finish = (res: Response) => {
    setResponseHeader(res, "x-request-id", requestId);
    // The allowance this request was counted against (docs/api.md, "Rate limits"); none when no
    // limit applied, e.g. a request refused before its caller was known.
    const quota = context.rateLimit;
    if (quota) {
      setResponseHeader(res, "ratelimit-limit", String(quota.limit));
      setResponseHeader(res, "ratelimit-remaining", String(quota.remaining));
      setResponseHeader(res, "ratelimit-reset", String(quota.resetSeconds));
    }
    withSecurityHeaders(res);
    log.request({
      requestId,
      method: req.method,
      path: loggedPath,
      status: res.status,
      ms: Math.round((performance.now() - started) * 10) / 10,
      merchantId: owner,
    });
    return res;
  };
  const fail = (
    status: number,
    message: string,
    problem: Problem,
    extra?: Record<string, unknown>,
    headers?: HeadersInit,
  ) => {
    noteErrorCode(def, status, problem.code);
    return finish(json(status, def.errorBody(status, message, extra, problem), headers));
  };

  // The whole request (authentication, the Idempotency-Key claim, the handler, its bookkeeping) runs
  // here and never rejects; the client gets its answer, or a 503 at REQUEST_DEADLINE_MS while it goes
  // on and stores its outcome under the Idempotency-Key, for the client's retry.
  const process = async (): Promise<Response> => {
    try {
      const absent = def.unavailable?.();
      if (absent) throw new NotFound(absent);
      if (databaseKnownDown())
        throw new ServiceUnavailable(
          `Service temporarily unavailable: ${UNREACHABLE}; retry in a few seconds (request id ${requestId})`,
          2,
        );
      const caller = def.caller;
      // The endpoint's scope; undefined for callers that check none (and so never read it).
      // Each step below answers synchronously on the common path and is awaited only when it did not:
      // an await of a plain value still makes a promise and costs a turn of the microtask queue.
      const authenticated = caller.authenticate(req, def.scope as string);
      const principal = authenticated instanceof Promise ? await authenticated : authenticated;
      owner = caller.ownerId?.(principal);
      const bucket = caller.rateLimitBucket?.(principal, req);
      const limiting = bucket === undefined ? undefined : enforceRateLimit(bucket, caller.rateLimitPerMinute?.());
      if (limiting) await limiting;

      readingBody = true;
      const input = readInput(def, req);
      const { body, query, raw } = input instanceof Promise ? await input : input;
      readingBody = false;

      // Principals never use these five names.
      const ctx = { ...principal, req, requestId, params: storablePathParams(params), body, query };
      const opening = openIdempotencyKey(req, owner, path, raw);
      const opened = opening instanceof Promise ? await opening : opening;
      if (opened.kind === "replay") return finish(opened.response);
      if (opened.kind !== "none") held = opened.key;
      if (opened.kind === "committed") {
        // The request that held the key committed its resource and died before answering: the answer
        // is rebuilt from that resource and stored, and the handler does not run a second time.
        if (!def.replay) throw new Error(`${def.method} ${def.path} has a committed Idempotency-Key but no replay`);
        const rebuilt = json(def.response.status, await def.replay({ ...ctx, resource: opened.resource }), {
          "idempotent-replayed": "true",
        });
        await opened.key.answered(rebuilt);
        return finish(rebuilt);
      }

      const result = held ? await held.holdDuring(context, () => def.handle(ctx)) : await def.handle(ctx);
      const res = result instanceof Response ? result : json(def.response.status, result);
      if (held) await held.answered(res);
      return finish(res);
    } catch (err) {
      const domain = err instanceof DomainError;
      const status = domain ? (err instanceof NotFound && def.notFoundStatus ? def.notFoundStatus : err.status) : 500;
      const problem: Problem = {
        code: apiErrorCode(err, status),
        ...(err instanceof RequestRefused && err.fields ? { fields: err.fields } : {}),
      };
      // No refusal or failure is kept under the key (./idempotent-request.ts): it wrote nothing, and
      // the client's corrected retry with the same key must run.
      if (held) await held.failed();
      if (err instanceof RateLimited) {
        return fail(429, err.message, problem, undefined, { "retry-after": String(err.retryAfterSeconds) });
      }
      // The client is still sending what will not be read: the connection closes after the answer.
      if (status === 408) return fail(408, (err as Error).message, problem, undefined, { connection: "close" });
      if (err instanceof ServiceUnavailable || err instanceof IdempotencyKeyBusy)
        return fail(status, err.message, problem, err.extra, { "retry-after": String(err.retryAfterSeconds) });
      if (domain) return fail(status, err.message, problem, err.extra);
      const down = databaseUnavailable(err);
      if (down) {
        if (down === UNREACHABLE || down === RESTARTING) noteDatabaseUnreachable();
        log.warn("API request refused: database unavailable", {
          path: loggedPath,
          reason: down,
          code: (err as { code?: string }).code,
        });
        return fail(
          503,
          `Service temporarily unavailable: ${down}; retry in a few seconds (request id ${requestId})`,
          { code: "service_unavailable" },
          undefined,
          { "retry-after": "2" },
        );
      }
      log.error("unhandled error in API handler", { path: loggedPath, err });
      return fail(500, `Internal error while processing the request (request id ${requestId})`, {
        code: "internal_error",
      });
    }
  };
  const ms = env().REQUEST_DEADLINE_MS;
  if (ms === 0) return process();
  // Counted from the request's arrival: reading its body before it reached the router took part of it.
  const arrived = arrivalOf(req);
  const left = arrived === undefined ? ms : Math.max(0, ms - (performance.now() - arrived));
  // Whichever comes first answers: the request's own response, or the deadline's. One promise, not a
  // race of two and a finally (three more promises, and their reactions, on every request).
  return new Promise<Response>((resolve, reject) => {
    const timer = setTimeout(() => {
      if (readingBody || knownRequestBody(req) === INCOMPLETE_BODY) {
        const timedOut = bodyTimedOut();
        resolve(fail(408, timedOut.message, { code: "request_timeout" }, undefined, { connection: "close" }));
        return;
      }
      log.warn("API request past its deadline", { path: loggedPath, ms });
      // A database that went silent (a partition) fails nothing, it only never answers.
      noteDatabaseUnreachable();
      resolve(
        fail(
          503,
          `The request did not finish within ${ms} ms and may still complete: retry with the same Idempotency-Key, or read it back (request id ${requestId})`,
          { code: "service_unavailable" },
          undefined,
          {
            "retry-after": "2",
          },
        ),
      );
    }, left);
    // process() is written never to reject; should it, the caller sees it, as Promise.race let it.
    process().then(
      (res) => {
        clearTimeout(timer);
        resolve(res);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

/** The body and query as the handler reads them, and the body as sent (`raw`, for the Idempotency-Key). */
type Input = { body: unknown; query: unknown; raw: unknown };

/**
 * Reads, parses and validates the body and the query; throws the 400 (or 413) that refuses them.
 * Synchronous unless the body has still to arrive.
 */
function readInput(def: Definition, req: ApiRequest): Input | Promise<Input> {
  if (!def.body) return validateInput(def, req, undefined);
  refuseNonJsonContentType(req);
  const text = readBodyText(req);
  return typeof text === "string"
    ? validateInput(def, req, parseJsonBody(text))
    : text.then((t) => validateInput(def, req, parseJsonBody(t)));
}

function validateInput(def: Definition, req: ApiRequest, raw: unknown): Input {
  let body: unknown = undefined;
  if (def.body) {
    refuseUnstorableText(raw, "body");
    const parsed = def.body.safeParse(raw);
    if (!parsed.success) throw validationRefusal(parsed.error, "body", raw);
    body = parsed.data;
  }
  let query: unknown = undefined;
  if (def.query) {
    const given = Object.fromEntries(new URL(req.url).searchParams);
    refuseUnstorableText(given, "query");
    const parsed = def.query.safeParse(given);
    if (!parsed.success) throw validationRefusal(parsed.error, "query", given);
    query = parsed.data;
  }
  return { body, query, raw };
}

// Every (endpoint, status, code) this process has answered, so tests can hold the OpenAPI document to
// what the endpoints really answer (tests/setup-env.ts): a few hundred strings at most, never per request.
const answered = processSingleton("api.answered-error-codes", () => new Set<string>());

function noteErrorCode(def: Definition, status: number, code: ApiErrorCode): void {
  answered.add(`${def.method} ${def.path} ${status} ${code}`);
}

/** "METHOD path status code" for every error answered so far. */
export function answeredErrorCodes(): ReadonlySet<string> {
  return answered;
}

/** The request's path as logged: the template with its parameters, the secret ones masked. */
function maskedPath(template: string, params: Record<string, string>, secret: readonly string[]): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) =>
    secret.includes(name) ? "[redacted]" : encodeURIComponent(params[name] ?? ""),
  );
}
