import { sql } from "drizzle-orm";
import { db } from "@/db";
import { InvalidInput } from "@/lib/errors";
import { eventPayload } from "./payload";
import { TEST_EVENT_TYPE } from "./test-event";

// GET /api/v1/events: a merchant's events oldest first, for reconciliation. Paging by seq would skip
// events: seq is taken at insert, so a transaction holding seq 10 can commit after one holding seq 11
// was listed, and a reader past 11 never sees 10. Events are paged by `position` instead, which a
// publisher assigns only to committed events, in one sequence, one publisher at a time: an event
// that commits late gets a position after everything already listed.

/** Advisory lock key of the publisher (any constant no other lock uses). */
const PUBLISH_LOCK = sql`hashtextextended('payments.events.publish', 0)`;

/** Gives every committed event without a position the next positions, in seq order. */
export async function publishEvents(): Promise<void> {
  // The common case, nothing to publish, costs one index probe and no lock.
  const [pending] = await db().execute<{ any: boolean }>(
    sql`select exists (select 1 from events where position is null) as any`,
  );
  if (!pending?.any) return;
  await db().transaction(async (tx) => {
    // Serialises publishers; the UPDATE's snapshot is taken after the lock, so it sees the previous
    // publisher's positions and continues after them. "e.position is null", though implied, lets the
    // plan reach the events to update through events_unpublished: joined by id alone, the generic plan
    // made while the table was small read every event ever written.
    await tx.execute(sql`select pg_advisory_xact_lock(${PUBLISH_LOCK})`);
    await tx.execute(sql`
      with todo as (select id, row_number() over (order by seq) as rn from events where position is null),
           base as (select coalesce(max(position), 0) as m from events)
      update events e set position = base.m + todo.rn
      from todo, base
      where e.id = todo.id and e.position is null`);
  });
}

function encodeCursor(position: number): string {
  return Buffer.from(JSON.stringify({ p: position })).toString("base64url");
}

function decodeCursor(cursor: string): number {
  try {
    const c = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { p?: unknown };
    if (typeof c.p === "number" && Number.isSafeInteger(c.p) && c.p >= 0) return c.p;
  } catch {
    // fall through
  }
  throw new InvalidInput("Invalid request: after: is not a valid cursor (use nextCursor from a previous page)");
}

type Row = { id: string; type: string; data: Record<string, unknown>; created_at: string; position: string };

/**
 * One page of a merchant's events after `after`, leaving out test events (nothing happened to reconcile). nextCursor points after the last event returned (or
 * stays at `after` when nothing new has committed), so a client can keep polling from it;
 * hasMore says whether another page is already waiting.
 */
export async function listEvents(merchantId: string, q: { after?: string; limit: number }) {
  const after = q.after ? decodeCursor(q.after) : 0;
  await publishEvents();
  const rows = await db().execute<Row>(sql`
    select id, type, data, created_at, position from events
    where merchant_id = ${merchantId} and position > ${after} and type <> ${TEST_EVENT_TYPE}
    order by position
    limit ${q.limit + 1}`);
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    events: page.map((r) => eventPayload({ id: r.id, type: r.type, data: r.data, createdAt: new Date(r.created_at) })),
    nextCursor: last ? encodeCursor(Number(last.position)) : q.after ? encodeCursor(after) : null,
    hasMore: rows.length > q.limit,
  };
}
