import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { drizzle, type PostgresJsDatabase } from "drizzle-orm/postgres-js";
import { env } from "@/lib/env";
import { processSlot } from "@/lib/singleton";
import * as schema from "./schema";

export type Db = PostgresJsDatabase<typeof schema>;
/** A transaction handle: what every multi-step write receives. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
/** Either the pool or a transaction: query functions accept both. */
export type Executor = Db | Tx;

/** `applicationName` tells this process's connections apart in pg_stat_activity (pool metrics, lib/ops). */
export type Pool = { sql: postgres.Sql; db: Db; url: string; applicationName: string };

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
 * Seconds a dead connection waits before it reconnects, by consecutive failures. The driver's own
 * backoff grows to 20 s after a handful of failures (a restart that kills every connection gets
 * there at once), so the pool would stay down long after the server is back: here at most 1 s.
 */
export function reconnectDelaySeconds(attempt: number): number {
  return Math.min(0.05 * 2 ** attempt, 1) * (0.5 + Math.random() / 2);
}

function open(url: string): Pool {
  // Unique per process (instances in containers are often all pid 1), within PostgreSQL's 63 bytes.
  const applicationName = `payments:${process.pid}:${randomBytes(3).toString("hex")}`;
  const sql = postgres(url, {
    max: env().DB_POOL_SIZE,
    connect_timeout: env().DB_CONNECT_TIMEOUT_SECONDS,
    backoff: reconnectDelaySeconds,
    onnotice: () => {},
    // bigint/numeric come back as strings; the schema's column modes decide how they are read.
    // The timeouts are session settings sent at connect: no statement of ours waits on PostgreSQL, or
    // on another's lock, without an end (docs/operations.md, "Deadlines").
    connection: { application_name: applicationName, statement_timeout: env().DB_STATEMENT_TIMEOUT_MS, lock_timeout: env().DB_LOCK_TIMEOUT_MS },
  });
  return { sql, db: drizzle(sql, { schema }), url, applicationName };
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
  if (pool) await pool.sql.end({ timeout: 5 });
}

export { schema };
