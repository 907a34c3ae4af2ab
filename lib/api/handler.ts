import type { z } from "zod";
import type { MerchantProfile } from "@/db/schema";
import { env } from "@/lib/env";
import { DomainError, NotFound, Unauthorized } from "@/lib/errors";
import { log } from "@/lib/log";
import { authenticateAdmin, authenticateApiKey } from "./auth";
import { readBodyText, parseJsonBody } from "./body";
import { bodyHash } from "./canonical-json";
import type { ErrorBody } from "./error-body";
import { newRequestId } from "./ids";
import { withRequestContext } from "@/lib/request-context";
import { claimIdempotencyKey, completeIdempotencyKey, readIdempotencyKey, releaseIdempotencyKey } from "./idempotency";
import { clientIp, enforceRateLimit, RateLimited } from "./rate-limit";
import { jsonResponseText, setResponseHeader } from "./json-response";
import { pathOf, type ApiRequest } from "./request";
import { json, jsonText } from "./respond";
import { describeZodError } from "./validation";

type RouteParams = Record<string, string | string[] | undefined>;
/** Next passes `{ params: Promise<…> }`; our own router passes the params it already holds. */
export type RouteContext = { params: Promise<RouteParams> | RouteParams };
export type RouteHandler = (req: ApiRequest, ctx: RouteContext) => Promise<Response>;

type Auth = "merchant" | "admin" | "public";

type Ctx<A extends Auth, B> = {
  req: ApiRequest;
  requestId: string;
  params: Record<string, string>;
  body: B;
  merchant: A extends "merchant" ? MerchantProfile : null;
};

type Config<A extends Auth, S extends z.ZodType | undefined> = {
  auth: A;
  errorBody: ErrorBody;
  body?: S;
  /** The on-chain lookup answers an unknown id with 400, not 404 (spec §7). */
  notFoundStatus?: number;
  /** Sandbox helpers disappear (404) in live mode. */
  sandboxOnly?: boolean;
  handle: (ctx: Ctx<A, S extends z.ZodType ? z.output<S> : undefined>) => Promise<Response>;
};

/** Statuses whose outcome is not kept for Idempotency-Key replays: a corrected retry must be able to run. */
const NOT_REPLAYED = (status: number) => status === 401 || status === 413 || status === 429 || status >= 500;

/**
 * Wraps an endpoint: request id, authentication, rate limit, body size and JSON, validation,
 * Idempotency-Key, and the mapping of every error to the endpoint's own error body. Services stay
 * free of HTTP.
 */
export function endpoint<A extends Auth, S extends z.ZodType | undefined = undefined>(config: Config<A, S>): RouteHandler {
  return (req, routeCtx) => {
    // A client-supplied id is kept only when it is short and plain, so it cannot forge log lines.
    const given = req.headers.get("x-request-id");
    const requestId = given && /^[A-Za-z0-9._:-]{1,64}$/.test(given) ? given : newRequestId();
    return withRequestContext({ requestId }, () => run(config, req, routeCtx, requestId));
  };
}

async function run<A extends Auth, S extends z.ZodType | undefined>(
  config: Config<A, S>,
  req: ApiRequest,
  routeCtx: RouteContext,
  requestId: string,
): Promise<Response> {
  const started = performance.now();
  const path = pathOf(req.url);
  let merchant: MerchantProfile | null = null;
  let idempotency: Parameters<typeof completeIdempotencyKey>[0] | null = null;

  const finish = (res: Response) => {
    setResponseHeader(res, "x-request-id", requestId);
    log.info("request", {
      method: req.method,
      path,
      status: res.status,
      ms: Math.round((performance.now() - started) * 10) / 10,
      merchantId: merchant?.id,
    });
    return res;
  };
  const fail = (status: number, message: string, extra?: Record<string, unknown>, headers?: HeadersInit) =>
    finish(json(status, config.errorBody(status, message, extra), headers));

  try {
    if (config.sandboxOnly && env().PAYMENTS_MODE !== "sandbox") {
      throw new NotFound("Sandbox helpers are not available in live mode");
    }
    if (config.auth === "merchant") {
      const authenticated = authenticateApiKey(req);
      const auth = authenticated instanceof Promise ? await authenticated : authenticated;
      merchant = auth.merchant;
      const limiting = enforceRateLimit(`key:${auth.keyId}`);
      if (limiting) await limiting;
    } else if (config.auth === "admin") {
      // Without ADMIN_TOKEN the operator API does not exist at all (CONTRACT §2).
      if (!env().ADMIN_TOKEN) throw new NotFound("Not found");
      if (!authenticateAdmin(req)) throw new Unauthorized("Invalid operator token");
    } else {
      const limiting = enforceRateLimit(`ip:${clientIp(req)}`);
      if (limiting) await limiting;
    }

    let body: unknown = undefined;
    let raw: unknown = undefined;
    if (config.body) {
      const text = readBodyText(req);
      raw = parseJsonBody(typeof text === "string" ? text : await text);
      const parsed = config.body.safeParse(raw);
      if (!parsed.success) return fail(400, describeZodError(parsed.error));
      body = parsed.data;
    }

    const key = req.method === "POST" && merchant ? readIdempotencyKey(req) : null;
    if (key && merchant) {
      const scope = { merchantId: merchant.id, key, method: req.method, path, bodyHash: bodyHash(raw ?? {}) };
      const claim = await claimIdempotencyKey(scope);
      if (claim.kind === "replay") {
        return finish(jsonText(claim.status, claim.body, { "idempotent-replayed": "true" }));
      }
      idempotency = scope;
    }

    const given = routeCtx?.params ?? {};
    const rawParams = given instanceof Promise ? await given : given;
    const params = Object.fromEntries(
      Object.entries(rawParams ?? {}).map(([k, v]) => [k, Array.isArray(v) ? v.join("/") : (v ?? "")]),
    );
    const res = await config.handle({ req, requestId, params, body, merchant } as Ctx<A, never>);
    if (idempotency) {
      if (NOT_REPLAYED(res.status)) {
        await releaseIdempotencyKey(idempotency);
      } else {
        const text = jsonResponseText(res) ?? (await res.clone().text());
        await completeIdempotencyKey(idempotency, res.status, text);
      }
    }
    return finish(res);
  } catch (err) {
    const failed = idempotency;
    const domain = err instanceof DomainError;
    const status = domain ? (err instanceof NotFound && config.notFoundStatus ? config.notFoundStatus : err.status) : 500;
    if (failed) {
      // A domain refusal (insufficient balance, limit) is an outcome and is replayed; anything
      // unexpected releases the key so the client can retry.
      const replayable = domain && !NOT_REPLAYED(status);
      try {
        if (replayable) await completeIdempotencyKey(failed, status, JSON.stringify(config.errorBody(status, (err as Error).message, (err as DomainError).extra)));
        else await releaseIdempotencyKey(failed);
      } catch (storeErr) {
        log.error("idempotency bookkeeping failed", { err: storeErr });
      }
    }
    if (err instanceof RateLimited) {
      return fail(429, err.message, undefined, { "retry-after": String(err.retryAfterSeconds) });
    }
    if (domain) return fail(status, err.message, err.extra);
    log.error("unhandled error in API handler", { path, err });
    return fail(500, `Internal error while processing the request (request id ${requestId})`);
  }
}
