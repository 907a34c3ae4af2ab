import { lt, sql } from "drizzle-orm";
import postgres from "postgres";
import { connectionOptions, db, openPool } from "@/db";
import { rateLimits } from "@/db/schema";
import { env } from "@/lib/env";
import { DomainError } from "@/lib/errors";
import { log } from "@/lib/log";
import { noteRateLimit, type RateLimitStanding } from "@/lib/request-context";
import { processSingleton } from "@/lib/singleton";
import { wallClockMs } from "@/lib/wall-clock";

// Rate limits (docs/api.md#rate-limits): at most `limit` requests per key per calendar minute, across every
// instance, without a database round trip per request. Counting one upsert per request on a shared
// (key, minute) row queued every request of one merchant on that row's lock and cost 55–70% of the
// throughput (docs/performance.md). Instead each instance decides from memory and reconciles with PostgreSQL in
// the background, once per SYNC_INTERVAL_MS: one statement adds every key's local count to its shared
// row and reads the shared total back.
//
// An instance admits a request when the shared total it last read plus what it admitted since is below
// the limit. What it admitted is always in its own view, so one instance alone is exact and no instance
// ever admits more than `limit` in a minute. What it cannot see is what other instances admitted and
// have not yet written (at most one interval old), plus what they wrote after its last read (at most one
// interval old): once the shared total reaches the limit, every instance stops within two intervals.
// So, per key and minute, with N instances:
//   admitted ≤ limit + the requests for that key the instances receive during two sync intervals
//              (plus one sync's round trip) after the shared total reached the limit,
//   and never more than N × limit.
// docs/api.md states this for operators. If PostgreSQL is unreachable, each instance keeps counting on
// its own (at most `limit` per instance) and adds its count once a sync succeeds.
//
// rate-limiter-flexible was considered: its PostgreSQL store also writes once per request, and its
// memory store does not hold across instances; what is needed here is the batching in between.

export class RateLimited extends DomainError {
  override readonly status: number = 429;
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

export const SYNC_INTERVAL_MS = 1000;
const WINDOW_MS = 60_000;
/** Keys tracked in memory per instance; beyond it a new key is counted in PostgreSQL per request. */
const MAX_KEYS = 100_000;

type Count = {
  /** Start of the key's minute, in ms since the epoch. */
  window: number;
  /** The shared total as last read from PostgreSQL (this instance's synced requests included). */
  shared: number;
  /** Admitted here and not yet written to PostgreSQL. */
  pending: number;
};

export type LimiterOptions = {
  syncIntervalMs?: number;
  maxKeys?: number;
  now?: () => number;
  /** The database the counts are shared in; default: the app's pool's. */
  databaseUrl?: () => string;
};

export class SharedRateLimiter {
  private readonly counts = new Map<string, Count>();
  private readonly syncIntervalMs: number;
  private readonly maxKeys: number;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  private syncing = false;
  private queue: Promise<void> = Promise.resolve();
  private failing = false;
  private readonly databaseUrl: () => string;
  private client: { url: string; sql: postgres.Sql } | undefined;

  constructor(opts: LimiterOptions = {}) {
    this.syncIntervalMs = opts.syncIntervalMs ?? SYNC_INTERVAL_MS;
    this.maxKeys = opts.maxKeys ?? MAX_KEYS;
    this.now = opts.now ?? wallClockMs;
    this.databaseUrl = opts.databaseUrl ?? (() => openPool().url);
  }

  /**
   * A connection of its own: a sync writes one row per active key (tens of milliseconds with
   * thousands of keys), and requests that postgres.js queued behind it on a pool connection would
   * wait that long. Closed when idle.
   */
  private connection(): postgres.Sql {
    const url = this.databaseUrl();
    if (this.client?.url !== url) {
      void this.client?.sql.end({ timeout: 1 });
      // The pool's own connection options: behind a transaction pooler, nothing prepared by name.
      const options = connectionOptions(url, {
        applicationName: "payments-rate-limit",
        pooled: env().DB_POOLER === "transaction",
      });
      this.client = { url, sql: postgres(url, { ...options, max: 1, idle_timeout: 10 }) };
    }
    return this.client.sql;
  }

  /**
   * Counts one request for `key` if the minute's allowance has room: 0 when admitted, otherwise the
   * seconds until the window ends (nothing counted). Synchronous unless this instance already tracks
   * maxKeys keys and `key` is new, which then costs one upsert.
   */
  take(key: string, limit: number): number | Promise<number> {
    const now = this.now();
    const window = now - (now % WINDOW_MS);
    let count = this.counts.get(key);
    if (count === undefined || count.window !== window) {
      if (count === undefined && this.counts.size >= this.maxKeys) return this.takeInDatabase(key, limit, window, now);
      // A new minute: last minute's unsynced requests no longer decide anything and are dropped.
      count = { window, shared: 0, pending: 0 };
      this.counts.set(key, count);
      this.timer ??= this.startTimer();
    }
    if (count.shared + count.pending >= limit) return secondsLeft(window, now);
    count.pending++;
    return 0;
  }

  /** Like take, but counts nothing: the seconds to wait if `key` has used its allowance, else 0. */
  peek(key: string, limit: number): number {
    const now = this.now();
    const window = now - (now % WINDOW_MS);
    const count = this.counts.get(key);
    if (count === undefined || count.window !== window) return 0;
    return count.shared + count.pending >= limit ? secondsLeft(window, now) : 0;
  }

  /**
   * What is left of `key`'s allowance as this instance sees it, and the seconds until its minute ends;
   * counts nothing. Other instances' requests since the last sync are not in it, so with several
   * instances it can be a little more than what is really left (the same overshoot take() allows).
   */
  standing(key: string, limit: number): RateLimitStanding {
    const now = this.now();
    const window = now - (now % WINDOW_MS);
    const count = this.counts.get(key);
    const used = count === undefined || count.window !== window ? 0 : count.shared + count.pending;
    return { limit, remaining: Math.max(0, limit - used), resetSeconds: secondsLeft(window, now) };
  }

  /** Writes every pending count and reads the shared totals back; resolves once what was taken before the call is written. */
  sync(): Promise<void> {
    const run = this.queue.then(() => this.syncOnce());
    this.queue = run.catch(() => {});
    return run;
  }

  /** Stops the background sync (tests, shutdown); pending counts are dropped. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    void this.client?.sql.end({ timeout: 1 });
    this.client = undefined;
  }

  private startTimer(): NodeJS.Timeout {
    const timer = setInterval(() => {
      if (this.syncing) return;
      this.sync().then(
        () => {
          if (this.failing) log.info("rate limit sync recovered");
          this.failing = false;
        },
        (err: unknown) => {
          if (!this.failing) log.warn("rate limit sync failed; counting per instance until it recovers", { err });
          this.failing = true;
        },
      );
    }, this.syncIntervalMs);
    // Never what keeps a process alive.
    timer.unref();
    return timer;
  }

  private async syncOnce(): Promise<void> {
    const now = this.now();
    const current = now - (now % WINDOW_MS);
    const batch: { key: string; count: Count; sent: number }[] = [];
    for (const [key, count] of this.counts) {
      if (count.window !== current) this.counts.delete(key);
      else if (count.pending > 0) batch.push({ key, count, sent: count.pending });
    }
    if (this.counts.size === 0 && this.timer) {
      // Nothing counted this minute: the timer sleeps until the next request (take() starts it again).
      clearInterval(this.timer);
      this.timer = undefined;
    }
    if (batch.length === 0) return;
    // One lock order for every instance's statement, so two batches never deadlock on each other's rows.
    batch.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    this.syncing = true;
    try {
      // Every count in the batch is of the current minute (older ones were dropped above).
      const rows = await this.connection().unsafe<{ key: string; count: number }[]>(
        `insert into rate_limits (key, window_start, count)
         select r.k, to_timestamp($1::bigint / 1000.0), r.c from unnest($2::text[], $3::int[]) as r(k, c)
         on conflict (key, window_start) do update set count = rate_limits.count + excluded.count
         returning key, count`,
        [current, batch.map((b) => b.key), batch.map((b) => b.sent)],
        { prepare: true },
      );
      const sentByKey = new Map(batch.map((b) => [b.key, b]));
      for (const row of rows) {
        const { key, count, sent } = sentByKey.get(row.key)!;
        // The key may have moved to a new minute while the statement ran; that count starts afresh.
        if (this.counts.get(key) !== count) continue;
        count.shared = Number(row.count);
        count.pending -= sent;
      }
    } finally {
      this.syncing = false;
    }
  }

  /** The fallback when memory holds maxKeys keys: exact, one upsert per request, like a limiter without memory. */
  private async takeInDatabase(key: string, limit: number, window: number, now: number): Promise<number> {
    const [row] = await db().execute<{ count: number }>(sql`
      insert into rate_limits (key, window_start, count) values (${key}, to_timestamp(${window} / 1000.0), 1)
      on conflict (key, window_start) do update set count = rate_limits.count + 1
      returning count`);
    // Not in memory, so standing() cannot tell: the answer's headers come from this count.
    noteRateLimit({ limit, remaining: Math.max(0, limit - Number(row.count)), resetSeconds: secondsLeft(window, now) });
    return Number(row.count) > limit ? secondsLeft(window, now) : 0;
  }
}

function secondsLeft(window: number, now: number): number {
  return Math.max(1, Math.ceil((window + WINDOW_MS - now) / 1000));
}

/** This process's limiter: Next's bundle and the server's copy of lib/ share one. */
export function rateLimiter(): SharedRateLimiter {
  return processSingleton("rate-limiter", () => new SharedRateLimiter());
}

function refused(limit: number, retryAfter: number): RateLimited {
  return new RateLimited(
    `Rate limit exceeded: at most ${limit} requests per minute; retry in ${retryAfter} s`,
    retryAfter,
  );
}

/**
 * Counts one request against `bucket` at `limit` per minute (default RATE_LIMIT_PER_MINUTE; 0: limits
 * off); throws RateLimited past it. Returns a promise only in the limiter's over-capacity fallback.
 * Either way the request's answer is told where the bucket stands (its RateLimit-* headers).
 */
export function enforceRateLimit(
  bucket: string,
  limit: number = env().RATE_LIMIT_PER_MINUTE,
): Promise<void> | undefined {
  if (limit === 0) return undefined;
  const limiter = rateLimiter();
  const wait = limiter.take(bucket, limit);
  if (typeof wait === "number") {
    noteRateLimit(limiter.standing(bucket, limit));
    if (wait > 0) throw refused(limit, wait);
    return undefined;
  }
  return wait.then((seconds) => {
    if (seconds > 0) throw refused(limit, seconds);
  });
}

/** Throws RateLimited if `bucket` has used this minute's RATE_LIMIT_PER_MINUTE, counting nothing. */
export function checkRateLimit(bucket: string): void {
  const limit = env().RATE_LIMIT_PER_MINUTE;
  if (limit === 0) return;
  const wait = rateLimiter().peek(bucket, limit);
  if (wait > 0) {
    noteRateLimit({ limit, remaining: 0, resetSeconds: wait });
    throw refused(limit, wait);
  }
}

/** Tells the request's answer where `bucket` stands at RATE_LIMIT_PER_MINUTE, counting nothing (an answer refused before it was counted). */
export function reportRateLimit(bucket: string): void {
  const limit = env().RATE_LIMIT_PER_MINUTE;
  if (limit !== 0) noteRateLimit(rateLimiter().standing(bucket, limit));
}

export async function purgeOldRateLimitWindows(): Promise<void> {
  await db()
    .delete(rateLimits)
    .where(lt(rateLimits.windowStart, sql`now() - interval '5 minutes'`));
}
