import postgres from "postgres";
import journal from "@/db/migrations/meta/_journal.json";
import { processSlot } from "@/lib/singleton";
import { withDeadline } from "./deadline";

// GET /readyz: can this instance serve? The database answers, it has every migration this build
// ships (a newer one, from a newer build rolling out, is fine), the job runner runs when this
// instance is meant to run it, and the instance is not shutting down. Each check says "ok" or what is
// wrong, in words an operator can act on, without the error's own text (it could name hosts or users).

/** "ok", "off" (not this instance's job), or what is wrong. */
export type CheckResult = "ok" | "off" | (string & {});
type CheckName = "database" | "migrations" | "jobs" | "shutdown";
export type Readiness = { ready: boolean; failed: CheckName[]; checks: Record<CheckName, CheckResult> };

/** The newest migration this build ships, as drizzle records it (created_at = the journal's `when`). */
export const NEWEST_MIGRATION = journal.entries.reduce((a, b) => (b.when > a.when ? b : a));

const DB_TIMEOUT_MS = 2000;

const draining = processSlot<boolean>("ops-draining");

/** From the first shutdown signal on, readiness fails, so load balancers stop sending new requests. */
export function markDraining(): void {
  draining.value = true;
}

export function isDraining(): boolean {
  return draining.value === true;
}

export type ReadinessDeps = {
  sql: postgres.Sql;
  /** Whether this instance runs the job runner (JOBS_ENABLED). */
  jobsExpected: boolean;
  jobsRunning: () => boolean;
};

async function database(sql: postgres.Sql): Promise<{ database: CheckResult; migrations: CheckResult }> {
  try {
    const [row] = await withDeadline(
      sql<{ last: string | null }[]>`select max(created_at)::text as last from drizzle.__drizzle_migrations`,
      DB_TIMEOUT_MS,
      "database",
    );
    const last = row.last === null ? null : Number(row.last);
    if (last === null)
      return { database: "ok", migrations: `none applied; this build needs up to ${NEWEST_MIGRATION.tag}` };
    if (last < NEWEST_MIGRATION.when)
      return {
        database: "ok",
        migrations: `behind: ${NEWEST_MIGRATION.tag} is not applied (run npm run db:migrate, or restart an instance: start-up applies them)`,
      };
    return { database: "ok", migrations: "ok" };
  } catch (err) {
    const code = (err as { code?: string }).code;
    // 42P01 undefined_table, 3F000 invalid_schema_name: the server answered; drizzle never migrated it.
    if (code === "42P01" || code === "3F000")
      return { database: "ok", migrations: `none applied; this build needs up to ${NEWEST_MIGRATION.tag}` };
    // The server's own errors carry a SQLSTATE; anything else is the connection (ECONNREFUSED,
    // CONNECT_TIMEOUT) or the deadline.
    const problem =
      err instanceof postgres.PostgresError
        ? `error ${code}`
        : `unreachable (${code ?? `no answer within ${DB_TIMEOUT_MS} ms`})`;
    return { database: problem, migrations: "unknown" };
  }
}

export async function checkReadiness(deps: ReadinessDeps): Promise<Readiness> {
  const db = await database(deps.sql);
  const jobs = !deps.jobsExpected ? "off" : deps.jobsRunning() ? "ok" : "not running";
  const shutdown = isDraining() ? "shutting down" : "ok";
  const checks: Record<CheckName, CheckResult> = { ...db, jobs, shutdown };
  const failed = (Object.keys(checks) as CheckName[]).filter((k) => checks[k] !== "ok" && checks[k] !== "off");
  return { ready: failed.length === 0, failed, checks };
}
