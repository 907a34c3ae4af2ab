import path from "node:path";
import postgres from "postgres";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";

export const MIGRATIONS_DIR = path.resolve(process.cwd(), "db/migrations");

/** Applies db/migrations on a dedicated single connection; drizzle records what ran. */
export async function runMigrations(url: string, migrationsFolder = MIGRATIONS_DIR): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    // Two instances starting together must not apply the same migration twice.
    await sql`select pg_advisory_lock(727274)`;
    await migrate(drizzle(sql), { migrationsFolder });
    await sql`select pg_advisory_unlock(727274)`;
  } finally {
    await sql.end({ timeout: 5 });
  }
}
