import path from "node:path";
import postgres from "postgres";
import { parseDatabaseUrl, targetSessionAttrs } from "@/lib/database-url";
import { ConfigError, env } from "@/lib/env";
import { startEmbeddedPostgres, type EmbeddedHandle } from "./embedded";
import { runMigrations } from "./migrate";

/** The same URL (hosts, user, parameters) naming another database. */
function withDatabase(url: string, database: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^/?#]*)(\/[^?#]*)?/, `$1/${encodeURIComponent(database)}`);
}

/**
 * Creates the database `url` names when it does not exist and the role may create one; otherwise a
 * ConfigError of one line naming `variable`. Any other failure (the server unreachable) is left to
 * the migrations that follow, which report it.
 */
export async function ensureDatabaseExists(url: string, variable: string): Promise<"existed" | "created"> {
  const options = {
    max: 1,
    onnotice: () => {},
    connect_timeout: env().DB_CONNECT_TIMEOUT_SECONDS,
    target_session_attrs: targetSessionAttrs(url) ?? "read-write",
  } as const;
  const probe = postgres(url, options);
  try {
    await probe`select 1`;
    return "existed";
  } catch (err) {
    if ((err as { code?: string }).code !== "3D000") return "existed";
  } finally {
    await probe.end({ timeout: 1 });
  }
  const parsed = parseDatabaseUrl(url);
  const name = "error" in parsed ? "" : parsed.database;
  const user = "error" in parsed ? "" : parsed.user;
  const where = "error" in parsed ? "" : parsed.hosts.map((h) => `${h.host}:${h.port}`).join(",");
  // Created from the server's maintenance database, as createdb does.
  for (const maintenance of ["postgres", "template1"]) {
    const admin = postgres(withDatabase(url, maintenance), options);
    try {
      await admin.unsafe(`create database "${name.replaceAll('"', '""')}"`);
      return "created";
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === "42P04") return "existed"; // another instance created it meanwhile
      if (code === "3D000") continue;
      const why = code === "42501" ? `role "${user}" may not create databases` : (err as Error).message;
      throw new ConfigError(
        `${variable} names database "${name}", which does not exist on ${where}, and it could not be created (${why}): create it (createdb "${name}") or point ${variable} at one that exists`,
      );
    } finally {
      await admin.end({ timeout: 1 });
    }
  }
  throw new ConfigError(
    `${variable} names database "${name}", which does not exist on ${where}, and the server has no postgres or template1 database to create it from: create it, or point ${variable} at one that exists`,
  );
}

/**
 * Makes sure there is a migrated database to talk to and sets process.env.DATABASE_URL to it:
 * the configured DATABASE_URL, or else an embedded PostgreSQL under DATA_DIR.
 */
export async function ensureDatabase(
  opts: { log?: (line: string) => void } = {},
): Promise<{ url: string; embedded: EmbeddedHandle | null; created: boolean }> {
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
  const direct = e.DATABASE_DIRECT_URL ?? url;
  const created =
    !embedded &&
    (await ensureDatabaseExists(direct, e.DATABASE_DIRECT_URL ? "DATABASE_DIRECT_URL" : "DATABASE_URL")) === "created";
  await runMigrations(direct);
  return { url, embedded, created };
}
