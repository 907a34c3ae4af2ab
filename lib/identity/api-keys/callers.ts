import type { MerchantProfile } from "@/db/schema";
import { env } from "@/lib/env";
import { Forbidden, NotFound, Unauthorized } from "@/lib/errors";
import { addressBucket, clientAddress } from "@/lib/http/client-address";
import type { Caller } from "@/lib/http/endpoint";
import type { ApiRequest } from "@/lib/http/request";
import { checkRateLimit, enforceRateLimit, reportRateLimit } from "@/lib/http/rate-limit";
import { authenticateAdmin, authenticateApiKey } from "./authenticate";
import type { ApiScope } from "./scopes";

// The three kinds of caller of /api/v1, as endpoints declare them, and the per-address limits that
// apply before a caller is known (docs/api.md#rate-limits): failed API-key authentication and the operator API,
// each at RATE_LIMIT_PER_MINUTE per client address.

type KeyPrincipal = { merchant: MerchantProfile; keyId: string; scopes: readonly ApiScope[] };

const failedAuthBucket = (req: ApiRequest) => `authfail:${addressBucket(clientAddress(req.headers))}`;

/**
 * A failed authentication counts against the client's address; past the limit the client gets 429
 * rather than 401, and a key not in memory is no longer looked up in the database (the expensive
 * part) at all. A key served from memory always passes: a neighbour behind the same address cannot
 * lock a working integration out.
 */
function authenticateKey(req: ApiRequest): KeyPrincipal | Promise<KeyPrincipal> {
  let result: KeyPrincipal | Promise<KeyPrincipal>;
  try {
    result = authenticateApiKey(req, () => checkRateLimit(failedAuthBucket(req)));
  } catch (err) {
    return countFailure(req, err);
  }
  return result instanceof Promise ? result.catch((err: unknown) => countFailure(req, err)) : result;
}

/** Rethrows `err`, or RateLimited when this failure is over the address's allowance. */
function countFailure(req: ApiRequest, err: unknown): Promise<never> {
  if (err instanceof Unauthorized) {
    const limiting = enforceRateLimit(failedAuthBucket(req));
    if (limiting) return limiting.then(() => Promise.reject(err));
  }
  throw err;
}

/** The 403 of a key without the endpoint's scope: names the scope, so the merchant knows which key to make. */
export function missingScopeMessage(scope: ApiScope): string {
  return `This API key does not have the ${scope} scope this endpoint needs: create a key with it on the Developers page`;
}

// Checked before the rate limit and before the body is even parsed: a key without the scope costs
// nothing more than a lookup in memory.
function scoped(p: KeyPrincipal, scope: ApiScope): KeyPrincipal {
  if (!p.scopes.includes(scope)) {
    reportRateLimit(keyBucket(p.keyId));
    throw new Forbidden(missingScopeMessage(scope));
  }
  return p;
}

/**
 * A key's bucket is the same string object every time: the limiter's Map hashes a string once and
 * keeps the hash on it, and a `key:${id}` made per request was hashed anew each time.
 */
const keyBuckets = new Map<string, string>();
function keyBucket(keyId: string): string {
  let bucket = keyBuckets.get(keyId);
  if (bucket === undefined) {
    if (keyBuckets.size >= 100_000) keyBuckets.clear();
    keyBuckets.set(keyId, (bucket = `key:${keyId}`));
  }
  return bucket;
}

/**
 * A merchant's API key, in either header form the spec shows (docs/api.md, "Authentication"), holding
 * the scope the endpoint declares; rate-limited per key.
 */
export const merchantKey: Caller<KeyPrincipal, ApiScope> = {
  authenticate(req, scope) {
    const p = authenticateKey(req);
    return p instanceof Promise ? p.then((r) => scoped(r, scope)) : scoped(p, scope);
  },
  rateLimitBucket: (p) => keyBucket(p.keyId),
  ownerId: (p) => p.merchant.id,
  docs: {
    security: [{ bearerAuth: [] }, { bearerHeader: [] }],
    schemes: {
      bearerAuth: { type: "http", scheme: "bearer", description: "`Authorization: Bearer sk_test_…` (or sk_live_…)" },
      bearerHeader: {
        type: "apiKey",
        in: "header",
        name: "Bearer",
        description: "The API key in a header named `Bearer`, as the spec's deposit sample sends it",
      },
    },
    statuses: [401, 403, 429],
    curlHeader: "Authorization: Bearer sk_test_…",
    refusal: missingScopeMessage,
  },
};

const NOBODY = Object.freeze({});

function admitOperator(req: ApiRequest): object {
  if (!authenticateAdmin(req)) throw new Unauthorized("Invalid operator token");
  return NOBODY;
}

/** The operator, with ADMIN_TOKEN; without it the operator API does not exist at all (docs/api.md#operator-api). */
export const operator: Caller<object> = {
  authenticate(req) {
    if (!env().ADMIN_TOKEN) throw new NotFound("Not found");
    // Every operator request counts, whether its token is right or not.
    const limiting = enforceRateLimit(`op:${addressBucket(clientAddress(req.headers))}`);
    return limiting ? limiting.then(() => admitOperator(req)) : admitOperator(req);
  },
  docs: {
    security: [{ adminToken: [] }],
    schemes: {
      adminToken: {
        type: "http",
        scheme: "bearer",
        description: "`Authorization: Bearer <ADMIN_TOKEN>` (operator API)",
      },
    },
    statuses: [401, 404, 429],
    curlHeader: "Authorization: Bearer <ADMIN_TOKEN>",
  },
};

/** Anyone (payer pages, the OpenAPI document); rate-limited per client address. */
export const anyone: Caller<object> = {
  authenticate: () => NOBODY,
  rateLimitBucket: (_p, req) => `ip:${addressBucket(clientAddress(req.headers))}`,
  docs: { security: [], schemes: {}, statuses: [429] },
};
