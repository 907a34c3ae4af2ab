import { sql } from "drizzle-orm";
import { db, getPool, listenerOf } from "@/db";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { processSlot } from "@/lib/singleton";
import { deliverClaimed, type ClaimedDelivery } from "./deliver";
import { DISPATCH_CHANNEL } from "./fanout";
import { observeAttempt } from "./metrics";
import { sealPlainSecrets } from "./secrets";

// The dispatcher: claims due deliveries and sends them, a few at a time, in every jobs-enabled process.
//
// Why a loop over the deliveries table rather than a pg-boss queue: the table already is a durable
// Postgres queue (one row per delivery, its schedule in next_attempt_at), and what pg-boss would add
// costs latency. Its workers poll no faster than every 0.5 s, and a job cannot be enqueued from inside
// recordEvent's transaction (it would exist before, or without, the commit), so "enqueue after
// commit" would need every caller's cooperation. Instead the fan-out issues pg_notify in the event's
// own transaction — PostgreSQL delivers it at commit, never for a rollback — and each dispatcher
// LISTENs: a delivery is claimed milliseconds after the commit. A 250 ms poll backs that up (a lost
// connection drops notifications) and picks up retries as they fall due. (A committing transaction
// that notified takes PostgreSQL's global notify-queue lock briefly; only events of merchants with
// endpoints notify, and far below thousands of commits a second that costs nothing measurable.)
//
// Safety with several instances: a claim is an UPDATE that moves next_attempt_at forward by a lease,
// taking rows FOR UPDATE SKIP LOCKED, so two dispatchers never hold the same delivery. A worker killed
// mid-send leaves the lease to expire and the delivery is sent again (at least once). Results are
// written only while the lease still matches.
//
// Ordering and fairness, in the claim query:
// - a delivery waits while an earlier event of the same subject to the same endpoint has not had its
//   first attempt (status pending, attempts 0): first attempts arrive in the order events happened;
//   after one failure the later events go ahead, so one failing event holds nothing back for long;
// - at most PER_ENDPOINT deliveries per endpoint are in flight in a process, and candidates are taken
//   round-robin across endpoints, so a slow or failing endpoint never starves the others.

const MAX_IN_FLIGHT = 16;
const PER_ENDPOINT = 4;
const POLL_MS = 250;
/** After an unexpected error (database restarting…), wait before claiming again. */
const ERROR_BACKOFF_MS = 1000;

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

/** Claims up to `limit` due deliveries, respecting per-subject order and per-endpoint limits. */
export async function claimDue(
  limit: number,
  busy: Map<string, number> = new Map(),
  perEndpoint = PER_ENDPOINT,
): Promise<ClaimedDelivery[]> {
  if (limit <= 0) return [];
  const busyIds = `{${[...busy.keys()].join(",")}}`;
  const busyCounts = `{${[...busy.values()].join(",")}}`;
  const rows = await db().execute<ClaimRow>(sql`
    with busy(endpoint_id, n) as (
      select * from unnest(${busyIds}::uuid[], ${busyCounts}::int[])
    ),
    ready as (
      select d.id, d.next_attempt_at, coalesce(b.n, 0) as busy,
             row_number() over (partition by d.endpoint_id order by d.next_attempt_at, d.event_seq) as rn
      from webhook_deliveries d
      left join busy b on b.endpoint_id = d.endpoint_id
      where d.status = 'pending' and d.next_attempt_at <= now()
        and not exists (
          select 1 from webhook_deliveries p
          where p.endpoint_id = d.endpoint_id and p.subject_id = d.subject_id and p.event_seq < d.event_seq
            and p.status = 'pending' and p.attempts = 0 and p.redelivery_of is null
        )
    ),
    picked as (
      select id from ready where rn + busy <= ${perEndpoint} order by rn, next_attempt_at limit ${limit}
    ),
    locked as (
      select d.id from webhook_deliveries d where d.id in (select id from picked) for update skip locked
    )
    update webhook_deliveries d
    set next_attempt_at = now() + make_interval(secs => ${leaseSeconds()})
    from locked l, webhook_endpoints w, events e
    where d.id = l.id and w.id = d.endpoint_id and e.id = d.event_id
      and d.status = 'pending' and d.next_attempt_at <= now()
    returning d.id, d.endpoint_id, d.attempts, d.next_attempt_at::text as lease_until,
              w.url, w.secret, (w.deleted_at is null and w.disabled_at is null) as endpoint_active,
              e.id as event_id, e.type as event_type, e.data as event_data, e.created_at as event_created_at,
              d.redelivery_of is not null as redelivery`);
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

class Dispatcher {
  private running = true;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly perEndpoint = new Map<string, number>();
  /** Set when work may be waiting (a notification, a freed slot) so the loop skips its sleep. */
  private poked = false;
  private wake: (() => void) | null = null;
  private unlisten: (() => Promise<void>) | null = null;
  private loop: Promise<void> = Promise.resolve();

  async start(): Promise<void> {
    try {
      const sub = await listenerOf(getPool()).listen(
        DISPATCH_CHANNEL,
        () => this.poke(),
        // Also called after a reconnect: notifications may have been missed meanwhile.
        () => this.poke(),
      );
      this.unlisten = sub.unlisten;
    } catch (err) {
      log.warn("webhook dispatcher could not LISTEN; polling only", { err });
    }
    this.loop = this.run();
  }

  poke(): void {
    this.poked = true;
    this.wake?.();
  }

  private sleep(ms: number): Promise<void> {
    if (this.poked) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  private async run(): Promise<void> {
    while (this.running) {
      this.poked = false;
      const free = MAX_IN_FLIGHT - this.inFlight.size;
      try {
        for (const c of await claimDue(free, this.perEndpoint)) this.launch(c);
      } catch (err) {
        if (!this.running) break;
        log.error("webhook claim failed", { err });
        await new Promise((r) => setTimeout(r, ERROR_BACKOFF_MS));
      }
      if (!this.running) break;
      await this.sleep(POLL_MS);
    }
  }

  private launch(c: ClaimedDelivery): void {
    this.perEndpoint.set(c.endpointId, (this.perEndpoint.get(c.endpointId) ?? 0) + 1);
    const startedAt = performance.now();
    const task = deliverClaimed(c)
      .then((outcome) => {
        observeAttempt(outcome, (performance.now() - startedAt) / 1000, c.event, c.redelivery);
        log.debug("webhook attempt", { deliveryId: c.id, eventId: c.event.id, attempt: c.attempts + 1, outcome });
      })
      .catch((err: unknown) => log.error("webhook delivery failed; retried after its lease", { deliveryId: c.id, err }))
      .finally(() => {
        this.inFlight.delete(task);
        const n = (this.perEndpoint.get(c.endpointId) ?? 1) - 1;
        if (n > 0) this.perEndpoint.set(c.endpointId, n);
        else this.perEndpoint.delete(c.endpointId);
        // A slot is free, and the next event of this subject may now go.
        this.poke();
      });
    this.inFlight.add(task);
  }

  /** Stops claiming, then waits for the attempts in flight (each bounded by WEBHOOK_TIMEOUT_MS). */
  async stop(): Promise<void> {
    this.running = false;
    this.poke();
    await this.loop;
    await this.unlisten?.().catch(() => {});
    await Promise.allSettled([...this.inFlight]);
  }
}

// One per process, like the job runner: the server's own copy of lib/ starts it.
const running = processSlot<Dispatcher>("webhook-dispatcher");

export async function startWebhookDispatcher(): Promise<void> {
  if (running.value) return;
  const d = new Dispatcher();
  running.value = d;
  // Secrets stored before they were sealed are sealed once, here; a failure leaves them to be sealed
  // when a delivery first reads them (deliver.ts), and never keeps deliveries from starting.
  await sealPlainSecrets().catch((err: unknown) =>
    log.warn("webhook secrets not sealed at start-up; each is sealed on its next delivery", { err }),
  );
  await d.start();
}

export function webhookDispatcherRunning(): boolean {
  return running.value !== undefined;
}

export async function stopWebhookDispatcher(): Promise<void> {
  const d = running.value;
  running.value = undefined;
  if (d) await d.stop();
}
