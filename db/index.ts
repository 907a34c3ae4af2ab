import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { drizzle, type PostgresJsDatabase } from "drizzle-orm/postgres-js";
import { targetSessionAttrs } from "@/lib/database-url";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { processSlot } from "@/lib/singleton";
import * as schema from "./schema";

export type Db = PostgresJsDatabase<typeof schema>;
/** A transaction handle: what every multi-step write receives. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
/** Either the pool or a transaction: query functions accept both. */
export type Executor = Db | Tx;

/** `applicationName` tells this process's connections apart in pg_stat_activity (pool metrics, lib/ops). */
export type Pool = {
  sql: postgres.Sql;
  db: Db;
  url: string;
  applicationName: string;
  /** Where LISTEN connects (db/notifications.ts): PostgreSQL itself, even behind a transaction pooler. */
  listenUrl: string;
  /** Clients opened for this pool elsewhere (the LISTEN connection), ended by closeDb. */
  closeWith: Array<() => Promise<void>>;
  /** The standby for heavy reads (DATABASE_REPLICA_URL; db/replica.ts decides when it is used). */
  replica?: { sql: postgres.Sql; db: Db; url: string } | null;
};

// Next's bundle and the server's own copy of lib/ are two module instances in one process, and must
// share one pool rather than open two.
const current = processSlot<Pool>("db-pool");

export function databaseUrl(): string {
  const url = process.env.DATABASE_URL ?? env().DATABASE_URL;
  if (!url) {
    throw new Error("DATABASE_URL is not set and no embedded PostgreSQL was started (run through `npm start`)");
  }
  return url;
}

/**
 * PostgreSQL itself rather than a pooler in transaction mode: migrations (a session advisory lock),
 * the job runner and LISTEN need a session that stays theirs. DATABASE_URL unless DATABASE_DIRECT_URL is set.
 */
export function directDatabaseUrl(): string {
  return env().DATABASE_DIRECT_URL ?? databaseUrl();
}

/**
 * Seconds a dead connection waits before it reconnects, by consecutive failures. The driver's own
 * backoff grows to 20 s after a handful of failures (a restart that kills every connection gets
 * there at once), so the pool would stay down long after the server is back: here at most 1 s.
 */
export function reconnectDelaySeconds(attempt: number): number {
  return Math.min(0.05 * 2 ** attempt, 1) * (0.5 + Math.random() / 2);
}

/**
 * A commit waiting for its synchronous standby is released by a cancel or by the end of its session
 * (pg_cancel_backend, pg_terminate_backend, a fast shutdown; statement_timeout is off by then).
 * PostgreSQL then reports it committed, with only this warning to say the standby may not have it:
 * an operator must hear of it, as a failover now could lose that acknowledged transaction. The
 * routine is matched because the message is translated by the server's lc_messages.
 */
function onnotice(notice: postgres.Notice): void {
  if (notice.routine === "SyncRepWaitForLSN") {
    log.error(
      "a commit was acknowledged before a synchronous standby confirmed it (statement_timeout or a cancel ended the wait)",
      {
        message: notice.message,
        detail: notice.detail,
      },
    );
  }
}

/**
 * TCP keepalives on both ends of every connection, so that a peer that vanished (a host lost, a
 * network partition) is noticed in seconds rather than after the kernel's two hours: the server ends a
 * silent client's session, and its locks (docs/operations.md, "Sessions that stall"). The server's
 * are session settings (PostgreSQL: idle 5 s, then a probe every 2 s, 3 unanswered end it); the client's
 * is postgres.js's (idle 5 s, then the kernel's probes). tcp_user_timeout is left alone: it would also
 * end a session whose client is slowly reading a long export.
 */
export const KEEPALIVE = {
  serverSettings: {
    tcp_keepalives_idle: 5,
    tcp_keepalives_interval: 2,
    tcp_keepalives_count: 3,
  },
  clientIdleSeconds: 5,
} as const;

/**
 * Past the statement timeout, how long a pooled connection's statement may go unanswered, nothing
 * passing either way, before the connection is taken for lost: the server would have ended the
 * statement by then (57014, an answer), so silence means the pooler dropped the answer.
 */
export const POOLED_ANSWER_MARGIN_MS = 5000;

/**
 * What every connection of ours to a server is opened with. Behind a pooler in transaction mode
 * (`pooled`), consecutive statements may run on different server sessions: nothing is prepared by
 * name and no session setting is sent (PgBouncer refuses unknown startup parameters); the timeouts
 * then come from the role's or the database's settings (docs/operations.md). Nor is a statement sent
 * before the previous one's answer is complete: PgBouncer before 1.21 hands the server connection
 * back at the first ReadyForQuery and drops the answer to what was pipelined behind it ("got packet
 * '1' from server when not linked"), leaving that query waiting for ever.
 */
export function connectionOptions(
  url: string,
  o: { applicationName: string; pooled: boolean; statementTimeoutMs?: number; readOnly?: boolean },
): postgres.Options<Record<string, never>> {
  const e = env();
  const settings: Record<string, string | number> = o.pooled
    ? {}
    : {
        statement_timeout: o.statementTimeoutMs ?? e.DB_STATEMENT_TIMEOUT_MS,
        lock_timeout: e.DB_LOCK_TIMEOUT_MS,
        idle_in_transaction_session_timeout: e.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS,
        ...KEEPALIVE.serverSettings,
        ...(o.readOnly ? { default_transaction_read_only: "on" } : {}),
      };
  return {
    connect_timeout: e.DB_CONNECT_TIMEOUT_SECONDS,
    keep_alive: KEEPALIVE.clientIdleSeconds,
    backoff: reconnectDelaySeconds,
    onnotice,
    prepare: !o.pooled,
    ...(o.pooled
      ? {
          max_pipeline: 0,
          // Whatever else a pooler does with an answer: the connection is destroyed (its queries fail,
          // a 503 for a request) and the pool opens another, instead of keeping a slot that never frees.
          answer_timeout: e.DB_STATEMENT_TIMEOUT_MS ? e.DB_STATEMENT_TIMEOUT_MS + POOLED_ANSWER_MARGIN_MS : null,
        }
      : {}),
    // A server that does not take writes (a standby, an old primary that came back as one) is passed
    // over, and with none left the query fails at once (a 503) instead of writing nowhere. The URL's
    // own target_session_attrs wins (a replica URL may ask for a standby).
    target_session_attrs: targetSessionAttrs(url) ?? (o.readOnly ? undefined : "read-write"),
    // bigint/numeric come back as strings; the schema's column modes decide how they are read.
    // The timeouts are session settings sent at connect: no statement of ours waits on PostgreSQL, or
    // on another's lock, without an end (docs/operations.md, "Deadlines").
    connection: { application_name: o.applicationName, ...settings },
  };
}

function open(url: string): Pool {
  const e = env();
  const pooled = e.DB_POOLER === "transaction";
  // Unique per process (instances in containers are often all pid 1), within PostgreSQL's 63 bytes.
  const applicationName = `payments:${process.pid}:${randomBytes(3).toString("hex")}`;
  // A request's query waits at most DB_POOL_WAIT_MS for a connection (then a 503), not for as long as a
  // stalled pool takes to free one: by then its request was answered, and the work is only a backlog.
  const queue_timeout = e.DB_POOL_WAIT_MS || null;
  const sql = postgres(url, {
    ...connectionOptions(url, { applicationName, pooled }),
    max: e.DB_POOL_SIZE,
    queue_timeout,
  });
  // Behind a pooler LISTEN must reach PostgreSQL itself, or notifications would go to whichever
  // session the pooler picked.
  const listenUrl = pooled ? directDatabaseUrl() : url;
  const replicaUrl = e.DATABASE_REPLICA_URL;
  let replica: Pool["replica"] = null;
  if (replicaUrl) {
    const replicaSql = postgres(replicaUrl, {
      ...connectionOptions(replicaUrl, { applicationName: `${applicationName}:r`, pooled, readOnly: true }),
      max: e.DB_POOL_SIZE,
      queue_timeout,
    });
    replica = { sql: replicaSql, db: drizzle(replicaSql, { schema }), url: replicaUrl };
  }
  return { sql, db: drizzle(sql, { schema }), url, applicationName, listenUrl, closeWith: [], replica };
}

export function getPool(): Pool {
  const url = databaseUrl();
  const cached = current.value;
  if (cached && cached.url === url) return cached;
  current.value = open(url);
  return current.value;
}

/** The open pool without re-reading the configuration: for per-request checks that it is still the same one. */
export function openPool(): Pool {
  return current.value ?? getPool();
}

export function db(): Db {
  return getPool().db;
}

export async function closeDb(): Promise<void> {
  const pool = current.value;
  current.value = undefined;
  if (!pool) return;
  await Promise.all([
    pool.sql.end({ timeout: 5 }),
    ...pool.closeWith.map((close) => close()),
    pool.replica ? pool.replica.sql.end({ timeout: 5 }) : null,
  ]);
}

export { schema };
