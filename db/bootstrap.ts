import path from "node:path";
import { env } from "@/lib/env";
import { startEmbeddedPostgres, type EmbeddedHandle } from "./embedded";
import { runMigrations } from "./migrate";

/**
 * Makes sure there is a migrated database to talk to and sets process.env.DATABASE_URL to it:
 * the configured DATABASE_URL, or else an embedded PostgreSQL under DATA_DIR.
 */
export async function ensureDatabase(
  opts: { log?: (line: string) => void } = {},
): Promise<{ url: string; embedded: EmbeddedHandle | null }> {
  const e = env();
  let embedded: EmbeddedHandle | null = null;
  let url = e.DATABASE_URL;
  if (!url) {
    embedded = await startEmbeddedPostgres({
      dataDir: path.join(e.DATA_DIR, "pg"),
      port: e.EMBEDDED_PG_PORT,
      database: "payments",
      persistent: true,
      log: opts.log,
    });
    url = embedded.url;
  }
  process.env.DATABASE_URL = url;
  // Behind a pooler in transaction mode, DATABASE_URL is the pooler: migrations need the server itself.
  await runMigrations(e.DATABASE_DIRECT_URL ?? url);
  return { url, embedded };
}
