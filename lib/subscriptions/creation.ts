import { and, asc, eq, lt, sql } from "drizzle-orm";
import { db, type Tx } from "@/db";
import { subscriptionCreations, type SubscriptionCreation } from "@/db/schema";
import { now } from "@/lib/clock";
import { newId } from "@/lib/ids";
import { log } from "@/lib/log";
import { providers } from "@/lib/providers";
import { RecurringRefused, type RecurrenceProgress, type RecurrenceRequest } from "@/lib/providers/recurring/types";
import { currentIdempotencyKey } from "@/lib/request-context";

// Making a subscription's recurrence at the PSP so that a retry resumes it (docs/api.md#subscriptions):
// the creation (subscription_creations) is recorded and committed before anything is sent, each id as
// soon as it is known; a retry of the same request (merchant and Idempotency-Key) resumes from it; one
// that cannot complete is ended cleanly, at once when refused, by the sweep when left (endStaleCreations).

/**
 * The creation this request makes, recorded and committed before anything is sent to the PSP. A retry
 * of the same request (the merchant's Idempotency-Key) finds the one its predecessor recorded and
 * resumes it: same id, same location, same immediate txid, same recurrence.
 */
export async function startCreation(merchantId: string): Promise<SubscriptionCreation> {
  const key = currentIdempotencyKey()?.key ?? null;
  if (key) {
    const [found] = await db()
      .select()
      .from(subscriptionCreations)
      .where(
        and(
          eq(subscriptionCreations.merchantId, merchantId),
          eq(subscriptionCreations.idempotencyKey, key),
          eq(subscriptionCreations.state, "CREATING"),
          eq(subscriptionCreations.provider, providers().recurring.name),
        ),
      );
    if (found) return found;
  }
  const [made] = await db()
    .insert(subscriptionCreations)
    .values({ id: newId(), merchantId, idempotencyKey: key, provider: providers().recurring.name, state: "CREATING" })
    .returning();
  return made;
}

/** Each id as soon as the PSP gives it (or, for journey 3's txid, before it is sent), committed. */
const recordProgress = (id: string) => async (p: RecurrenceProgress) => {
  await db()
    .update(subscriptionCreations)
    .set({ locationId: p.locationId, immediateTxid: p.immediateTxid, idRec: p.idRec, updatedAt: now() })
    .where(and(eq(subscriptionCreations.id, id), eq(subscriptionCreations.state, "CREATING")));
};

export async function finishCreation(tx: Tx, id: string): Promise<void> {
  await tx
    .update(subscriptionCreations)
    .set({ state: "DONE", updatedAt: now() })
    .where(eq(subscriptionCreations.id, id));
}

/**
 * The recurrence at the PSP, resumed from what `creation` recorded. Refused: what was made is cancelled
 * and the creation ABANDONED (its key freed for a corrected request). Unknown (the PSP unreachable, an
 * answer lost): it stays CREATING, and a retry with the same key resumes it.
 */
export async function makeAtPsp(creation: SubscriptionCreation, request: RecurrenceRequest) {
  const resume = {
    progress: { locationId: creation.locationId, immediateTxid: creation.immediateTxid, idRec: creation.idRec },
    record: recordProgress(creation.id),
  };
  try {
    return await providers().recurring.createRecurrence(request, resume);
  } catch (err) {
    if (!(err instanceof RecurringRefused)) throw err;
    await abandonCreation(creation.id);
    throw err;
  }
}

/**
 * A creation that cannot complete, ended cleanly: the recurrence it made (recorded, or linked to its
 * location) cancelled at the PSP, then ABANDONED with its key freed. The immediate charge needs no
 * cancelling: its code was never shown to anyone, and it expires (calendario.expiracao).
 */
async function abandonCreation(id: string): Promise<void> {
  const [c] = await db().select().from(subscriptionCreations).where(eq(subscriptionCreations.id, id));
  if (!c || c.state !== "CREATING") return;
  const psp = providers().recurring;
  const idRec = c.idRec ?? (c.locationId && psp.linkedRecurrence ? await psp.linkedRecurrence(c.locationId) : null);
  if (idRec) await psp.cancelRecurrence(idRec);
  await db()
    .update(subscriptionCreations)
    .set({ state: "ABANDONED", idempotencyKey: null, idRec, updatedAt: now() })
    .where(and(eq(subscriptionCreations.id, id), eq(subscriptionCreations.state, "CREATING")));
}

/** How long a creation left CREATING (its answer lost, its process dead) waits for its retry before it is ended. */
export const STALE_CREATION_MS = 60 * 60_000;

/**
 * The sweep's step (runSubscriptionEngine): creations of this process's PSP left CREATING past
 * STALE_CREATION_MS, ended cleanly (abandonCreation). One the PSP cannot be asked about now stays for the next run.
 */
export async function endStaleCreations(batch = 50): Promise<number> {
  const stale = await db()
    .select({ id: subscriptionCreations.id })
    .from(subscriptionCreations)
    .where(
      and(
        // A literal, not a parameter: a generic plan then uses the partial index (tests/query-plans.test.ts).
        sql`${subscriptionCreations.state} = 'CREATING'`,
        eq(subscriptionCreations.provider, providers().recurring.name),
        lt(subscriptionCreations.updatedAt, new Date(now().getTime() - STALE_CREATION_MS)),
      ),
    )
    .orderBy(asc(subscriptionCreations.updatedAt))
    .limit(batch);
  let done = 0;
  for (const { id } of stale) {
    try {
      await abandonCreation(id);
      done++;
    } catch (err) {
      log.warn("subscription creation could not be ended yet; the next sweep tries again", {
        id,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }
  return done;
}
