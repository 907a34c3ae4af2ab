import { randomUUID } from "node:crypto";
import { and, eq, gt, gte, inArray, lt, sql } from "drizzle-orm";
import { db } from "@/db";
import { idempotencyKeys } from "@/db/schema";
import { env } from "@/lib/env";
import { DomainError } from "@/lib/errors";
import { RequestRefused } from "@/lib/errors-api";
import { claimRow, IdempotencyKeyBusy, idempotencyKeyRow, type IdempotentResource } from "@/lib/idempotency-binding";
import { log } from "@/lib/log";
import { instanceName } from "@/lib/instance";
import type { ApiRequest } from "./request";
import { databaseUnavailable } from "./unavailable";

// Idempotency-Key (docs/api.md#idempotency-and-rate-limits): the first request with a key runs; a retry with the same key and the
// same body gets the stored response back; another body is a 422; a retry while the first is still
// running is a 409. The claim is one INSERT … ON CONFLICT DO NOTHING, so of two copies arriving at
// the same moment exactly one runs: a withdrawal retried this way is never paid twice.
//
// A claim in flight is a lease, not a lock held for the key's 24 h: its holder renews it while the
// handler runs, and a claim whose lease ran out belongs to a request whose process died. A retry then
// takes the key over with one conditional UPDATE (of two racing retries, the row lock lets one through).
// What happens next depends on how far the dead request got. Its business transaction binds the key to
// what it commits, in the same commit (lib/idempotency-binding.ts): a claim still in flight committed
// nothing, and the retry runs; a committed one made a resource, and the retry answers from it through
// the endpoint's replay, running nothing again. The dead request's late writes, should it come back,
// name a claim that is no longer its own and change nothing; its business transaction is rolled back.

const TTL_HOURS = 24;
/**
 * How long a claim holds without renewal: the holder renews every quarter of it while its request runs,
 * up to the request's deadline (REQUEST_DEADLINE_MS), so a holder that stopped running loses it, the
 * keys of an instance that died for good are free within this many seconds of its death, and a request
 * whose handler hangs gives its key up within this many seconds of its deadline
 * (docs/operations.md, "Keys of an instance that dies"). A restarted instance ends its predecessor's
 * leases at once (releaseClaimsOfPredecessor). A holder that misses its renewals (a stalled event
 * loop, a pool with no free connection) can lose the key to a retry while it still runs; the claim id
 * on every write then keeps it from committing anything (lib/idempotency-binding.ts).
 */
export const IDEMPOTENCY_LEASE_SECONDS = 4;
const RENEW_EVERY_MS = (IDEMPOTENCY_LEASE_SECONDS * 1000) / 4;
export const IDEMPOTENCY_HEADER = "idempotency-key";

export class IdempotencyMismatch extends DomainError {
  override readonly status: number = 422;
}

export type IdempotencyScope = { merchantId: string; key: string; method: string; path: string; bodyHash: string };
/** A key this request holds: its scope and the claim's own id, which every later write names. */
export type IdempotencyClaim = IdempotencyScope & { claimId: string };
export type Claim =
  /** The key is this request's: run the handler. */
  | { kind: "claimed"; claim: IdempotencyClaim }
  /** Taken over from a request that died after committing `resource`: answer from it, run nothing. */
  | { kind: "committed"; claim: IdempotencyClaim; resource: IdempotentResource }
  | { kind: "replay"; status: number; body: string };

export function readIdempotencyKey(req: ApiRequest): string | null {
  const key = req.headers.get(IDEMPOTENCY_HEADER);
  if (key === null) return null;
  const trimmed = key.trim();
  if (trimmed.length < 1 || trimmed.length > 255 || !/^[\x21-\x7e]+$/.test(trimmed)) {
    throw new RequestRefused("Idempotency-Key must be 1 to 255 printable ASCII characters", "idempotency_key_invalid");
  }
  return trimmed;
}

const where = idempotencyKeyRow;
const OPEN = ["in_flight", "committed"] as const;
/** The claim's row while it is still this claim's and has no response stored, committed or not. */
const held = (c: IdempotencyClaim) => claimRow(c, OPEN);
/** The claim's row while it is still this claim's and nothing was committed under it. */
const heldUncommitted = (c: IdempotencyClaim) => claimRow(c, ["in_flight"]);
const leaseEnd = sql`now() + make_interval(secs => ${IDEMPOTENCY_LEASE_SECONDS})`;
/** Rows written before leases existed have none: theirs is counted from their creation. */
const leaseRanOut = sql`coalesce(${idempotencyKeys.leaseUntil}, ${idempotencyKeys.createdAt} + make_interval(secs => ${IDEMPOTENCY_LEASE_SECONDS})) <= now()`;

export async function claimIdempotencyKey(s: IdempotencyScope): Promise<Claim> {
  const claim: IdempotencyClaim = { ...s, claimId: randomUUID() };
  try {
    return await claimWith(claim);
  } catch (err) {
    // The INSERT (or the takeover) may have committed with its answer lost: that claim is nobody's.
    if (databaseUnavailable(err)) letGoOfClaimLater(claim);
    throw err;
  }
}

async function claimWith(claim: IdempotencyClaim): Promise<Claim> {
  const { claimId: _, ...s } = claim;
  for (let attempt = 0; attempt < 3; attempt++) {
    const inserted = await db()
      .insert(idempotencyKeys)
      .values({
        ...s,
        state: "in_flight",
        claimId: claim.claimId,
        leaseUntil: leaseEnd,
        holder: instanceName(),
        expiresAt: sql`now() + make_interval(hours => ${TTL_HOURS})`,
      })
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
    if (row.state !== "done") {
      // The state is read again under the row lock: a holder whose business transaction commits while
      // this waits for it is seen committed here, and answered from, never run again.
      const [taken] = await db()
        .update(idempotencyKeys)
        .set({ claimId: claim.claimId, leaseUntil: leaseEnd, holder: instanceName() })
        .where(and(where(s), inArray(idempotencyKeys.state, OPEN), leaseRanOut))
        .returning({
          state: idempotencyKeys.state,
          resourceType: idempotencyKeys.resourceType,
          resourceId: idempotencyKeys.resourceId,
        });
      if (!taken)
        throw new IdempotencyKeyBusy("A request with this Idempotency-Key is still being processed; retry later");
      if (taken.state === "committed") {
        // The table's check holds a committed claim's resource type and id non-null.
        const resource = { type: taken.resourceType!, id: taken.resourceId! };
        log.warn("Idempotency-Key taken over after its request committed: answered from what it made", {
          path: s.path,
          merchantId: s.merchantId,
          resource,
        });
        return { kind: "committed", claim, resource };
      }
      log.warn("Idempotency-Key taken over: the request holding it stopped renewing its lease", {
        path: s.path,
        merchantId: s.merchantId,
      });
      return { kind: "claimed", claim };
    }
    return { kind: "replay", status: row.responseStatus ?? 200, body: row.responseBody ?? "" };
  }
  throw new IdempotencyKeyBusy("A request with this Idempotency-Key is still being processed; retry later");
}

/** Extends the lease; false when the claim is no longer this request's (it was taken over or released). */
export async function renewIdempotencyClaim(c: IdempotencyClaim): Promise<boolean> {
  const rows = await db()
    .update(idempotencyKeys)
    .set({ leaseUntil: leaseEnd })
    .where(held(c))
    .returning({ key: idempotencyKeys.key });
  return rows.length > 0;
}

/**
 * Renews the lease every quarter of it while the handler runs, until `deadlineMs` after the claim (the
 * request's deadline; 0: none) has passed; the returned function stops it. Past the deadline the client
 * was answered 503 and retries: a handler still running then (hung on a lock, a provider, a lost
 * connection) must not keep the key from the retry for ever. It keeps running, and whatever it commits
 * after a retry took the key over is refused by the claim id on every write (lib/idempotency-binding.ts);
 * one that finishes within the lease still stores its outcome for the retry.
 */
export function keepIdempotencyClaim(
  c: IdempotencyClaim,
  everyMs = RENEW_EVERY_MS,
  deadlineMs = env().REQUEST_DEADLINE_MS,
): () => void {
  const stopAt = deadlineMs > 0 ? performance.now() + deadlineMs : Infinity;
  const timer = setInterval(() => {
    if (performance.now() >= stopAt) {
      clearInterval(timer);
      log.warn("Idempotency-Key lease no longer renewed: its request is past its deadline", {
        path: c.path,
        merchantId: c.merchantId,
        deadlineMs,
      });
      return;
    }
    renewIdempotencyClaim(c).then(
      (kept) => {
        if (!kept) {
          clearInterval(timer);
          log.warn("Idempotency-Key lease lost while its request was still running", {
            path: c.path,
            merchantId: c.merchantId,
          });
        }
      },
      // The database unavailable fails the request too (a 503), and the next renewal tries again.
      (err: unknown) =>
        databaseUnavailable(err)
          ? log.warn("Idempotency-Key lease renewal failed: the database is unavailable", { err })
          : log.error("Idempotency-Key lease renewal failed", { err }),
    );
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Stores the outcome for replays, if the claim is still this request's. Callers store successes only
 * (./idempotent-request.ts); a status >= 400 is still stored only when nothing was committed under the
 * claim: once a resource exists the key answers with it, and a retry gets the resource.
 */
export async function completeIdempotencyKey(c: IdempotencyClaim, status: number, body: string): Promise<void> {
  const rows = await db()
    .update(idempotencyKeys)
    .set({ state: "done", responseStatus: status, responseBody: body, leaseUntil: null })
    .where(status < 400 ? held(c) : heldUncommitted(c))
    .returning({ key: idempotencyKeys.key });
  if (rows.length > 0) return;
  if (status >= 400 && (await releaseIdempotencyKey(c)) === "lease-ended") {
    log.warn("Idempotency-Key refusal not stored: the request had committed, and a retry answers with what it made", {
      path: c.path,
      merchantId: c.merchantId,
      status,
    });
    return;
  }
  // A row under another claim is a retry's takeover; no row at all, a claim the database lost (a failover
  // to a standby that never received it, a restore), which no retry had anything to do with.
  const [row] = await db().select({ claimId: idempotencyKeys.claimId }).from(idempotencyKeys).where(where(c));
  log.warn(
    row
      ? "Idempotency-Key outcome not stored: the claim was taken over meanwhile"
      : "Idempotency-Key outcome not stored: the database lost the claim (a failover or restore); a retry with the key runs as new",
    { path: c.path, merchantId: c.merchantId },
  );
}

/**
 * Gives the key up after an outcome that is not kept (validation errors, 429, 5xx). Nothing committed:
 * the claim is forgotten, so a corrected retry with the same key can run. Committed: the claim stays,
 * bound to its resource, and only its lease ends, so the next retry answers from it at once.
 */
export async function releaseIdempotencyKey(c: IdempotencyClaim): Promise<"forgotten" | "lease-ended" | "not-held"> {
  const forgotten = await db()
    .delete(idempotencyKeys)
    .where(heldUncommitted(c))
    .returning({ key: idempotencyKeys.key });
  if (forgotten.length > 0) return "forgotten";
  const ended = await db()
    .update(idempotencyKeys)
    .set({ leaseUntil: sql`now()` })
    .where(claimRow(c, ["committed"]))
    .returning({ key: idempotencyKeys.key });
  return ended.length > 0 ? "lease-ended" : "not-held";
}

/**
 * At start-up, before serving: the leases this instance's predecessor (same INSTANCE_NAME, killed or
 * restarted) still held end now, so a client retrying one of its keys runs at once, or gets what it
 * committed, instead of a 409 until the lease ran out. Returns how many.
 */
export async function releaseClaimsOfPredecessor(name = instanceName()): Promise<number> {
  const rows = await db()
    .update(idempotencyKeys)
    .set({ leaseUntil: sql`now()` })
    .where(
      and(
        eq(idempotencyKeys.holder, name),
        inArray(idempotencyKeys.state, OPEN),
        gt(idempotencyKeys.leaseUntil, sql`now()`),
      ),
    )
    .returning({ key: idempotencyKeys.key });
  return rows.length;
}

// Claims this instance could not give up because the database could not be reached (a restart, a
// failover, a partition), retried until they are given up or their lease has run out anyway: otherwise
// a client retrying as soon as the database is back gets 409s for the rest of the lease. That includes
// a claim whose INSERT failed for the client but may still commit on the server (it was waiting on a
// lock when the connection died), so "not there yet" is retried too. The claim's id guards every write:
// a retry that took the key over meanwhile is never disturbed.
const lettingGo = new Map<string, { claim: IdempotencyClaim; until: number }>();
const LET_GO_EVERY_MS = 250;
let lettingGoTimer: NodeJS.Timeout | null = null;

/** Gives the claim up in the background, as soon as the database answers. */
export function letGoOfClaimLater(c: IdempotencyClaim): void {
  lettingGo.set(c.claimId, { claim: c, until: Date.now() + IDEMPOTENCY_LEASE_SECONDS * 1000 });
  lettingGoTimer ??= setTimeout(letGoOfClaims, LET_GO_EVERY_MS).unref();
}

async function letGoOfClaims(): Promise<void> {
  for (const [id, { until }] of lettingGo) if (Date.now() >= until) lettingGo.delete(id);
  const claims = [...lettingGo.values()].map((e) => e.claim);
  if (claims.length > 0) {
    try {
      // One statement each way however many are waiting: after an outage there can be many.
      // As JSON: keys may hold any printable character, which an array literal would have to escape.
      const rows = JSON.stringify(
        claims.map((c) => ({
          merchant_id: c.merchantId,
          key: c.key,
          method: c.method,
          path: c.path,
          claim_id: c.claimId,
        })),
      );
      const o = sql`jsonb_to_recordset(${rows}::jsonb) as o(merchant_id uuid, key text, method text, path text, claim_id uuid)`;
      const match = sql`${idempotencyKeys.merchantId} = o.merchant_id and ${idempotencyKeys.key} = o.key and ${idempotencyKeys.method} = o.method and ${idempotencyKeys.path} = o.path and ${idempotencyKeys.claimId} = o.claim_id`;
      const forgotten = await db().execute<{ claim_id: string }>(
        sql`delete from ${idempotencyKeys} using ${o} where ${match} and ${idempotencyKeys.state} = 'in_flight' returning ${idempotencyKeys.claimId} as claim_id`,
      );
      const ended = await db().execute<{ claim_id: string }>(
        sql`update ${idempotencyKeys} set lease_until = now() from ${o} where ${match} and ${idempotencyKeys.state} = 'committed' returning ${idempotencyKeys.claimId} as claim_id`,
      );
      for (const r of [...forgotten, ...ended]) lettingGo.delete(r.claim_id);
      if (forgotten.length + ended.length > 0)
        log.info("Idempotency-Key claims given up after the database came back", {
          count: forgotten.length + ended.length,
        });
    } catch {
      // Still unreachable: the next round tries again.
    }
  }
  lettingGoTimer = lettingGo.size > 0 ? setTimeout(letGoOfClaims, LET_GO_EVERY_MS).unref() : null;
}

/**
 * Old keys are deleted by the sweep. Bounded below by the oldest expiry as well as above by now: the
 * same rows, but without statistics PostgreSQL takes `expires_at < now()` alone for a third of the
 * table and reads it all, where a range between two bounds is taken for the narrow slice it is and
 * read through idempotency_keys_expiry.
 */
export async function purgeExpiredIdempotencyKeys(): Promise<number> {
  const rows = await db()
    .delete(idempotencyKeys)
    .where(
      and(
        gte(idempotencyKeys.expiresAt, sql`(select min(${idempotencyKeys.expiresAt}) from ${idempotencyKeys})`),
        lt(idempotencyKeys.expiresAt, sql`now()`),
      ),
    )
    .returning({ key: idempotencyKeys.key });
  return rows.length;
}
