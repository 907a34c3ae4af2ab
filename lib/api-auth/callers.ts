import type { ApiKeyScope, MerchantProfile } from "@/db/schema";
import { env } from "@/lib/env";
import { Forbidden, NotFound, Unauthorized } from "@/lib/errors";
import type { Caller } from "@/lib/http/endpoint";
import { clientIp } from "@/lib/http/rate-limit";
import type { ApiRequest } from "@/lib/http/request";
import { authenticateAdmin, authenticateApiKey } from "./authenticate";

// The three kinds of caller of /api/v1, as endpoints declare them.

type KeyPrincipal = { merchant: MerchantProfile; keyId: string; scope: ApiKeyScope };

// A read-only key may read; anything else it sends is refused before the body is even parsed.
const READS = new Set(["GET", "HEAD", "OPTIONS"]);
function scoped(req: ApiRequest, p: KeyPrincipal): KeyPrincipal {
  if (p.scope === "read" && !READS.has(req.method)) throw new Forbidden("This API key is read-only: use a key with full access to make changes");
  return p;
}

/** A merchant's API key, in either header form the spec shows (CONTRACT §3); rate-limited per key. */
export const merchantKey: Caller<KeyPrincipal> = {
  authenticate(req) {
    const p = authenticateApiKey(req);
    return p instanceof Promise ? p.then((r) => scoped(req, r)) : scoped(req, p);
  },
  rateLimitBucket: (p) => `key:${p.keyId}`,
  ownerId: (p) => p.merchant.id,
  docs: {
    security: [{ bearerAuth: [] }, { bearerHeader: [] }],
    schemes: {
      bearerAuth: { type: "http", scheme: "bearer", description: "`Authorization: Bearer sk_test_…` (or sk_live_…)" },
      bearerHeader: { type: "apiKey", in: "header", name: "Bearer", description: "The API key in a header named `Bearer`, as the spec's deposit sample sends it" },
    },
    statuses: [401, 403, 429],
    curlHeader: "Authorization: Bearer sk_test_…",
  },
};

const NOBODY = Object.freeze({});

/** The operator, with ADMIN_TOKEN; without it the operator API does not exist at all (CONTRACT §2). */
export const operator: Caller<object> = {
  authenticate(req) {
    if (!env().ADMIN_TOKEN) throw new NotFound("Not found");
    if (!authenticateAdmin(req)) throw new Unauthorized("Invalid operator token");
    return NOBODY;
  },
  docs: {
    security: [{ adminToken: [] }],
    schemes: { adminToken: { type: "http", scheme: "bearer", description: "`Authorization: Bearer <ADMIN_TOKEN>` (operator API)" } },
    statuses: [401, 404],
    curlHeader: "Authorization: Bearer <ADMIN_TOKEN>",
  },
};

/** Anyone (payer pages, the OpenAPI document); rate-limited per client address. */
export const anyone: Caller<object> = {
  authenticate: () => NOBODY,
  rateLimitBucket: (_p, req) => `ip:${clientIp(req)}`,
  docs: { security: [], schemes: {}, statuses: [429] },
};
