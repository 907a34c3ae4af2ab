import { and, eq, inArray } from "drizzle-orm";
import { db, type Executor, type Tx } from "@/db";
import { idempotencyKeys, type IDEMPOTENCY_STATES, type IDEMPOTENT_RESOURCE_TYPES } from "@/db/schema";
import { Conflict } from "@/lib/errors";
import { currentIdempotencyKey, type HeldIdempotencyKey } from "@/lib/request-context";

// Money must never move twice for one Idempotency-Key (docs/api.md#idempotency-and-rate-limits). A key's claim is a lease
// (lib/http/idempotency.ts), and a request can die after its business transaction committed but
// before its response was stored; a retry that took the key over would then run it again. So the
// transaction that commits what a keyed request makes (a withdrawal and its debit, an order, a
// refund…) also marks the claim committed and names what it made, in the same commit. After a crash
// the retry finds that mark and answers from the resource instead of running (lib/http/endpoint.ts).
//
// The mark names this request's claim and requires it still in flight: a request whose key was taken
// over meanwhile (it stalled past its lease and a retry runs in its place) writes nothing at all, its
// transaction rolled back by the throw. Requests without a key, and work outside requests (jobs, the
// dashboard), hold none: binding is then nothing, not even a round trip.

export type IdempotentResource = { type: (typeof IDEMPOTENT_RESOURCE_TYPES)[number]; id: string };

/**
 * A 409 for a key in flight: another request holds it, or took it over. Answered with Retry-After: the
 * holder's outcome is stored when it ends, and a dead holder's lease ends within IDEMPOTENCY_LEASE_SECONDS.
 */
export class IdempotencyKeyBusy extends Conflict {
  readonly retryAfterSeconds = 1;
}

/** The request's claim on its key was taken over by a retry: what it was about to commit is rolled back. */
export class IdempotencyKeyTakenOver extends IdempotencyKeyBusy {}

/** The key's row: one per merchant, key, method and path. */
export const idempotencyKeyRow = (k: Omit<HeldIdempotencyKey, "claimId">) =>
  and(
    eq(idempotencyKeys.merchantId, k.merchantId),
    eq(idempotencyKeys.key, k.key),
    eq(idempotencyKeys.method, k.method),
    eq(idempotencyKeys.path, k.path),
  );

/** The key's row while it is still this claim's and in one of `states`. */
export const claimRow = (c: HeldIdempotencyKey, states: readonly (typeof IDEMPOTENCY_STATES)[number][]) =>
  and(idempotencyKeyRow(c), eq(idempotencyKeys.claimId, c.claimId), inArray(idempotencyKeys.state, states));

/**
 * Whether the current request holds an Idempotency-Key. A write that is a single statement without
 * one needs a transaction with one, to bind the key in it; without one it stays a single statement.
 */
export function holdsIdempotencyKey(): boolean {
  return currentIdempotencyKey() !== undefined;
}

/**
 * In the transaction that commits `resource` on behalf of the current request: binds the request's
 * Idempotency-Key to it. Throws, so the transaction rolls back, when the key is no longer this
 * request's claim in flight.
 */
export async function bindIdempotencyKey(tx: Tx, resource: IdempotentResource): Promise<void> {
  const held = currentIdempotencyKey();
  if (!held) return;
  const bound = await tx
    .update(idempotencyKeys)
    .set({ state: "committed", resourceType: resource.type, resourceId: resource.id })
    .where(claimRow(held, ["in_flight"]))
    .returning({ key: idempotencyKeys.key });
  if (bound.length === 0) {
    // Gone altogether (the server it was claimed on failed over before replicating it) is not a retry's doing.
    const [row] = await tx
      .select({ claimId: idempotencyKeys.claimId })
      .from(idempotencyKeys)
      .where(idempotencyKeyRow(held));
    throw new IdempotencyKeyTakenOver(
      row
        ? "This request's Idempotency-Key was taken over by a retry after its lease ran out: nothing was done; the retry's response is the one that counts"
        : "This request's Idempotency-Key claim was lost by the database (a failover or restore): nothing was done; retry with the same key",
    );
  }
}

/**
 * A write that is one statement: run on the pool as it always was when the request holds no key;
 * otherwise in a transaction with the key's binding to what it made.
 */
export function writeAndBind<T>(
  write: (ex: Executor) => Promise<T>,
  resourceOf: (made: T) => IdempotentResource,
): Promise<T> {
  if (!holdsIdempotencyKey()) return write(db());
  return db().transaction(async (tx) => {
    const made = await write(tx);
    await bindIdempotencyKey(tx, resourceOf(made));
    return made;
  });
}
