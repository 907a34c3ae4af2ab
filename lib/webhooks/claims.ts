import { sql } from "drizzle-orm";
import { db } from "@/db";
import { env } from "@/lib/env";
import type { ClaimedDelivery } from "./deliver";
import { INITIAL_PER_ENDPOINT } from "./concurrency";

// Claiming due deliveries: an UPDATE that moves next_attempt_at forward by a lease, taking rows FOR
// UPDATE SKIP LOCKED, so two dispatchers never hold the same delivery; a worker killed mid-send leaves
// the lease to expire and the delivery is sent again (at least once).
//
// Its cost follows what it claims, not the backlog: the endpoints with something due are found by
// skipping through webhook_deliveries_endpoint_due one endpoint at a time, and each endpoint's oldest
// due rows are read through the same index, as many as it may take. (Ranking every due row in one
// window and anti-joining it to itself went quadratic without statistics: 2.6 s per claim at 3,600
// pending rows.)
//
// Order and fairness:
// - a delivery waits while an earlier event of the same subject to the same endpoint has not had its
//   first attempt (status pending, attempts 0): first attempts arrive in the order events happened;
//   after one failure the later events go ahead, so one failing event holds nothing back for long;
// - each endpoint takes at most its free slots, and candidates are taken round-robin across
//   endpoints, so a slow or failing endpoint never starves the others.

/** Long enough for the HTTP call (bounded by WEBHOOK_TIMEOUT_MS) and the write of its result. */
export function leaseSeconds(): number {
  return env().WEBHOOK_TIMEOUT_MS / 1000 + 5;
}

type ClaimRow = {
  id: string;
  endpoint_id: string;
  attempts: number;
  lease_until: string;
  url: string;
  secret: string;
  endpoint_active: boolean;
  event_id: string;
  event_type: string;
  event_data: Record<string, unknown>;
  event_created_at: string;
  redelivery: boolean;
};

/**
 * Claims up to `limit` due deliveries. `free` gives the slots an endpoint may still fill; an endpoint
 * not in it may fill `defaultFree`.
 */
export async function claimDue(
  limit: number,
  free: ReadonlyMap<string, number> = new Map(),
  defaultFree = INITIAL_PER_ENDPOINT,
): Promise<ClaimedDelivery[]> {
  if (limit <= 0) return [];
  const ids = `{${[...free.keys()].join(",")}}`;
  const slots = `{${[...free.values()].map((n) => Math.max(0, n)).join(",")}}`;
  const rows = await db().execute<ClaimRow>(sql`
    with recursive
    allowance(endpoint_id, free) as (
      select * from unnest(${ids}::uuid[], ${slots}::int[])
    ),
    due(endpoint_id) as (
      (select d.endpoint_id from webhook_deliveries d
       where d.status = 'pending' and d.next_attempt_at <= now()
       order by d.endpoint_id limit 1)
      union all
      select (select d.endpoint_id from webhook_deliveries d
              where d.status = 'pending' and d.next_attempt_at <= now() and d.endpoint_id > due.endpoint_id
              order by d.endpoint_id limit 1)
      from due where due.endpoint_id is not null
    ),
    candidates as (
      select c.id, c.next_attempt_at,
             row_number() over (partition by due.endpoint_id order by c.next_attempt_at, c.event_seq) as rn
      from due
      left join allowance a on a.endpoint_id = due.endpoint_id
      cross join lateral (
        select d.id, d.next_attempt_at, d.event_seq from webhook_deliveries d
        where d.endpoint_id = due.endpoint_id and d.status = 'pending' and d.next_attempt_at <= now()
          -- A subquery with LIMIT, not NOT EXISTS: it stays one index probe per candidate.
          and (select 1 from webhook_deliveries p
               where p.endpoint_id = d.endpoint_id and p.subject_id = d.subject_id and p.event_seq < d.event_seq
                 and p.status = 'pending' and p.attempts = 0 and p.redelivery_of is null
               limit 1) is null
        order by d.next_attempt_at, d.event_seq
        limit coalesce(a.free, ${defaultFree}::int)
      ) c
      where due.endpoint_id is not null
    ),
    picked as (
      select id from candidates order by rn, next_attempt_at limit ${limit}::int
    ),
    -- The picked rows by their primary key (= any(array(…)), never a scan to join them), still due
    -- once locked: a row another dispatcher claimed meanwhile is rechecked on its new version and left.
    -- "Due" is next_attempt_at alone (only a pending row has one: webhook_deliveries_schedule); naming
    -- the status would let the planner, without statistics, read all due rows through a partial index.
    locked as (
      select d.id from webhook_deliveries d
      where d.id = any(array(select id from picked)) and d.next_attempt_at <= now()
      for update skip locked
    ),
    claimed as (
      update webhook_deliveries d
      set next_attempt_at = now() + make_interval(secs => ${leaseSeconds()})
      where d.id = any(array(select id from locked))
      returning d.id, d.endpoint_id, d.event_id, d.attempts, d.next_attempt_at, d.redelivery_of
    )
    select c.id, c.endpoint_id, c.attempts, c.next_attempt_at::text as lease_until,
           w.url, w.secret, (w.deleted_at is null and w.disabled_at is null) as endpoint_active,
           e.id as event_id, e.type as event_type, e.data as event_data, e.created_at as event_created_at,
           c.redelivery_of is not null as redelivery
    from claimed c
    -- LIMIT keeps each lookup a probe by primary key per claimed row, never a join over the table.
    cross join lateral (select * from webhook_endpoints w where w.id = c.endpoint_id limit 1) w
    cross join lateral (select * from events e where e.id = c.event_id limit 1) e`);
  return rows.map((r) => ({
    id: r.id,
    endpointId: r.endpoint_id,
    attempts: Number(r.attempts),
    leaseUntil: r.lease_until,
    url: r.url,
    secret: r.secret,
    endpointActive: r.endpoint_active,
    event: { id: r.event_id, type: r.event_type, data: r.event_data, createdAt: new Date(r.event_created_at) },
    redelivery: r.redelivery,
  }));
}

/**
 * Milliseconds until the earliest pending delivery falls due (a retry, a lease that runs out), 0 if one
 * is due already, null if none is pending. Like the claim, it skips through webhook_deliveries_endpoint_due
 * one endpoint at a time and reads each endpoint's earliest row: index probes, whatever the table holds.
 */
export async function msUntilNextDue(): Promise<number | null> {
  const [row] = await db().execute<{ ms: number | null }>(sql`
    with recursive pending(endpoint_id) as (
      (select d.endpoint_id from webhook_deliveries d where d.status = 'pending' order by d.endpoint_id limit 1)
      union all
      select (select d.endpoint_id from webhook_deliveries d
              where d.status = 'pending' and d.endpoint_id > pending.endpoint_id
              order by d.endpoint_id limit 1)
      from pending where pending.endpoint_id is not null
    )
    select (extract(epoch from min(
             (select d.next_attempt_at from webhook_deliveries d
              where d.endpoint_id = pending.endpoint_id and d.status = 'pending'
              order by d.next_attempt_at limit 1)) - now()) * 1000)::float8 as ms
    from pending where pending.endpoint_id is not null`);
  // No pending row: null (greatest() in SQL would have made it 0, "due now").
  return row?.ms == null ? null : Math.max(0, row.ms);
}
