import { env } from "@/lib/env";
import { databaseUnavailable } from "@/lib/http/unavailable";
import { log } from "@/lib/log";
import { processSlot } from "@/lib/singleton";
import { openPool, type Db, type Pool } from "./index";

// The merchants' heavy reads (statement, exports, order lists and search) may go to a streaming
// standby (DATABASE_REPLICA_URL), but only while it is known to be at most REPLICA_MAX_LAG_SECONDS
// behind; otherwise, and whenever it cannot answer, they go to the primary. Anything that decides
// about money (balances before a debit, state changes, idempotency) never comes here.
//
// How far behind: the primary's WAL insert position is sampled with the instant the sample was asked
// for, and the standby's replay position read alongside. Every commit made before a sample's instant
// lies below that sample's position, so once the standby has replayed past it, the standby holds
// every commit made before that instant: its staleness is at most now minus that instant. Unlike
// now() - pg_last_xact_replay_timestamp(), this stays right when the primary is idle (nothing new to
// replay is not lag) and compares no clocks across machines. Probes run when a read asks and the last
// one is older than a quarter of the bound (at most a second): a read never waits for one.

type Sample = { at: number; lsn: bigint };

type State = {
  pool: Pool;
  replica: NonNullable<Pool["replica"]>;
  /** performance.now() before which every primary commit is known to be on the standby; null: unknown. */
  freshAsOf: number | null;
  samples: Sample[];
  lastProbeAt: number;
  probing: Promise<void> | null;
  /** Why reads go to the primary now, logged when it changes; null while the standby is used. */
  reason: string | null;
};

const slot = processSlot<State>("db-replica");
const PROBE_TIMEOUT_MS = 2000;
const MAX_SAMPLES = 64;

/** "16/B374D848" as a number. */
export function parseLsn(text: string): bigint {
  const [hi, lo] = text.split("/");
  return (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`);
}

function maxLagMs(): number {
  return env().REPLICA_MAX_LAG_SECONDS * 1000;
}

function state(): State | null {
  const pool = openPool();
  if (!pool.replica) return null;
  let s = slot.value;
  if (!s || s.pool !== pool) {
    s = slot.value = {
      pool,
      replica: pool.replica,
      freshAsOf: null,
      samples: [],
      lastProbeAt: -Infinity,
      probing: null,
      reason: "not probed yet",
    };
  }
  return s;
}

function setReason(s: State, reason: string | null, err?: unknown) {
  if (reason === s.reason) return;
  const was = s.reason;
  s.reason = reason;
  if (reason === null) log.info("read replica: heavy reads go to the standby", { was });
  else if (was !== "not probed yet" || err) log.warn("read replica: heavy reads go to the primary", { reason, err });
}

async function probeOnce(s: State): Promise<void> {
  const at = performance.now();
  s.lastProbeAt = at;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${PROBE_TIMEOUT_MS} ms`)), PROBE_TIMEOUT_MS);
  });
  try {
    const [[primary], [standby]] = await Promise.race([
      Promise.all([
        s.pool.sql<{ lsn: string }[]>`select pg_current_wal_insert_lsn()::text as lsn`,
        s.replica.sql<
          { recovering: boolean; lsn: string | null }[]
        >`select pg_is_in_recovery() as recovering, pg_last_wal_replay_lsn()::text as lsn`,
      ]),
      timeout,
    ]);
    if (!standby.recovering || standby.lsn === null) {
      // Not a standby (misconfigured, or promoted): nothing says how it relates to our primary.
      s.freshAsOf = null;
      return setReason(s, "DATABASE_REPLICA_URL is not a standby in recovery");
    }
    s.samples.push({ at, lsn: parseLsn(primary.lsn) });
    if (s.samples.length > MAX_SAMPLES) s.samples.shift();
    const replayed = parseLsn(standby.lsn);
    for (let i = s.samples.length - 1; i >= 0; i--) {
      if (s.samples[i].lsn <= replayed) {
        s.freshAsOf = Math.max(s.freshAsOf ?? -Infinity, s.samples[i].at);
        // Older samples can no longer give a later instant.
        s.samples.splice(0, i);
        break;
      }
    }
    setReason(s, lagOf(s) <= maxLagMs() ? null : `more than ${env().REPLICA_MAX_LAG_SECONDS} s behind`);
  } catch (err) {
    setReason(s, "the standby or the primary did not answer the lag probe", err);
  } finally {
    clearTimeout(timer);
  }
}

function lagOf(s: State, now = performance.now()): number {
  return s.freshAsOf === null ? Infinity : now - s.freshAsOf;
}

/** Measures the standby's lag now (reads start a probe by themselves; tests and start-up may wait for one). */
export async function probeReplica(): Promise<void> {
  const s = state();
  if (!s) return;
  s.probing ??= probeOnce(s).finally(() => (s.probing = null));
  await s.probing;
}

/** At most how many ms the standby is behind, or null when it is not known (or there is none). */
export function replicaLagBoundMs(): number | null {
  const s = state();
  if (!s) return null;
  const lag = lagOf(s);
  return Number.isFinite(lag) ? lag : null;
}

/**
 * Where a heavy read runs: the standby while it is known to be within REPLICA_MAX_LAG_SECONDS,
 * else the primary. Synchronous: a probe due is started, not awaited.
 */
export function readDb(): Db {
  const s = state();
  if (!s) return openPool().db;
  const now = performance.now();
  if (!s.probing && now - s.lastProbeAt >= Math.min(1000, maxLagMs() / 4)) void probeReplica();
  return lagOf(s, now) <= maxLagMs() ? s.replica.db : s.pool.db;
}

/** Errors that say the standby cannot answer now, rather than that the query is wrong. */
function standbyCannotAnswer(err: unknown): boolean {
  if (databaseUnavailable(err)) return true;
  // A standby cancels a query whose rows recovery must change (40001), or that holds a buffer
  // recovery needs (40P01): "canceling statement due to conflict with recovery".
  const code =
    (err as { code?: unknown; cause?: { code?: unknown } } | null)?.code ??
    (err as { cause?: { code?: unknown } } | null)?.cause?.code;
  return code === "40001" || code === "40P01";
}

/**
 * Runs a heavy read on readDb(); if the standby fails it for a reason of its own (unreachable,
 * restarting, a conflict with recovery), the standby is set aside until the next probe and the read
 * runs again on the primary.
 */
export async function onReadReplica<T>(read: (ex: Db) => Promise<T>): Promise<T> {
  const ex = readDb();
  const s = slot.value;
  if (!s || ex !== s.replica.db) return read(ex);
  try {
    return await read(ex);
  } catch (err) {
    if (!standbyCannotAnswer(err)) throw err;
    s.freshAsOf = null;
    setReason(s, "the standby failed a read", err);
    return read(s.pool.db);
  }
}
