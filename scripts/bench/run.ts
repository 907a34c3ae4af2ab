import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { build } from "esbuild";
import { startEmbeddedPostgres } from "@/db/embedded";
import { runMigrations } from "@/db/migrate";
import { DEFAULT_DB_POOL_SIZE } from "@/lib/env";
import { runMixed, type MixedResult } from "./mixed";

// `npm run bench`: the built app (through Next, then with the /api/v1 fast path) against a minimal
// node:http + postgres.js server doing the same single INSERT / SELECT (the app's own statements, on
// the app's tables: scripts/bench/baseline.ts), on one fresh PostgreSQL.
// Prints throughput, p50/p99 latency and peak memory, and writes bench/results.json. Then the mixed
// load (scripts/bench/mixed.ts) on the fast path, unless BENCH_MIXED=false.

const DURATION = Number(process.env.BENCH_DURATION ?? 15);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ADMIN = "bench-admin-token-0123456789abcdefghijklmnop";
// Every server gets the pool the app would choose here: the ratio is about what a server does per
// request, and the pool size alone moves lookups by ~20% on 2 cores (docs/performance.md).
const POOL_SIZE = process.env.DB_POOL_SIZE ?? String(DEFAULT_DB_POOL_SIZE);

type Result = { server: string; endpoint: string; rps: number; p50: number; p99: number; errors: number; non2xx: number; rssMb: number };

function waitFor(url: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const tick = async () => {
      try {
        const r = await fetch(url);
        if (r.status < 500) return resolve();
      } catch {
        // not up yet
      }
      if (Date.now() > deadline) return reject(new Error(`timed out waiting for ${url}`));
      setTimeout(tick, 300);
    };
    void tick();
  });
}

function rssMb(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    return Math.round(kb / 1024);
  } catch {
    return 0;
  }
}

async function load(opts: { url: string; method: "GET" | "POST"; headers?: Record<string, string>; body?: string }, pid: number, duration: number) {
  let peak = rssMb(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 250);
  const result = await autocannon({ url: opts.url, method: opts.method, headers: opts.headers, body: opts.body, connections: CONNECTIONS, duration });
  clearInterval(timer);
  return { result, peak };
}

function start(cmd: string, args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  child.stderr?.on("data", (d: Buffer) => process.stderr.write(`[${path.basename(args[args.length - 1] ?? cmd)}] ${d}`));
  child.stdout?.resume();
  return child;
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null) return;
  child.kill("SIGTERM");
  await new Promise((r) => child.once("exit", r));
}

type Endpoint = { name: string; method: "GET" | "POST"; path: string; headers?: Record<string, string>; body?: string };
type Server = { name: string; base: string; child: ChildProcess; endpoints: Endpoint[] };

const ENDPOINTS = ["POST /order/create/pix", "GET /order/{id}", "GET /account"] as const;

async function measure(server: Server, e: Endpoint, round: number): Promise<Result & { round: number }> {
  const target = { url: server.base + e.path, method: e.method, headers: { "content-type": "application/json", ...e.headers }, body: e.body };
  const pid = server.child.pid!;
  await load(target, pid, WARMUP);
  const { result, peak } = await load(target, pid, DURATION);
  const r = {
    round,
    server: server.name,
    endpoint: e.name,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
    rssMb: peak,
  };
  console.log(
    `round ${round}  ${r.server.padEnd(10)} ${r.endpoint.padEnd(24)} ${String(r.rps).padStart(6)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  non2xx ${r.non2xx}  rss ${r.rssMb} MB`,
  );
  return r;
}

async function startApp(dbUrl: string, fastPath: boolean, port: number): Promise<Server> {
  const child = start(process.execPath, ["--enable-source-maps", "dist/server/start.cjs"], {
    DATABASE_URL: dbUrl,
    PORT: String(port),
    HOST: "127.0.0.1",
    NODE_ENV: "production",
    RATE_LIMIT_PER_MINUTE: "0",
    LOG_LEVEL: "warn",
    ADMIN_TOKEN: ADMIN,
    SEED_DEMO_MERCHANT: "false",
    API_FAST_PATH: String(fastPath),
    DB_POOL_SIZE: POOL_SIZE,
  });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}/`);
  const created = await (
    await fetch(`${base}/api/v1/admin/merchants`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
      body: JSON.stringify({ companyName: "Bench", pixKey: "52998224725" }),
    })
  ).json();
  const auth = { authorization: `Bearer ${created.apiKey}` };
  const order = await (
    await fetch(`${base}/api/v1/order/create/pix`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: '{"value":10}' })
  ).json();
  return {
    name: fastPath ? "app-fast" : "app-next",
    base,
    child,
    endpoints: [
      { name: ENDPOINTS[0], method: "POST", path: "/api/v1/order/create/pix", headers: auth, body: '{"value":10.5}' },
      { name: ENDPOINTS[1], method: "GET", path: `/api/v1/order/${order.pixOrder._id}`, headers: auth },
      { name: ENDPOINTS[2], method: "GET", path: "/api/v1/account", headers: auth },
    ],
  };
}

async function startBaseline(dbUrl: string, port: number): Promise<Server> {
  // Compiled like the app's server (npm run build:server), not run through tsx: tsx's keepNames wraps
  // every closure created per request, a cost the app's bundle does not pay either.
  const outfile = "dist/bench/baseline.cjs";
  await build({
    entryPoints: ["scripts/bench/baseline.ts"],
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    packages: "external",
    outfile,
    logLevel: "warning",
  });
  const child = start(process.execPath, [outfile], { DATABASE_URL: dbUrl, PORT: String(port), DB_POOL_SIZE: POOL_SIZE });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}/account`);
  const { order } = await (await fetch(`${base}/order`, { method: "POST", body: '{"value":10}' })).json();
  return {
    name: "baseline",
    base,
    child,
    endpoints: [
      { name: ENDPOINTS[0], method: "POST", path: "/order", body: '{"value":10.5}' },
      { name: ENDPOINTS[1], method: "GET", path: `/order/${order.id}` },
      { name: ENDPOINTS[2], method: "GET", path: "/account" },
    ],
  };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const round2 = (x: number) => Math.round(x * 100) / 100;

async function main() {
  if (!fs.existsSync(".next/BUILD_ID") || !fs.existsSync("dist/server/start.cjs")) {
    console.error("No build found: run `npm run build` first (npm run bench does).");
    process.exit(1);
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "payments-bench-"));
  fs.chmodSync(dir, 0o755);
  const pg = await startEmbeddedPostgres({ dataDir: path.join(dir, "pg"), port: 54400 + Math.floor(Math.random() * 500), database: "bench", persistent: false });
  // BENCH_SERVERS narrows a run (e.g. "baseline,app-fast") while profiling; the default runs all three.
  const wanted = (process.env.BENCH_SERVERS ?? "baseline,app-next,app-fast").split(",");
  const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
  const servers: Server[] = [];
  const measured: (Result & { round: number })[] = [];
  let mixed: MixedResult | null = null;
  try {
    // All servers stay up, idle while another is measured, and each endpoint is measured on each server
    // in turn, round after round: every ratio compares runs minutes apart, not a whole suite apart, on
    // a machine whose speed drifts.
    // The baseline and the fast path are measured back to back, and every other round in the
    // opposite order, so a drift of the machine's speed (±15% over minutes here) weighs on both
    // sides of a ratio alike instead of on one.
    // The baseline runs the app's statements on the app's tables: the schema must exist first.
    await runMigrations(pg.url);
    if (wanted.includes("baseline")) servers.push(await startBaseline(pg.url, 3401));
    if (wanted.includes("app-fast")) servers.push(await startApp(pg.url, true, 3403));
    if (wanted.includes("app-next")) servers.push(await startApp(pg.url, false, 3402));
    for (let round = 1; round <= rounds; round++) {
      const order = round % 2 === 1 ? servers : [...servers].reverse();
      for (const endpoint of ENDPOINTS) {
        for (const server of order)
          measured.push(
            await measure(
              server,
              server.endpoints.find((e) => e.name === endpoint)!,
              round,
            ),
          );
      }
    }
    const fast = servers.find((s) => s.name === "app-fast");
    if (fast && process.env.BENCH_MIXED !== "false") mixed = await runMixed({ base: fast.base, databaseUrl: pg.url, adminToken: ADMIN, clients: CONNECTIONS });
  } finally {
    for (const server of servers) await stop(server.child);
    await pg.stop();
  }

  // Throughput: the mean over rounds; latency and memory: the worst round.
  const results: Result[] = servers.flatMap((server) =>
    ENDPOINTS.map((endpoint) => {
      const runs = measured.filter((m) => m.server === server.name && m.endpoint === endpoint);
      return {
        server: server.name,
        endpoint,
        rps: Math.round(mean(runs.map((r) => r.rps))),
        p50: Math.max(...runs.map((r) => r.p50)),
        p99: Math.max(...runs.map((r) => r.p99)),
        errors: runs.reduce((a, r) => a + r.errors, 0),
        non2xx: runs.reduce((a, r) => a + r.non2xx, 0),
        rssMb: Math.max(...runs.map((r) => r.rssMb)),
      };
    }),
  );
  // Each round's ratio pairs runs measured back to back; the figure is their mean.
  const ratios = ["app-next", "app-fast"].flatMap((server) =>
    ENDPOINTS.flatMap((endpoint) => {
      const perRound: number[] = [];
      for (let round = 1; round <= rounds; round++) {
        const r = measured.find((x) => x.server === server && x.endpoint === endpoint && x.round === round);
        const b = measured.find((x) => x.server === "baseline" && x.endpoint === endpoint && x.round === round);
        if (r && b) perRound.push(r.rps / b.rps);
      }
      return perRound.length ? [{ server, endpoint, ratio: round2(mean(perRound)), perRound: perRound.map(round2) }] : [];
    }),
  );
  console.log(`\nmean over ${rounds} round(s):`);
  for (const r of results) {
    console.log(`  ${r.server.padEnd(10)} ${r.endpoint.padEnd(24)} ${String(r.rps).padStart(6)} req/s  p50 ≤ ${r.p50} ms  p99 ≤ ${r.p99} ms  rss ≤ ${r.rssMb} MB`);
  }
  console.log("\nthroughput relative to the baseline (mean of each round's ratio):");
  for (const r of ratios) console.log(`  ${r.server.padEnd(10)} ${r.endpoint.padEnd(24)} ${r.ratio}×  (rounds: ${r.perRound.join(", ")})`);
  const report = {
    date: new Date().toISOString(),
    cpus: os.cpus().length,
    node: process.version,
    connections: CONNECTIONS,
    durationSeconds: DURATION,
    rounds,
    results,
    ratios,
    runs: measured,
    mixed,
  };
  fs.mkdirSync("bench", { recursive: true });
  fs.writeFileSync("bench/results.json", JSON.stringify(report, null, 2) + "\n");
  console.log("\nwritten: bench/results.json");
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
