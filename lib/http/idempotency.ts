import { randomUUID } from "node:crypto";
import { and, eq, lt, sql } from "drizzle-orm";
import { db } from "@/db";
import { idempotencyKeys } from "@/db/schema";
import { Conflict, DomainError, InvalidInput } from "@/lib/errors";
import { log } from "@/lib/log";
import type { ApiRequest } from "./request";

// Idempotency-Key (CONTRACT §9): the first request with a key runs; a retry with the same key and the
// same body gets the stored response back; another body is a 422; a retry while the first is still
// running is a 409. The claim is one INSERT … ON CONFLICT DO NOTHING, so of two copies arriving at
// the same moment exactly one runs: a withdrawal retried this way is never paid twice.
//
// A claim in flight is a lease, not a lock held for the key's 24 h: its holder renews it while the
// handler runs, and a claim whose lease ran out belongs to a request whose process died. A retry then
// takes the key over with one conditional UPDATE (of two racing retries, the row lock lets one through)
// and runs; the dead request's late writes, should it come back, name a claim that is no longer its own
// and change nothing. What the dead request committed before dying is not undone: a retry after its
// lease runs again like a retry without a key (docs/api.md says so).

const TTL_HOURS = 24;
/**
 * How long a claim holds without renewal. Requests have no deadline of their own, but every call they
 * make does (provider calls 10 s by default, retried at most twice), and the holder renews every
 * quarter of the lease, so only a holder that stopped running loses it.
 */
export const IDEMPOTENCY_LEASE_SECONDS = 60;
const RENEW_EVERY_MS = (IDEMPOTENCY_LEASE_SECONDS * 1000) / 4;
export const IDEMPOTENCY_HEADER = "idempotency-key";

export class IdempotencyMismatch extends DomainError {
  override readonly status: number = 422;
}

export type IdempotencyScope = { merchantId: string; key: string; method: string; path: string; bodyHash: string };
/** A key this request holds: its scope and the claim's own id, which every later write names. */
export type IdempotencyClaim = IdempotencyScope & { claimId: string };
export type Claim = { kind: "claimed"; claim: IdempotencyClaim } | { kind: "replay"; status: number; body: string };

export function readIdempotencyKey(req: ApiRequest): string | null {
  const key = req.headers.get(IDEMPOTENCY_HEADER);
  if (key === null) return null;
  const trimmed = key.trim();
  if (trimmed.length < 1 || trimmed.length > 255 || !/^[\x21-\x7e]+$/.test(trimmed)) {
    throw new InvalidInput("Idempotency-Key must be 1 to 255 printable ASCII characters");
  }
  return trimmed;
}

const where = (s: IdempotencyScope) =>
  and(eq(idempotencyKeys.merchantId, s.merchantId), eq(idempotencyKeys.key, s.key), eq(idempotencyKeys.method, s.method), eq(idempotencyKeys.path, s.path));
/** The claim's row, still in flight and still this claim's. */
const held = (c: IdempotencyClaim) => and(where(c), eq(idempotencyKeys.state, "in_flight"), eq(idempotencyKeys.claimId, c.claimId));
const leaseEnd = sql`now() + make_interval(secs => ${IDEMPOTENCY_LEASE_SECONDS})`;
/** Rows written before leases existed have none: theirs is counted from their creation. */
const leaseRanOut = sql`coalesce(${idempotencyKeys.leaseUntil}, ${idempotencyKeys.createdAt} + make_interval(secs => ${IDEMPOTENCY_LEASE_SECONDS})) < now()`;

export async function claimIdempotencyKey(s: IdempotencyScope): Promise<Claim> {
  const claim: IdempotencyClaim = { ...s, claimId: randomUUID() };
  for (let attempt = 0; attempt < 3; attempt++) {
    const inserted = await db()
      .insert(idempotencyKeys)
      .values({ ...s, state: "in_flight", claimId: claim.claimId, leaseUntil: leaseEnd, expiresAt: sql`now() + make_interval(hours => ${TTL_HOURS})` })
      .onConflictDoNothing()
      .returning({ key: idempotencyKeys.key });
    if (inserted.length > 0) return { kind: "claimed", claim };
    const [row] = await db().select().from(idempotencyKeys).where(where(s));
    if (!row) continue; // released between our insert and select: try again
    if (row.expiresAt.getTime() < Date.now()) {
      await db()
        .delete(idempotencyKeys)
        .where(and(where(s), lt(idempotencyKeys.expiresAt, sql`now()`)));
      continue;
    }
    if (row.bodyHash !== s.bodyHash) {
      throw new IdempotencyMismatch("This Idempotency-Key was already used with a different request body");
    }
    if (row.state === "in_flight") {
      const taken = await db()
        .update(idempotencyKeys)
        .set({ claimId: claim.claimId, leaseUntil: leaseEnd })
        .where(and(where(s), eq(idempotencyKeys.state, "in_flight"), leaseRanOut))
        .returning({ key: idempotencyKeys.key });
      if (taken.length > 0) {
        log.warn("Idempotency-Key taken over: the request holding it stopped renewing its lease", { path: s.path, merchantId: s.merchantId });
        return { kind: "claimed", claim };
      }
      throw new Conflict("A request with this Idempotency-Key is still being processed; retry later");
    }
    return { kind: "replay", status: row.responseStatus ?? 200, body: row.responseBody ?? "" };
  }
  throw new Conflict("A request with this Idempotency-Key is still being processed; retry later");
}

/** Extends the lease; false when the claim is no longer this request's (it was taken over or released). */
export async function renewIdempotencyClaim(c: IdempotencyClaim): Promise<boolean> {
  const rows = await db().update(idempotencyKeys).set({ leaseUntil: leaseEnd }).where(held(c)).returning({ key: idempotencyKeys.key });
  return rows.length > 0;
}

/** Renews the lease every quarter of it while the handler runs; the returned function stops it. */
export function keepIdempotencyClaim(c: IdempotencyClaim, everyMs = RENEW_EVERY_MS): () => void {
  const timer = setInterval(() => {
    renewIdempotencyClaim(c).then(
      (kept) => {
        if (!kept) {
          clearInterval(timer);
          log.warn("Idempotency-Key lease lost while its request was still running", { path: c.path, merchantId: c.merchantId });
        }
      },
      (err: unknown) => log.error("Idempotency-Key lease renewal failed", { err }),
    );
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** Stores the outcome for replays, if the claim is still this request's. */
export async function completeIdempotencyKey(c: IdempotencyClaim, status: number, body: string): Promise<void> {
  const rows = await db()
    .update(idempotencyKeys)
    .set({ state: "done", responseStatus: status, responseBody: body, leaseUntil: null })
    .where(held(c))
    .returning({ key: idempotencyKeys.key });
  if (rows.length === 0) log.warn("Idempotency-Key outcome not stored: the claim was taken over meanwhile", { path: c.path, merchantId: c.merchantId });
}

/** Forgets the claim, so a corrected retry with the same key can run (validation errors, 429, 5xx). */
export async function releaseIdempotencyKey(c: IdempotencyClaim): Promise<void> {
  await db().delete(idempotencyKeys).where(held(c));
}

/** Old keys are deleted by the sweep. */
export async function purgeExpiredIdempotencyKeys(): Promise<number> {
  const rows = await db()
    .delete(idempotencyKeys)
    .where(lt(idempotencyKeys.expiresAt, sql`now()`))
    .returning({ key: idempotencyKeys.key });
  return rows.length;
}
