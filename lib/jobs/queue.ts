import { PgBoss, type Queue } from "pg-boss";
import postgres from "postgres";
import { connectionOptions, directDatabaseUrl, getPool } from "@/db";
import { listen } from "@/db/notifications";
import { env, type Env } from "@/lib/env";
import { log } from "@/lib/log";
import { processSlot } from "@/lib/singleton";
import { pgBossClientOptions, postgresJsDatabase } from "./postgres-js-db";
import { Wakes } from "./wakes";

// Background work runs on pg-boss, a job queue inside the same PostgreSQL: jobs survive restarts,
// each is taken by one worker across all instances, and failures retry with backoff. This module
// knows no domain: domains declare their queues (jobQueue) and send to them; the worker's
// composition root (lib/worker) says which queues are worked, how, and on what schedule.

type QueueOptions = Omit<Queue, "name">;

// A job held by an instance that died (SIGKILL, a lost machine) must come back within 30 s: the
// worker refreshes each running job's heartbeat every HEARTBEAT_SECONDS / 2, and every live
// instance's supervisor fails a job whose heartbeat is older than HEARTBEAT_SECONDS, checking every
// SUPERVISE_SECONDS. A failed job is retried by its queue's policy; the sweep, with no retries, is
// started again by the next tick once the instances know its key is no longer active: a stately
// queue's fetch skips keys its cached queue stats list as active, and those stats are recomputed by
// the next supervisor pass and re-read every QUEUE_CACHE_SECONDS. Worst case 10 + 3 + 3 + 4 s plus
// one tick (./wakes.ts). With pg-boss's defaults (no heartbeat, expiry after expireInSeconds, 60 s passes and
// cache) a dead instance's sweep blocked every instance's sweeps for minutes. pg-boss refuses
// heartbeats under 10 s.
const HEARTBEAT_SECONDS = 10;
const SUPERVISE_SECONDS = 3;
const QUEUE_CACHE_SECONDS = 4;
// The rest of pg-boss's background passes cost a statement or two each time they look, busy or not:
// flows (job dependencies, which nothing here uses) are looked at every 10 minutes instead of 5 s; the
// durable schedules' jobs (a backstop for the ticks) are fetched every 30 s instead of 5; and its
// autovacuum monitor, whose warnings this process never read, is off.
const FLOW_SECONDS = 600;
const CRON_WORKER_SECONDS = 30;
// Workers are woken by NOTIFY (a job that can start now) and by this instance's own wake-ups (./wakes.ts:
// a job that starts later, a retry, a tick); they poll the queue only this often, in case a wake-up was
// lost with the instance that would have sent it. While the LISTEN connection is down they poll at
// their own pollingIntervalSeconds. Polling every queue every 0.5–1 s was most of what an idle
// instance did (docs/performance.md).
const SAFETY_POLL_SECONDS = 30;
const SCHEMA = "pgboss";
// pg-boss's own statements (maintenance deletes archived jobs in bulk) may run longer than a request's.
const JOB_RUNNER_STATEMENT_TIMEOUT_MS = 300_000;

/** statement_timeout of the job runner's sessions (0: none): DB_JOB_STATEMENT_TIMEOUT_MS, else derived from the pool's. */
export function jobRunnerStatementTimeoutMs(
  e: Pick<Env, "DB_STATEMENT_TIMEOUT_MS" | "DB_JOB_STATEMENT_TIMEOUT_MS"> = env(),
): number {
  if (e.DB_JOB_STATEMENT_TIMEOUT_MS !== undefined) return e.DB_JOB_STATEMENT_TIMEOUT_MS;
  const pool = e.DB_STATEMENT_TIMEOUT_MS;
  return pool === 0 ? 0 : Math.max(pool, JOB_RUNNER_STATEMENT_TIMEOUT_MS);
}

export type JobQueue<T extends object> = {
  readonly name: string;
  readonly options: QueueOptions;
  /**
   * Asks a worker to run a job. Best effort by design: the change that called for it has already
   * committed, and a sweep picks up anything whose job was never sent (or sent while jobs were off).
   */
  send(data: T, opts?: { startAfterSeconds?: number; singletonKey?: string }): Promise<void>;
};

/** Takes one job's data; throwing hands the job back for a retry with the queue's backoff. */
export type JobWorker = {
  queue: JobQueue<object>;
  pollingIntervalSeconds: number;
  batchSize?: number;
  concurrency?: number;
  work(data: object): Promise<void>;
};

/** A job run every `tickSeconds` by each instance's own timer, and once a minute by a durable schedule if every timer stops. */
export type RecurringJob = { queue: JobQueue<object>; tickSeconds: number };

export type JobPlan = { workers: JobWorker[]; recurring: RecurringJob[] };

type State = { boss: PgBoss; timers: NodeJS.Timeout[]; sql: postgres.Sql; wakes: Wakes };
// One per process: the server's own copy of lib/ starts the queue, route handlers in Next's bundle
// send into it.
const running = processSlot<State>("jobs");

export function jobQueue<T extends object>(name: string, options: QueueOptions): JobQueue<T> {
  return {
    name,
    options: { heartbeatSeconds: HEARTBEAT_SECONDS, notify: true, ...options },
    async send(data, opts = {}) {
      const state = running.value;
      if (!state) return;
      try {
        const startAfter = opts.startAfterSeconds ?? 0;
        await state.boss.send(name, data, { startAfter, singletonKey: opts.singletonKey });
        // A job that can start now NOTIFYs at its commit; one that starts later is this instance's to wake.
        if (startAfter > 0) state.wakes.after(name, startAfter * 1000);
      } catch (err) {
        log.warn("job enqueue failed; the sweep will pick the work up", { queue: name, err });
      }
    },
  };
}

/** Typed worker for a queue: the plan holds workers of any data. */
/** `concurrency`: how many batches this instance works at once (each fetched on its own). */
export function worker<T extends object>(
  queue: JobQueue<T>,
  opts: { pollingIntervalSeconds: number; batchSize?: number; concurrency?: number },
  work: (data: T) => Promise<void>,
): JobWorker {
  return { queue: queue as JobQueue<object>, ...opts, work: work as (data: object) => Promise<void> };
}

export function isRunning(): boolean {
  return running.value !== undefined;
}

/** Starts pg-boss and the plan's workers and schedules; a second call returns the running queue. */
export async function startJobs(plan: JobPlan): Promise<PgBoss> {
  if (running.value) return running.value.boss;
  // PostgreSQL itself (not a pooler in transaction mode), and of several hosts the one taking writes.
  const url = directDatabaseUrl();
  const options = connectionOptions(url, {
    applicationName: `payments-jobs:${process.pid}`,
    pooled: false,
    statementTimeoutMs: jobRunnerStatementTimeoutMs(),
  });
  // The pool's bounded wait too: a request sending a job after its commit (a refund, a withdrawal) must
  // not wait for ever behind a job runner whose connections are all busy or hung.
  const sql = postgres(url, {
    ...options,
    ...pgBossClientOptions,
    max: 4,
    queue_timeout: env().DB_POOL_WAIT_MS || null,
  });
  // pg-boss's LISTEN goes on the process's one listening connection, beside the key cache's and the
  // webhook dispatcher's.
  const db = postgresJsDatabase(sql, async (channel, onNotification, onReconnect) => {
    const sub = await listen(getPool(), channel, { notify: onNotification, listening: onReconnect });
    return { close: sub.unlisten };
  });
  const boss = new PgBoss({
    db,
    schema: SCHEMA,
    useListenNotify: true,
    superviseIntervalSeconds: SUPERVISE_SECONDS,
    monitorIntervalSeconds: SUPERVISE_SECONDS,
    queueCacheIntervalSeconds: QUEUE_CACHE_SECONDS,
    flowIntervalSeconds: FLOW_SECONDS,
    cronWorkerIntervalSeconds: CRON_WORKER_SECONDS,
    monitorVacuum: false,
  });
  boss.on("warning", (w: { message: string; data?: { type?: string } }) => {
    if (w.data?.type === "listen_notify_unavailable")
      log.warn("job queue without NOTIFY; polling", { reason: w.message });
  });
  boss.on("error", (err: unknown) => {
    // 57P01: the database is shutting down with us (Ctrl-C reaches the embedded server too).
    if ((err as { code?: string }).code === "57P01") return;
    log.error("job queue error", { err });
  });
  try {
    await boss.start();
  } catch (err) {
    await sql.end({ timeout: 1 });
    throw err;
  }
  const wakes = new Wakes(boss, sql, SCHEMA);
  const queues = new Map(
    [...plan.workers.map((w) => w.queue), ...plan.recurring.map((r) => r.queue)].map((q) => [q.name, q]),
  );
  for (const q of queues.values()) {
    await boss.createQueue(q.name, q.options);
    // createQueue keeps an existing queue as it was: a database made by an older version gets the
    // current options (the heartbeat above) this way. The policy cannot change after creation.
    const { policy: _policy, ...changeable } = q.options;
    await boss.updateQueue(q.name, changeable);
  }
  for (const w of plan.workers) {
    // A batch's jobs run side by side and settle one by one: one that throws is retried alone, not
    // with its whole batch. While fetches come back full the worker fetches again at once instead
    // of waiting for its next poll, so a backlog drains at the speed of the work, not of the poll.
    const options = {
      pollingIntervalSeconds: w.pollingIntervalSeconds,
      notifyPollingIntervalSeconds: SAFETY_POLL_SECONDS,
      batchSize: w.batchSize ?? 1,
      localConcurrency: w.concurrency ?? 1,
      burstWhenBatchFull: true,
      perJobResults: true,
    } as const;
    const retries = w.queue.options.retryLimit !== 0;
    const workId = await boss.work<object, unknown, typeof options>(w.queue.name, options, async (jobs) => {
      const outcomes = await Promise.allSettled(jobs.map((job) => w.work(job.data)));
      // A failed job with retries left comes back later, announced by nothing: its retry is woken.
      if (retries)
        wakes.afterFailures(
          w.queue.name,
          jobs.filter((_, i) => outcomes[i].status === "rejected").map((j) => j.id),
        );
      return jobs.map((job, i) => {
        const outcome = outcomes[i];
        if (outcome.status === "fulfilled") return { id: job.id, status: "completed" as const };
        const reason: unknown = outcome.reason;
        return {
          id: job.id,
          status: "failed" as const,
          output: { message: reason instanceof Error ? reason.message : String(reason) },
        };
      });
    });
    wakes.register(
      w.queue.name,
      boss
        .getWipData()
        .filter((d) => d.workId === workId)
        .map((d) => d.id),
    );
  }
  const timers: NodeJS.Timeout[] = [];
  for (const r of plan.recurring) {
    // The same singletonKey as the timers' sends: a "stately" queue holds back only jobs of one key, so
    // with none the minute's scheduled job could run beside a timer's (two sweeps at once).
    await boss.schedule(r.queue.name, "* * * * *", {}, { singletonKey: "tick" });
    const timer = setInterval(() => {
      boss
        .send(r.queue.name, {}, { singletonKey: "tick" })
        // The tick's job NOTIFYs when it is new; one already waiting (a stately queue keeps one) is taken now too.
        .then(() => wakes.now(r.queue.name))
        .catch((err: unknown) => log.warn("recurring job enqueue failed", { queue: r.queue.name, err }));
    }, r.tickSeconds * 1000);
    timer.unref();
    timers.push(timer);
  }
  running.value = { boss, timers, sql, wakes };
  return boss;
}

/** How many jobs wait and run per queue, as pg-boss last counted them (its monitor, once a minute). */
export type QueueDepth = { name: string; ready: number; deferred: number; active: number; failed: number };

/** Every queue's depth, or null when this process runs no job runner. */
export async function queueDepths(): Promise<QueueDepth[] | null> {
  const state = running.value;
  if (!state) return null;
  const queues = await state.boss.getQueues();
  return queues.map((q) => ({
    name: q.name,
    ready: q.readyCount,
    deferred: q.deferredCount,
    active: q.activeCount,
    failed: q.failedCount,
  }));
}

/**
 * Stops taking jobs and lets the running ones finish, for at most `timeoutMs` (pg-boss then fails
 * what is still running, and another instance retries it: jobs are at-least-once).
 */
export async function stopJobs(timeoutMs = 10_000): Promise<void> {
  const state = running.value;
  running.value = undefined;
  if (!state) return;
  for (const t of state.timers) clearInterval(t);
  state.wakes.stop();
  try {
    await state.boss.stop({ graceful: true, timeout: timeoutMs });
  } finally {
    await state.sql.end({ timeout: 5 });
  }
}
