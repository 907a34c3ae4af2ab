import { and, eq, getTableColumns, isNull, lt, or, sql } from "drizzle-orm";
import { timingSafeEqual } from "node:crypto";
import { prepared } from "@/db/prepared";
import { apiKeys, merchants, type MerchantProfile } from "@/db/schema";
import { env } from "@/lib/env";
import { Unauthorized } from "@/lib/errors";
import { log } from "@/lib/log";
import { cacheGeneration, cachedKey, rememberKey } from "./key-cache";
import { hashApiKey, isWellFormedKey, keyPrefixFor } from "./keys";
import type { ApiScope } from "./scopes";
import type { ApiRequest } from "@/lib/http/request";
import { wallClockMs } from "@/lib/wall-clock";

/**
 * The spec shows two header forms: `Authorization: Bearer <key>` and a header literally named
 * `Bearer` holding the key. Every endpoint accepts both (docs/api.md#authentication).
 */
export function extractApiKey(req: ApiRequest): string | null {
  const authorization = req.headers.get("authorization");
  if (authorization) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization.trim());
    return match ? match[1] : "";
  }
  const bare = req.headers.get("bearer");
  if (bare !== null) return bare.trim().replace(/^Bearer\s+/i, "");
  return null;
}

// What a request may know of its merchant: every column but the balance and its bookkeeping.
const { balanceCentavos: _balance, updatedAt: _updated, ...profileColumns } = getTableColumns(merchants);

// A cache miss runs this: a prepared statement, built once per pool.
const keyLookup = () =>
  prepared("api_key_lookup", (d) =>
    d
      .select({ keyId: apiKeys.id, revokedAt: apiKeys.revokedAt, scopes: apiKeys.scopes, merchant: profileColumns })
      .from(apiKeys)
      .innerJoin(merchants, eq(merchants.id, apiKeys.merchantId))
      .where(eq(apiKeys.keyHash, sql.placeholder("hash")))
      .limit(1)
      .prepare("api_key_lookup"),
  );

// last_used_at is informative: recorded at most once a minute per key, off the request's path, and
// for every key used since the last write in one statement. One UPDATE per key had every busy key
// (2,000 in the benchmark) cost a statement built by Drizzle and a round trip each minute.
const TOUCH_EVERY_MS = 60_000;
const TOUCH_FLUSH_MS = 5_000;
// When each key was last marked, to mark it at most once a minute. An entry older than a minute
// decides nothing and is dropped at the next flush, so the map holds the keys used in the last minute
// (not every key ever used by this process); MAX_TOUCHED caps even that, past which it starts over
// (the UPDATE's own one-minute condition still keeps the writes down).
const MAX_TOUCHED = 10_000;
const lastTouched = new Map<string, number>();
const touched = new Set<string>();
let flushTimer: NodeJS.Timeout | undefined;

const touchKeys = () =>
  prepared("api_keys_touch", (d) =>
    d
      .update(apiKeys)
      .set({ lastUsedAt: sql`now()` })
      .where(
        and(
          sql`${apiKeys.id} = any(${sql.placeholder("ids")}::uuid[])`,
          or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, sql`now() - interval '1 minute'`)),
        ),
      )
      .prepare("api_keys_touch"),
  );

/** Writes the keys used since the last write now (the timer does it every few seconds; tests call it). */
export function flushKeyUsage(): Promise<void> {
  if (flushTimer) clearTimeout(flushTimer);
  flushTimer = undefined;
  const ids = [...touched];
  touched.clear();
  forgetStaleTouches(wallClockMs());
  if (ids.length === 0) return Promise.resolve();
  return touchKeys()
    .execute({ ids })
    .then(
      () => {},
      (err: unknown) => log.warn("api key last_used_at update failed", { err }),
    );
}

function forgetStaleTouches(now: number) {
  for (const [keyId, at] of lastTouched) if (at <= now - TOUCH_EVERY_MS) lastTouched.delete(keyId);
}

/** How many keys are remembered as recently marked (tests: the map stays bounded). */
export function touchedKeyCount(): number {
  return lastTouched.size;
}

function touch(keyId: string) {
  const now = wallClockMs();
  if ((lastTouched.get(keyId) ?? 0) > now - TOUCH_EVERY_MS) return;
  if (lastTouched.size >= MAX_TOUCHED) {
    forgetStaleTouches(now);
    if (lastTouched.size >= MAX_TOUCHED) lastTouched.clear();
  }
  lastTouched.set(keyId, now);
  touched.add(keyId);
  if (!flushTimer) {
    flushTimer = setTimeout(() => void flushKeyUsage(), TOUCH_FLUSH_MS);
    // Never what keeps a process alive.
    flushTimer.unref();
  }
}

export async function authenticateMerchant(req: ApiRequest): Promise<MerchantProfile> {
  return (await authenticateApiKey(req)).merchant;
}

type ApiKeyAuth = { merchant: MerchantProfile; keyId: string; scopes: readonly ApiScope[] };

/**
 * The merchant behind the request's API key, and which key it was (rate limits count per key).
 * Answers synchronously when the key is in memory, the common case, so that case awaits nothing.
 * `beforeLookup` runs (and may throw) before a key not in memory is looked up in the database.
 */
export function authenticateApiKey(req: ApiRequest, beforeLookup?: () => void): ApiKeyAuth | Promise<ApiKeyAuth> {
  const key = extractApiKey(req);
  if (key === null) {
    throw new Unauthorized("Missing API key: send the header Authorization: Bearer <API_KEY> (or Bearer: <API_KEY>)");
  }
  if (!isWellFormedKey(key)) throw new Unauthorized("Invalid API key");
  const mode = env().PAYMENTS_MODE;
  if (!key.startsWith(keyPrefixFor(mode))) {
    throw new Unauthorized(
      `Invalid API key: this is not a ${mode} key (${mode} keys start with ${keyPrefixFor(mode)})`,
    );
  }
  const hash = hashApiKey(key);
  const cached = cachedKey(hash);
  if (cached) {
    touch(cached.keyId);
    return cached;
  }
  beforeLookup?.();
  return lookupKey(hash);
}

async function lookupKey(hash: string): Promise<ApiKeyAuth> {
  const generation = cacheGeneration();
  const [row] = await keyLookup().execute({ hash });
  if (!row) throw new Unauthorized("Invalid API key");
  if (row.revokedAt) throw new Unauthorized("This API key has been revoked");
  rememberKey(hash, row.keyId, row.scopes, row.merchant, generation);
  touch(row.keyId);
  return { merchant: row.merchant, keyId: row.keyId, scopes: row.scopes };
}

export function authenticateAdmin(req: ApiRequest): boolean {
  const token = env().ADMIN_TOKEN;
  if (!token) return false;
  const given = extractApiKey(req) ?? "";
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}
