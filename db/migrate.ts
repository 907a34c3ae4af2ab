import path from "node:path";
import postgres from "postgres";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import { targetSessionAttrs } from "@/lib/database-url";

export const MIGRATIONS_DIR = path.resolve(process.cwd(), "db/migrations");

/**
 * Applies db/migrations on a dedicated single connection; drizzle records what ran. `url` must reach
 * PostgreSQL itself, not a pooler in transaction mode: the advisory lock below is held by the session.
 * Of several hosts, the one that takes writes.
 */
export async function runMigrations(url: string, migrationsFolder = MIGRATIONS_DIR): Promise<void> {
  const sql = postgres(url, {
    max: 1,
    onnotice: () => {},
    target_session_attrs: targetSessionAttrs(url) ?? "read-write",
  });
  try {
    // Two instances starting together must not apply the same migration twice.
    await sql`select pg_advisory_lock(727274)`;
    await migrate(drizzle(sql), { migrationsFolder });
    await sql`select pg_advisory_unlock(727274)`;
  } finally {
    await sql.end({ timeout: 5 });
  }
}
