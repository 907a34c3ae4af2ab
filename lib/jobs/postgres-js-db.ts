import type { Db as IDatabase } from "pg-boss";
import type postgres from "postgres";

// pg-boss runs its statements through this adapter on a postgres.js client of ours instead of its
// own `pg` pool: `pg` cannot parse a URL listing several hosts, does not pick the one that takes
// writes (target_session_attrs), and would have its own timeouts and reconnection rules. Its job
// processing then follows a failover the way the app's pool does (db/index.ts connectionOptions).

// pg-boss sends schema changes and maintenance as one `BEGIN; …; COMMIT;` script without parameters.
const STARTS_TRANSACTION = /^\s*BEGIN\b/i;

type Target = postgres.Sql | postgres.ReservedSql;

function run(target: Target, text: string, values?: unknown[]) {
  // Without parameters postgres.js uses the simple protocol, the only one that runs several
  // statements in one call; with them, each value is typed as the server describes its slot (an
  // array bound to `$1::uuid[]` arrives as an array).
  return values && values.length > 0
    ? target.unsafe(text, values as postgres.ParameterOrJSON<never>[])
    : target.unsafe(text);
}

/** One statement's rows, or a script's rows one statement after another, as `pg` and pg-boss's own adapters return them. */
function rowsOf(result: readonly unknown[]): unknown[] {
  return result.some(Array.isArray)
    ? result.flatMap((r) => (Array.isArray(r) ? [...(r as unknown[])] : []))
    : [...result];
}

/**
 * What the client under pg-boss must be opened with, so that values reach PostgreSQL as `pg` sends
 * them. undefined is null. A string is the parameter's text whatever its slot: pg-boss passes
 * `JSON.stringify(…)` to `$1::json` slots, which postgres.js would encode again into one JSON string
 * scalar ("cannot call json_to_recordset on a scalar"); anything else in a json slot is encoded once.
 */
export const pgBossClientOptions = {
  transform: { undefined: null },
  types: {
    json: {
      to: 114,
      from: [114, 3802],
      serialize: (x: unknown) => (typeof x === "string" ? x : JSON.stringify(x)),
      parse: (x: string): unknown => JSON.parse(x),
    },
  },
} satisfies postgres.Options<Record<string, postgres.PostgresType>>;

/**
 * How pg-boss hears its NOTIFY (a job that can start now was created): the process's one LISTEN
 * connection (db/notifications.ts). `onReconnect` after every LISTEN, so missed notifications are
 * made up for by a fetch.
 */
export type JobListen = NonNullable<IDatabase["listen"]>;

/**
 * pg-boss's database on a postgres.js client opened with `pgBossClientOptions`, reaching PostgreSQL
 * itself: pg-boss takes transaction-scoped advisory locks and, in its scripts, keeps a transaction
 * across statements.
 */
export function postgresJsDatabase(sql: postgres.Sql, listen?: JobListen): IDatabase {
  return {
    ...(listen ? { listen } : {}),
    async executeSql(text, values) {
      if (!STARTS_TRANSACTION.test(text)) return { rows: rowsOf(await run(sql, text, values)) };
      // A script that fails half-way leaves its session in the aborted transaction: on a shared
      // connection the statements queued behind it would fail too. It runs on a connection of its
      // own, rolled back on failure before it goes back to the pool.
      const reserved = await sql.reserve();
      try {
        return { rows: rowsOf(await run(reserved, text, values)) };
      } catch (err) {
        await reserved.unsafe("rollback").catch(() => {});
        throw err;
      } finally {
        reserved.release();
      }
    },
  };
}
