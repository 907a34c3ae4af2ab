import { and, eq, lt, sql } from "drizzle-orm";
import { db } from "@/db";
import { idempotencyKeys } from "@/db/schema";
import { Conflict, DomainError, InvalidInput } from "@/lib/errors";
import type { ApiRequest } from "./request";

// Idempotency-Key (CONTRACT §9): the first request with a key runs; a retry with the same key and the
// same body gets the stored response back; another body is a 422; a retry while the first is still
// running is a 409. The claim is one INSERT … ON CONFLICT DO NOTHING, so of two copies arriving at
// the same moment exactly one runs: a withdrawal retried this way is never paid twice.

const TTL_HOURS = 24;
export const IDEMPOTENCY_HEADER = "idempotency-key";

export class IdempotencyMismatch extends DomainError {
  override readonly status: number = 422;
}

export type IdempotencyScope = { merchantId: string; key: string; method: string; path: string; bodyHash: string };
export type Claim = { kind: "claimed" } | { kind: "replay"; status: number; body: string };

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

export async function claimIdempotencyKey(s: IdempotencyScope): Promise<Claim> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const inserted = await db()
      .insert(idempotencyKeys)
      .values({ ...s, state: "in_flight", expiresAt: sql`now() + make_interval(hours => ${TTL_HOURS})` })
      .onConflictDoNothing()
      .returning({ key: idempotencyKeys.key });
    if (inserted.length > 0) return { kind: "claimed" };
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
      throw new Conflict("A request with this Idempotency-Key is still being processed; retry later");
    }
    return { kind: "replay", status: row.responseStatus ?? 200, body: row.responseBody ?? "" };
  }
  throw new Conflict("A request with this Idempotency-Key is still being processed; retry later");
}

/** Stores the outcome for replays. */
export async function completeIdempotencyKey(s: IdempotencyScope, status: number, body: string): Promise<void> {
  await db().update(idempotencyKeys).set({ state: "done", responseStatus: status, responseBody: body }).where(where(s));
}

/** Forgets the claim, so a corrected retry with the same key can run (validation errors, 429, 5xx). */
export async function releaseIdempotencyKey(s: IdempotencyScope): Promise<void> {
  await db()
    .delete(idempotencyKeys)
    .where(and(where(s), eq(idempotencyKeys.state, "in_flight")));
}

/** Old keys are deleted by the sweep. */
export async function purgeExpiredIdempotencyKeys(): Promise<number> {
  const rows = await db()
    .delete(idempotencyKeys)
    .where(lt(idempotencyKeys.expiresAt, sql`now()`))
    .returning({ key: idempotencyKeys.key });
  return rows.length;
}
