// `npx tsx scripts/bench/idle.ts [rounds] [seconds] [appDir …]`: what the built app costs while nobody
// calls it, with BENCH_API_KEYS (2,000) keys over BENCH_MERCHANTS (1,000) merchants cached. Per round and
// per app directory (each holding its own `npm run build`; several are measured interleaved, A B A B):
// a scratch database, the server started as `npm start` runs it (jobs and the webhook dispatcher on),
// every key authenticated once, a pause for the last-use write, then `seconds` (30) of silence in which
// it counts the server's CPU (ms a second) and the transactions PostgreSQL committed for it (a second).
// Before the silence it waits BENCH_IDLE_SETTLE seconds (20) after the authentications: the limiter's
// first sync, the last-use write and V8's collection and compilation threads working off the 2,000
// requests (~0.3 s of CPU in all, docs/performance.md); 3 s was too short on a quiet machine, where that tail
// fell into the window.
// Then a second server on the same database: a key cached by both is revoked by a third connection, and
// the time until each server refuses it is printed (the bound docs/performance.md states).
// BENCH_IDLE_STATEMENTS=true also prints what the server ran in the silence, per connection and
// statement, as seen by sampling pg_stat_activity every 10 ms from the admin database (a statement
// shorter than that between two samples of its connection can be missed: a lower bound).
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx scripts/bench/idle.ts 2 30 . /tmp/base
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import { runMigrations } from "@/db/migrate";
import { generateApiKey } from "@/lib/identity/api-keys/keys";
import { productionNodeFlags } from "../production-flags";

const ROUNDS = Number(process.argv[2] ?? 2);
const SECONDS = Number(process.argv[3] ?? 30);
const APPS = process.argv.length > 4 ? process.argv.slice(4) : ["."];
const KEYS = Number(process.env.BENCH_API_KEYS ?? 2000);
const MERCHANTS = Number(process.env.BENCH_MERCHANTS ?? 1000);
const TICK_MS = 10; // USER_HZ 100
const SAMPLE = process.env.BENCH_IDLE_STATEMENTS === "true";
const SETTLE_SECONDS = Number(process.env.BENCH_IDLE_SETTLE ?? 20);

function ticks(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(f[11]) + Number(f[12]);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function up(base: string, child: ChildProcess) {
  for (let i = 0; i < 400; i++) {
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode})`);
    try {
      if ((await fetch(`${base}/healthz`)).status < 500) return;
    } catch {
      // not yet
    }
    await sleep(300);
  }
  throw new Error(`${base} did not start`);
}

function startApp(appDir: string, dbUrl: string, port: number): ChildProcess {
  const env = { ...process.env };
  for (const name of ["RATE_LIMIT_PER_MINUTE", "LOG_LEVEL", "TRUST_PROXY_HOPS"]) delete env[name];
  const child = spawn(process.execPath, [...productionNodeFlags(), "dist/server/start.cjs"], {
    cwd: path.resolve(appDir),
    env: {
      ...env,
      DATABASE_URL: dbUrl,
      PORT: String(port),
      HOST: "127.0.0.1",
      NODE_ENV: "production",
      SEED_DEMO_MERCHANT: "false",
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  child.stderr?.on("data", (d: Buffer) => process.stderr.write(`[app ${port}] ${d}`));
  return child;
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  await new Promise((r) => child.once("exit", r));
}

async function seed(sql: postgres.Sql): Promise<{ key: string; hash: string }[]> {
  const ids = (
    await sql<{ id: string }[]>`insert into merchants (company_name, pix_key, pix_key_type)
      select 'Idle ' || n, '52998224725', 'cpf' from generate_series(1, ${MERCHANTS}::int) n returning id`
  ).map((r) => r.id);
  const keys = Array.from({ length: KEYS }, (_, i) => ({ id: ids[i % ids.length], k: generateApiKey("sandbox") }));
  for (let i = 0; i < keys.length; i += 500)
    await sql`insert into api_keys ${sql(
      keys.slice(i, i + 500).map(({ id, k }, j) => ({
        merchant_id: id,
        name: `idle-${i + j}`,
        prefix: k.prefix,
        key_hash: k.hash,
        mode: "sandbox",
      })),
    )}`;
  return keys.map(({ k }) => ({ key: k.key, hash: k.hash }));
}

async function authenticateAll(base: string, keys: string[]) {
  for (let i = 0; i < keys.length; i += 20)
    await Promise.all(
      keys.slice(i, i + 20).map(async (key) => {
        const res = await fetch(`${base}/api/v1/account`, { headers: { authorization: `Bearer ${key}` } });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`account answered ${res.status}`);
      }),
    );
}

const committed = async (sql: postgres.Sql, db: string) => {
  await sql`select pg_stat_clear_snapshot()`;
  const [r] = await sql<
    { n: string }[]
  >`select xact_commit + xact_rollback as n from pg_stat_database where datname = ${db}`;
  return Number(r.n);
};

/** Statements seen on `db`'s client connections until `until`, by application and text: count a second. */
async function sampleStatements(root: postgres.Sql, db: string, until: number): Promise<Record<string, number>> {
  const last = new Map<number, string>();
  const counts = new Map<string, number>();
  const started = Date.now();
  for (let first = true; Date.now() < until; first = false) {
    const rows = await root<{ pid: number; at: string | null; app: string; query: string }[]>`
      select pid, query_start::text as at, application_name as app,
             regexp_replace(left(query, 120), '[[:space:]]+', ' ', 'g') as query
      from pg_stat_activity where datname = ${db} and backend_type = 'client backend'`;
    for (const r of rows) {
      if (r.at === null || last.get(r.pid) === r.at) continue;
      last.set(r.pid, r.at);
      // The first sample shows what each connection ran before the silence.
      if (first) continue;
      const k = `${r.app.replace(/[0-9a-f]{6}$|\d+/g, "#")} | ${r.query.trim()}`;
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    await sleep(10);
  }
  const seconds = (Date.now() - started) / 1000;
  return Object.fromEntries([...counts].sort((a, b) => b[1] - a[1]).map(([k, c]) => [k, +(c / seconds).toFixed(2)]));
}

async function round(appDir: string, admin: string, n: number) {
  const name = `idle_bench_${process.pid}_${n}`;
  const root = postgres(admin, { max: 1, onnotice: () => {} });
  await root.unsafe(`create database "${name}"`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  const dbUrl = url.toString();
  const children: ChildProcess[] = [];
  try {
    await runMigrations(dbUrl);
    const sql = postgres(dbUrl, { max: 1, onnotice: () => {} });
    const keys = await seed(sql);
    const port = 55100 + Math.floor(Math.random() * 800);
    const a = startApp(appDir, dbUrl, port);
    children.push(a);
    const base = `http://127.0.0.1:${port}`;
    await up(base, a);
    await authenticateAll(
      base,
      keys.map((k) => k.key),
    );
    await sleep(SETTLE_SECONDS * 1000);
    const load = os.loadavg()[0];
    const t0 = ticks(a.pid!);
    const x0 = await committed(sql, name);
    const statements = SAMPLE ? sampleStatements(root, name, Date.now() + SECONDS * 1000) : null;
    await sleep(SECONDS * 1000);
    const x1 = await committed(sql, name);
    const idle = {
      app: appDir,
      cpuMsPerSecond: +(((ticks(a.pid!) - t0) * TICK_MS) / SECONDS).toFixed(1),
      // minus the two snapshot reads of this script
      transactionsPerSecond: +((x1 - x0 - 1) / SECONDS).toFixed(1),
      settleSeconds: SETTLE_SECONDS,
      load1: load,
      loadEnd: os.loadavg()[0],
      ...(statements ? { statementsPerSecond: await statements } : {}),
    };

    // Revocation across instances: B caches the key too; a third writer revokes it.
    const portB = port + 1;
    const b = startApp(appDir, dbUrl, portB);
    children.push(b);
    const baseB = `http://127.0.0.1:${portB}`;
    await up(baseB, b);
    const victim = keys[0].key;
    const victimHash = keys[0].hash;
    await authenticateAll(base, [victim]);
    await authenticateAll(baseB, [victim]);
    const revokedAt = performance.now();
    await sql`update api_keys set revoked_at = now() where key_hash = ${victimHash}`;
    const refusedAfter = async (b_: string) => {
      while (performance.now() - revokedAt < 10_000) {
        const res = await fetch(`${b_}/api/v1/account`, { headers: { authorization: `Bearer ${victim}` } });
        await res.arrayBuffer();
        if (res.status === 401) return Math.round(performance.now() - revokedAt);
        await sleep(5);
      }
      return null;
    };
    const [onA, onB] = await Promise.all([refusedAfter(base), refusedAfter(baseB)]);
    await sql.end();
    return { ...idle, revokedRefusedMs: { a: onA, b: onB } };
  } finally {
    for (const c of children) await stop(c);
    await root.unsafe(`drop database "${name}" with (force)`);
    await root.end();
  }
}

async function main() {
  const admin = process.env.DATABASE_URL;
  if (!admin) throw new Error("DATABASE_URL: a server where a scratch database may be created");
  for (let r = 0; r < ROUNDS; r++)
    for (const [i, app] of APPS.entries()) console.log(JSON.stringify(await round(app, admin, r * APPS.length + i)));
}

void main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
