import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import { connect } from "node:net";
import os from "node:os";
import path from "node:path";
import { freePort } from "./pg-cluster";

// PgBouncer (Debian's package) in front of a PostgreSQL server, for tests of the app behind a pooler.
// Like PostgreSQL it refuses to run as root: as root it runs as the `postgres` user.

export type PgBouncer = {
  readonly port: number;
  /** A URL through the pooler to `database` as `user`. */
  url(database: string, user?: string): string;
  /** The admin console's SHOW <what> (simple protocol only). */
  show(what: string): Promise<Record<string, unknown>[]>;
  logTail(lines?: number): string;
  stop(): Promise<void>;
};

export type PgBouncerOptions = {
  /** The server: host, port, and the user and password PgBouncer logs in with. */
  server: { host: string; port: number; user: string; password?: string };
  poolMode?: "session" | "transaction" | "statement";
  /** Server connections per database and user. */
  poolSize?: number;
  /** PgBouncer's own defaults instead of the settings the app needs (docs/operations.md): a control. */
  pgbouncerDefaults?: boolean;
};

/**
 * What the app needs from PgBouncer beyond transaction mode (docs/operations.md, "Behind PgBouncer"):
 * a server login that failed (the database restarting) retried after 0.5 s, not 15 (the setting is in
 * seconds and takes a fraction: PgBouncer keeps it in microseconds); a server that does
 * not answer given up after 5 s; a client waiting for a server connection, or idle inside a
 * transaction, for at most as long as the app's own bounds; keepalives like the app's.
 */
export const PGBOUNCER_SETTINGS = {
  server_login_retry: 0.5,
  server_connect_timeout: 5,
  query_wait_timeout: 10,
  idle_transaction_timeout: 5,
  tcp_keepalive: 1,
  tcp_keepidle: 5,
  tcp_keepintvl: 2,
  tcp_keepcnt: 3,
} as const;

/** The pgbouncer binary, or null when it is not installed. */
export function findPgbouncer(): string | null {
  const dirs = [...(process.env.PATH ?? "").split(":"), "/usr/sbin", "/usr/local/sbin"];
  for (const dir of dirs) {
    const candidate = path.join(dir, "pgbouncer");
    if (dir && fs.existsSync(candidate)) return candidate;
  }
  return null;
}

const asRoot = typeof process.getuid === "function" && process.getuid() === 0;

async function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });
}

export async function startPgbouncer(opts: PgBouncerOptions): Promise<PgBouncer> {
  const bin = findPgbouncer();
  if (!bin) throw new Error("pgbouncer is not installed (apt-get install pgbouncer)");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pgbouncer-"));
  fs.chmodSync(dir, 0o755);
  const port = await freePort();
  const { server } = opts;
  const login = `user=${server.user}${server.password ? ` password=${server.password}` : ""}`;
  const config = [
    "[databases]",
    // Any database name a client asks for, on the one server, logged in as the server user.
    `* = host=${server.host} port=${server.port} ${login}`,
    "[pgbouncer]",
    "listen_addr = 127.0.0.1",
    `listen_port = ${port}`,
    "unix_socket_dir =",
    "auth_type = trust",
    `auth_file = ${path.join(dir, "users.txt")}`,
    `admin_users = ${server.user}`,
    `pool_mode = ${opts.poolMode ?? "transaction"}`,
    `default_pool_size = ${opts.poolSize ?? 2}`,
    "max_client_conn = 500",
    ...(opts.pgbouncerDefaults ? [] : Object.entries(PGBOUNCER_SETTINGS).map(([k, v]) => `${k} = ${v}`)),
    `logfile = ${path.join(dir, "pgbouncer.log")}`,
    `pidfile = ${path.join(dir, "pgbouncer.pid")}`,
  ].join("\n");
  fs.writeFileSync(path.join(dir, "pgbouncer.ini"), `${config}\n`);
  fs.writeFileSync(path.join(dir, "users.txt"), `"${server.user}" ""\n`);
  if (asRoot) execFileSync("chown", ["-R", "postgres", dir]);

  const argv = [bin, path.join(dir, "pgbouncer.ini")];
  const child: ChildProcess = asRoot
    ? spawn("runuser", ["-u", "postgres", "--", ...argv], { stdio: "ignore" })
    : spawn(argv[0], argv.slice(1), { stdio: "ignore" });
  const logTail = (lines = 30) => {
    try {
      return fs.readFileSync(path.join(dir, "pgbouncer.log"), "utf8").trimEnd().split("\n").slice(-lines).join("\n");
    } catch {
      return "(no log)";
    }
  };
  for (const until = Date.now() + 10_000; !(await listening(port)); await new Promise((r) => setTimeout(r, 50))) {
    if (child.exitCode !== null || Date.now() > until) {
      child.kill("SIGKILL");
      throw new Error(`pgbouncer did not start:\n${logTail()}`);
    }
  }

  return {
    port,
    url: (database, user = server.user) => `postgres://${user}@127.0.0.1:${port}/${database}`,
    async show(what) {
      const { default: postgres } = await import("postgres");
      // The admin console knows neither the extended protocol nor pg_type.
      const admin = postgres(`postgres://${server.user}@127.0.0.1:${port}/pgbouncer`, {
        max: 1,
        fetch_types: false,
        onnotice: () => {},
      });
      try {
        return [...(await admin.unsafe(`show ${what}`))];
      } finally {
        await admin.end({ timeout: 1 });
      }
    },
    logTail,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      // To pgbouncer itself (not only runuser in front of it): SIGTERM stops it at once.
      try {
        process.kill(Number(fs.readFileSync(path.join(dir, "pgbouncer.pid"), "utf8").trim()), "SIGTERM");
      } catch {
        child.kill("SIGTERM");
      }
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill("SIGKILL");
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
