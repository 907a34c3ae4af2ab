import type { PgBoss } from "pg-boss";
import type postgres from "postgres";
import { log } from "@/lib/log";

// When this instance's workers fetch. Every queue has pg-boss's NOTIFY on: a job that can start now
// wakes every instance's workers at its commit, so a worker idles on a slow safety poll instead of
// polling every half second (lib/jobs/queue.ts). A job that starts later announces nothing, so the
// instance that made it wakes its own workers when it falls due:
// - a send with startAfterSeconds: at that time;
// - a job that failed with retries left: when pg-boss's backoff (with its random jitter) puts the
//   retry, read back from the queue once the failure is written;
// - a recurring tick: at once, since a stately queue may hold the tick's job back without a NOTIFY.
// At each of these wake-ups the next later job of the queue is read, so several deferred jobs each
// get theirs. A job deferred by an instance that died is left to the safety poll.

/** How long a failure may take to be written before the retry's time is read anyway. */
const SETTLE_RECHECK_MS = 50;
const SETTLE_RECHECKS = 40;
/** A timer longer than this fires early, wakes the workers and is set again from the queue. */
const MAX_TIMER_MS = 3_600_000;
/** The job is due by PostgreSQL's clock; a timer a little late is never early. */
const MARGIN_MS = 20;

type Row = { next_ms: number | null; settling: number };

export class Wakes {
  private readonly workers = new Map<string, string[]>();
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private stopped = false;

  constructor(
    private readonly boss: PgBoss,
    private readonly sql: postgres.Sql,
    private readonly schema: string,
  ) {}

  register(queue: string, workerIds: readonly string[]): void {
    this.workers.set(queue, [...(this.workers.get(queue) ?? []), ...workerIds]);
  }

  /** Every worker of `queue` fetches now (one running a batch, right after it). */
  now(queue: string): void {
    for (const id of this.workers.get(queue) ?? []) this.boss.notifyWorker(id);
  }

  /** The workers of `queue` fetch in `delayMs`, or at an earlier wake-up already set. */
  after(queue: string, delayMs: number): void {
    if (this.stopped || !this.workers.has(queue)) return;
    const at = Date.now() + Math.max(0, delayMs) + MARGIN_MS;
    const current = this.timers.get(queue);
    if (current && current.at <= at) return;
    if (current) clearTimeout(current.timer);
    const timer = setTimeout(
      () => {
        this.timers.delete(queue);
        this.now(queue);
        void this.next(queue);
      },
      Math.min(at - Date.now(), MAX_TIMER_MS),
    );
    timer.unref();
    this.timers.set(queue, { at, timer });
  }

  /** Sets the wake-up for `queue`'s next job that starts later, once the failures of `failed` are written. */
  afterFailures(queue: string, failed: readonly string[]): void {
    if (failed.length === 0) return;
    setTimeout(() => void this.next(queue, failed), SETTLE_RECHECK_MS).unref();
  }

  private async next(queue: string, settling: readonly string[] = [], recheck = 0): Promise<void> {
    if (this.stopped) return;
    try {
      const [row] = await this.sql.unsafe<Row[]>(
        `select
           (select extract(epoch from min(start_after) - ${this.schema}.job_now())::float8 * 1000
            from ${this.schema}.job
            where name = $1 and state < 'active' and start_after > ${this.schema}.job_now()) as next_ms,
           (select count(*)::int from ${this.schema}.job
            where name = $1 and id = any($2::uuid[]) and state = 'active') as settling`,
        [queue, [...settling]],
      );
      if (row.settling > 0 && recheck < SETTLE_RECHECKS) {
        setTimeout(() => void this.next(queue, settling, recheck + 1), SETTLE_RECHECK_MS).unref();
        return;
      }
      if (row.next_ms !== null) this.after(queue, row.next_ms);
    } catch (err) {
      if (!this.stopped) log.warn("could not read when a job falls due; the safety poll takes it", { queue, err });
    }
  }

  stop(): void {
    this.stopped = true;
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}
