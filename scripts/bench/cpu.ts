import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { build } from "esbuild";
import postgres from "postgres";
import { startEmbeddedPostgres } from "@/db/embedded";
import { runMigrations } from "@/db/migrate";
import { DEFAULT_DB_POOL_SIZE } from "@/lib/env";
import { generateApiKey } from "@/lib/identity/api-keys/keys";
import { productionNodeFlags } from "../production-flags";

// The server's own CPU per request, and its syscalls per request, over a fixed number of requests:
// a figure that does not move with the machine's load the way throughput does, for A/B comparisons of
// server bundles (docs/performance.md, "CPU per request").
//
//   npx tsx scripts/bench/cpu.ts [rounds] [requests] [label=path/to/start.cjs[+--node-flag…] …]
//
// Without bundles it measures dist/server/start.cjs. Each bundle runs as `npm start` runs it (the
// production flags, the limiter on, the log at info to a file) on one fresh embedded PostgreSQL,
// beside the bare server (bare.ts). Every round measures every server in turn, in the opposite order
// every other round, with the same client: `requests` create-PIX and `requests` lookups (1,000 orders,
// by id and by payment link id in turn, as `npm run bench` does), after a warm-up of a quarter as many.
// CPU is the server process's utime + stime from /proc over exactly those requests. CPU_BENCH_STRACE=true
// adds one pass per server under `strace -f -c` for the syscalls per request (strace slows the server:
// its CPU figures are not read from that pass).
//
// Knobs: CPU_BENCH_RATE (0),  CPU_BENCH_CONNECTIONS (32), CPU_BENCH_KEYS (1000), CPU_BENCH_ENDPOINTS (create,lookup), DB_POOL_SIZE,
// CPU_BENCH_NODE_FLAGS (more flags for the bundles' node, e.g. --cpu-prof --cpu-prof-dir=/tmp/prof).

const ROUNDS = Number(process.argv[2] ?? 3);
const REQUESTS = Number(process.argv[3] ?? 20_000);
const CONNECTIONS = Number(process.env.CPU_BENCH_CONNECTIONS ?? 32);
const KEYS = Number(process.env.CPU_BENCH_KEYS ?? 1000);
const ENDPOINTS = (process.env.CPU_BENCH_ENDPOINTS ?? "create,lookup").split(",");
const STRACE = process.env.CPU_BENCH_STRACE === "true";
// A fixed offered rate (requests a second over all connections; 0: as fast as the server answers).
// At a rate every server keeps up with, each does the same work per request whatever the machine's
// load, where a saturated run's batching (and so its CPU per request) follows its throughput.
const RATE = Number(process.env.CPU_BENCH_RATE ?? 0);
const POOL_SIZE = process.env.DB_POOL_SIZE ?? String(DEFAULT_DB_POOL_SIZE);
const ADMIN = "bench-admin-token-0123456789abcdefghijklmnop";
const LOOKUP_ORDERS = 1000;
const TICK_US = 1_000_000 / 100;

type Call = { path: string; authorization: string };
type Load = { method: "GET" | "POST"; body?: string; calls: Call[] };
type Server = { name: string; base: string; child: ChildProcess; loads: Record<string, Load> };

const children: ChildProcess[] = [];

function startProcess(args: string[], env: Record<string, string>, logFile: string): ChildProcess {
  const inherited = { ...process.env };
  for (const name of ["RATE_LIMIT_PER_MINUTE", "TRUST_PROXY_HOPS", "LOG_LEVEL"]) delete inherited[name];
  const out = fs.openSync(logFile, "a");
  const child = spawn(process.execPath, args, { env: { ...inherited, ...env }, stdio: ["ignore", out, "pipe"] });
  fs.closeSync(out);
  child.stderr?.on("data", (d: Buffer) => process.stderr.write(`[${path.basename(logFile)}] ${d}`));
  children.push(child);
  return child;
}

async function waitFor(url: string) {
  const deadline = Date.now() + 300_000;
  for (;;) {
    try {
      const r = await fetch(url);
      if (r.status < 500) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${url}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

function processTicks(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

async function drive(base: string, load: Load, amount: number) {
  let next = 0;
  const headerSets = load.calls.map((c) => ({ "content-type": "application/json", authorization: c.authorization }));
  const result = await autocannon({
    url: base + load.calls[0].path,
    connections: CONNECTIONS,
    amount,
    ...(RATE > 0 ? { overallRate: RATE } : {}),
    requests: [
      {
        method: load.method,
        path: load.calls[0].path,
        body: load.body,
        headers: headerSets[0],
        setupRequest: (req) => {
          const i = next++ % load.calls.length;
          req.headers = headerSets[i];
          req.path = load.calls[i].path;
          return req;
        },
      },
    ],
  });
  const bad = result.non2xx + result.errors;
  if (bad > 0) throw new Error(`${base}: ${bad} of ${amount} requests failed or answered non-2xx`);
  return result;
}

type Measured = { server: string; endpoint: string; round: number; cpuUs: number; rps: number; load: number };

async function measure(server: Server, endpoint: string, round: number): Promise<Measured> {
  const load = server.loads[endpoint];
  await drive(server.base, load, Math.round(REQUESTS / 4));
  const pid = server.child.pid!;
  const before = processTicks(pid);
  const result = await drive(server.base, load, REQUESTS);
  const cpuUs = Math.round(((processTicks(pid) - before) * TICK_US) / REQUESTS);
  const m = {
    server: server.name,
    endpoint,
    round,
    cpuUs,
    rps: Math.round(result.requests.average),
    load: os.loadavg()[0],
  };
  console.log(
    `round ${round}  ${m.server.padEnd(12)} ${endpoint.padEnd(7)} cpu/req ${String(cpuUs).padStart(4)} µs  ${String(m.rps).padStart(6)} req/s  load ${m.load.toFixed(1)}`,
  );
  return m;
}

/** Syscalls per request: one pass under strace -f -c (counts only; its slowed CPU is not read). */
async function syscalls(server: Server, endpoint: string): Promise<Record<string, number>> {
  const load = server.loads[endpoint];
  const out = path.join(os.tmpdir(), `cpu-bench-strace-${server.child.pid}-${endpoint}.txt`);
  const strace = spawn("strace", ["-f", "-c", "-o", out, "-p", String(server.child.pid)], { stdio: "ignore" });
  await new Promise((r) => setTimeout(r, 1000));
  const amount = Math.round(REQUESTS / 4);
  await drive(server.base, load, amount);
  strace.kill("SIGINT");
  await new Promise((r) => strace.once("exit", r));
  const counts: Record<string, number> = {};
  for (const line of fs.readFileSync(out, "utf8").split("\n")) {
    const m = /^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)\s*$/.exec(line);
    if (m && m[2] !== "total") counts[m[2]] = Math.round((Number(m[1]) / amount) * 100) / 100;
  }
  fs.rmSync(out, { force: true });
  return counts;
}

async function createMerchant(base: string): Promise<{ id: string; apiKey: string }> {
  const res = await fetch(`${base}/api/v1/admin/merchants`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
    body: JSON.stringify({ companyName: "CPU bench", pixKey: "52998224725" }),
  });
  const created = await res.json();
  if (res.status !== 201) throw new Error(`creating the merchant: ${res.status} ${JSON.stringify(created)}`);
  return { id: created.merchant.id, apiKey: created.apiKey };
}

async function addKeys(sql: postgres.Sql, merchantId: string, count: number): Promise<string[]> {
  const keys = Array.from({ length: count }, () => generateApiKey("sandbox"));
  for (let i = 0; i < keys.length; i += 500)
    await sql`insert into api_keys ${sql(
      keys.slice(i, i + 500).map((k, j) => ({
        merchant_id: merchantId,
        name: `cpu-bench-${i + j}`,
        prefix: k.prefix,
        key_hash: k.hash,
        mode: "sandbox",
      })),
    )}`;
  return keys.map((k) => k.key);
}

async function main() {
  const bundles = process.argv.slice(4).map((arg) => {
    const at = arg.indexOf("=");
    const [file, ...flags] = (at > 0 ? arg.slice(at + 1) : arg).split("+");
    return { name: at > 0 ? arg.slice(0, at) : path.basename(file), file, flags };
  });
  if (bundles.length === 0) bundles.push({ name: "app", file: "dist/server/start.cjs", flags: [] });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "payments-cpu-bench-"));
  fs.chmodSync(dir, 0o755);
  const pg = await startEmbeddedPostgres({
    dataDir: path.join(dir, "pg"),
    port: 54900 + Math.floor(Math.random() * 500),
    database: "bench",
    persistent: false,
    settings: { autovacuum: "off" },
  });
  const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
  const servers: Server[] = [];
  try {
    await runMigrations(pg.url);
    let port = 3900 + Math.floor(Math.random() * 500);
    let merchant: { id: string; apiKey: string } | undefined;
    let authorizations: string[] = [];
    for (const bundle of bundles) {
      const p = port++;
      const child = startProcess(
        [
          ...productionNodeFlags(),
          ...(process.env.CPU_BENCH_NODE_FLAGS ?? "").split(" ").filter(Boolean),
          ...bundle.flags,
          bundle.file,
        ],
        {
          DATABASE_URL: pg.url,
          PORT: String(p),
          HOST: "127.0.0.1",
          NODE_ENV: "production",
          ADMIN_TOKEN: ADMIN,
          SEED_DEMO_MERCHANT: "false",
          DB_POOL_SIZE: POOL_SIZE,
        },
        path.join(dir, `${bundle.name}.log`),
      );
      const base = `http://127.0.0.1:${p}`;
      await waitFor(`${base}/healthz`);
      if (!merchant) {
        merchant = await createMerchant(base);
        authorizations = [merchant.apiKey, ...(await addKeys(sql, merchant.id, KEYS - 1))].map((k) => `Bearer ${k}`);
        for (let i = 0; i < LOOKUP_ORDERS; i += 20)
          await Promise.all(
            Array.from({ length: 20 }, (_, j) =>
              fetch(`${base}/api/v1/order/create/pix`, {
                method: "POST",
                headers: { authorization: authorizations[(i + j) % KEYS], "content-type": "application/json" },
                body: '{"value":10}',
              }).then((r) => r.arrayBuffer()),
            ),
          );
      }
      servers.push({ name: bundle.name, base, child, loads: {} });
    }
    const orders = await sql<{ id: string; payment_link_id: string }[]>`
      select id, payment_link_id from orders where merchant_id = ${merchant!.id} order by created_at desc limit ${LOOKUP_ORDERS}`;
    const lookups = orders.map((o, i) => ({
      path: `/api/v1/order/${i % 2 === 0 ? o.id : o.payment_link_id}`,
      authorization: authorizations[i % KEYS],
    }));
    for (const s of servers)
      s.loads = {
        create: {
          method: "POST",
          body: '{"value":10.5}',
          calls: authorizations.map((a) => ({ path: "/api/v1/order/create/pix", authorization: a })),
        },
        lookup: { method: "GET", calls: lookups },
        // The balance (GET /account): no bare counterpart, measured for the app's bundles only.
        account: { method: "GET", calls: authorizations.map((a) => ({ path: "/api/v1/account", authorization: a })) },
      };

    // The floor, with as many distinct header values as the app gets.
    const bareFile = "dist/bench/bare.cjs";
    await build({
      entryPoints: ["scripts/bench/bare.ts"],
      bundle: true,
      platform: "node",
      target: "node22",
      format: "cjs",
      packages: "external",
      outfile: bareFile,
      logLevel: "warning",
    });
    const barePort = port++;
    const bare = startProcess(
      [bareFile],
      { DATABASE_URL: pg.url, PORT: String(barePort), DB_POOL_SIZE: POOL_SIZE },
      path.join(dir, "bare.log"),
    );
    const bareBase = `http://127.0.0.1:${barePort}`;
    await waitFor(`${bareBase}/nothing`);
    for (let i = 0; i < LOOKUP_ORDERS; i += 20)
      await Promise.all(
        Array.from({ length: 20 }, () =>
          fetch(`${bareBase}/order`, { method: "POST", body: '{"value":10}' }).then((r) => r.arrayBuffer()),
        ),
      );
    const bareRows = await sql<
      { id: string }[]
    >`select id from bench_bare order by created_at desc limit ${LOOKUP_ORDERS}`;
    const fakeAuth = Array.from({ length: KEYS }, () => `Bearer ${generateApiKey("sandbox").key}`);
    servers.push({
      name: "bare",
      base: bareBase,
      child: bare,
      loads: {
        create: {
          method: "POST",
          body: '{"value":10.5}',
          calls: fakeAuth.map((a) => ({ path: "/order", authorization: a })),
        },
        lookup: {
          method: "GET",
          calls: bareRows.map((r, i) => ({ path: `/order/${r.id}`, authorization: fakeAuth[i % KEYS] })),
        },
      },
    });

    const measured: Measured[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const order = round % 2 === 1 ? servers : [...servers].reverse();
      for (const endpoint of ENDPOINTS)
        for (const s of order) if (s.loads[endpoint]) measured.push(await measure(s, endpoint, round));
    }
    console.log("\nCPU µs per request (median over rounds; every round)");
    for (const endpoint of ENDPOINTS) {
      const bareMedian = median(
        measured.filter((m) => m.server === "bare" && m.endpoint === endpoint).map((m) => m.cpuUs),
      );
      for (const s of servers) {
        const runs = measured.filter((m) => m.server === s.name && m.endpoint === endpoint);
        if (runs.length === 0) continue;
        const med = median(runs.map((m) => m.cpuUs));
        console.log(
          `  ${endpoint.padEnd(7)} ${s.name.padEnd(12)} ${String(med).padStart(5)}  (${runs.map((r) => r.cpuUs).join(", ")})  ÷ bare ${Number.isFinite(bareMedian) ? (med / bareMedian).toFixed(2) : "—"}`,
        );
      }
    }
    if (STRACE) {
      if (spawnSync("strace", ["-V"]).status !== 0) throw new Error("CPU_BENCH_STRACE: strace is not installed");
      console.log("\nSyscalls per request (strace -f -c)");
      for (const endpoint of ENDPOINTS)
        for (const s of servers) {
          if (!s.loads[endpoint]) continue;
          const counts = await syscalls(s, endpoint);
          const total = Object.values(counts).reduce((a, b) => a + b, 0);
          const top = Object.entries(counts)
            .sort((a, b) => b[1] - a[1])
            .slice(0, 6)
            .map(([name, n]) => `${name} ${n}`)
            .join(", ");
          console.log(`  ${endpoint.padEnd(7)} ${s.name.padEnd(12)} ${total.toFixed(2)}  (${top})`);
        }
    }
  } finally {
    for (const child of children) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
    }
    await sql.end();
    await pg.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : Math.round((s[mid - 1] + s[mid]) / 2);
}

main().catch((err) => {
  console.error(err);
  for (const child of children) child.kill("SIGKILL");
  process.exit(1);
});
