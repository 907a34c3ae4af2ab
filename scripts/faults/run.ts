import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { build } from "esbuild";
import postgres from "postgres";
import { runMigrations } from "@/db/migrate";
import { parseEnv } from "@/lib/env";
import { findPgbouncer, startPgbouncer } from "../../tests/support/pgbouncer";
import { freePort, startCluster, type PgCluster, type PgNode } from "../../tests/support/pg-cluster";
import { startTcpProxy } from "../../tests/support/tcp-proxy";

// `npm run faults`: the pre-release fault suite (docs/operations.md, "The fault suite"). It starts a
// PostgreSQL primary with a synchronous standby of its own (tests/support/pg-cluster.ts) and two
// instances of the shipped server (`npm start`'s dist/server/start.cjs, with the app's default
// deadlines): A on a URL naming both servers through TCP proxies of its own, B behind PgBouncer in
// transaction mode (DB_POOLER=transaction, the settings docs/operations.md lists). Clients, half on
// each instance, create PIX orders, pay them in the sandbox, refund them, and withdraw by PIX and
// on-chain, every POST keyed and retried with its key until it gets a definitive answer. One fault
// after another, each under load: a database restart, a crash, the database down for 30 s, instance
// A partitioned from it for 30 s (B must get the merchants' rows A held within seconds), a lock held
// for 30 s, A killed and restarted, A killed for good (its clients retry their keys on B), a failover.
// After each, the database is asked whether every acknowledged request is there exactly once and every
// balance equals its ledger. Exits 1 on any loss, duplicate, mismatch, request past its deadline,
// request without an answer, or recovery slower than its target.
//
// Environment: FAULTS_CLIENTS (32), FAULTS_ROUNDS (1), FAULTS_FAULT_SECONDS (30, the long faults),
// FAULTS_SERVER=bare (scripts/faults/server.ts instead of the shipped server: no `next build`),
// FAULTS_REQUEST_DEADLINE_MS (the app's default),
// FAULTS_REPLICATION=async (an asynchronous standby: the failover must then fail the suite),
// FAULTS_WAL_RETRIEVE_RETRY_INTERVAL (the standby's wal_retrieve_retry_interval, 100ms; PostgreSQL's
// default 5s fails the restart's recovery target), PG_BIN_DIR (the newest /usr/lib/postgresql/<v>/bin),
// FAULTS_KEEP=1 keeps the apps' logs (FAULTS_LOG_LEVEL=info: a line per request, by key), FAULTS_ONLY (comma-separated parts of fault names) runs only those
// faults (and the fault-free warm-up), and says it was partial.

const ROOT = path.resolve(__dirname, "../..");
const int = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
const CLIENTS = int("FAULTS_CLIENTS", 32);
const FAULT_MS = int("FAULTS_FAULT_SECONDS", 30) * 1000;
const SERVER: "shipped" | "bare" = process.env.FAULTS_SERVER === "bare" ? "bare" : "shipped";
/** The app's own defaults: the suite sets none of these, so it tests what a deployment gets. */
const DEFAULTS = parseEnv({});
/** How many times each fault but the failover (which ends the standby) is injected. */
const ROUNDS = int("FAULTS_ROUNDS", 1);
/** FAULTS_ONLY="db down,killed": only the faults whose names contain one of these (to look into one). */
const ONLY = (process.env.FAULTS_ONLY ?? "").split(",").filter(Boolean);
/** async: what the suite must catch, acknowledged requests lost in the failover. */
const REPLICATION = process.env.FAULTS_REPLICATION === "async" ? "async" : "sync";
/** How long replication is held up before the primary is lost, so that the standby lags behind it. */
const REPLICATION_STALL_MS = 2000;
const MERCHANTS = 4;
const DEADLINE_MS = int("FAULTS_REQUEST_DEADLINE_MS", DEFAULTS.REQUEST_DEADLINE_MS);
/** Past the deadline, an answer is late by more than scheduling on a busy machine explains. */
const MARGIN_MS = 1000;
const RECOVERY_TARGET_MS = 2000;
const KILLED_KEYS_TARGET_MS = 5000;
/** A partitioned instance's row locks: the other instance moves those merchants' money again within this. */
const LOCKS_RELEASED_TARGET_MS = 10_000;
/** A request with no definitive answer after this long is a hang. */
const GIVE_UP_MS = 45_000;
const ADMIN_TOKEN = randomBytes(24).toString("hex");
const RUN = randomBytes(4).toString("hex");

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
}
const log = (line: string) => console.log(`[faults ${new Date().toISOString().slice(11, 23)}] ${line}`);

// ---------------------------------------------------------------------------------------------------
// The app, as a process of its own: the SIGKILL fault needs one to kill.

/** `released`: Idempotency-Key leases of the previous run the app ended before serving. */
type App = { child: ChildProcess; exited: Promise<void>; released: number };

/** The server the instances run: `npm start`'s bundle (Next built once if it is not), or the bare one. */
async function bundleServer(): Promise<string> {
  if (SERVER === "shipped" && !fs.existsSync(path.join(ROOT, ".next/BUILD_ID"))) {
    log("no Next build: running `next build` (several minutes)");
    const built = spawn(process.execPath, [path.join(ROOT, "node_modules/next/dist/bin/next"), "build"], {
      cwd: ROOT,
      stdio: "inherit",
    });
    const code = await new Promise<number | null>((r) => built.once("exit", r));
    if (code !== 0) throw new Error(`next build failed (exit ${code})`);
  }
  const outfile = path.join(ROOT, SERVER === "shipped" ? "dist/server/start.cjs" : "dist/faults/server.cjs");
  // As build:server does, from the current source: run by node, not tsx, so a restart costs no transpiling.
  await build({
    entryPoints: [path.join(ROOT, SERVER === "shipped" ? "scripts/start.ts" : "scripts/faults/server.ts")],
    bundle: true,
    platform: "node",
    target: "node22",
    format: "cjs",
    packages: "external",
    sourcemap: SERVER === "shipped",
    outfile,
    logLevel: "warning",
  });
  return outfile;
}

function startApp(bundle: string, env: Record<string, string>, logFile: string): Promise<App> {
  const out = fs.openSync(logFile, "a");
  const child = spawn(
    process.execPath,
    [`--max-old-space-size=${SERVER === "shipped" ? (process.env.HEAP_LIMIT_MB ?? 192) : 256}`, bundle],
    {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", out],
    },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    let text = "";
    child.stdout!.on("data", (d: Buffer) => {
      fs.appendFileSync(logFile, d);
      text += d.toString();
      // The bare server says "ready <port> released=<n>"; the shipped one "ready: …" after "idempotency: <n> … ended".
      const bare = /^ready \d+ released=(\d+)/m.exec(text);
      if (bare) resolve({ child, exited, released: Number(bare[1]) });
      if (/^ready: /m.test(text))
        resolve({ child, exited, released: Number(/^idempotency: (\d+) Idempotency-Key lease/m.exec(text)?.[1] ?? 0) });
    });
    void exited.then(() => reject(new Error(`the app exited before it was ready; see ${logFile}`)));
  });
}

async function killApp(app: App): Promise<void> {
  app.child.kill("SIGKILL");
  await app.exited;
}

// ---------------------------------------------------------------------------------------------------
// The load: each client sends one request at a time, each with its own Idempotency-Key, retried with
// that key until a definitive answer (2xx, or a 4xx other than 409 and 429).

type Op = "create-pix" | "sandbox-pay" | "refund" | "pix-out" | "onchain-withdraw";
/** Requests that move a merchant's money out, and so lock its row. */
const MONEY_OUT: readonly Op[] = ["refund", "pix-out", "onchain-withdraw"];
type Ack = {
  op: Op;
  key: string;
  merchant: number;
  id: string;
  marker: string;
  phase: string;
  instance: string;
  at: number;
};
type PhaseStats = {
  acks: Ack[];
  attempts: number;
  overDeadline: { ms: number; status: string }[];
  statuses: Map<string, number>;
  /** When each 2xx came, from which instance, to which client. */
  okAt: { at: number; instance: string; client: number }[];
  unsettled: string[];
  refused: Map<string, number>;
  slowestMs: number;
};

const newStats = (): PhaseStats => ({
  acks: [],
  attempts: 0,
  overDeadline: [],
  statuses: new Map(),
  okAt: [],
  unsettled: [],
  refused: new Map(),
  slowestMs: 0,
});
const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);

type Merchant = { apiKey: string; id: string };

/** Where a client sends its requests: its own instance, or (that one gone for good, as a balancer would) another. */
type Instance = { name: string; base: string; gone: boolean };

class Load {
  private stopping = false;
  private running: Promise<void>[] = [];
  /** Keys whose request is still looking for its definitive answer: when it started, on which client. */
  readonly inFlight = new Map<string, { startedAt: number; client: number }>();
  /** Keys that reached their definitive answer, and when. */
  readonly settledAt = new Map<string, number>();
  private seq = 0;
  private readonly pending: string[][];
  private readonly paid: string[][];
  stats = newStats();
  phase = "";

  constructor(
    private readonly instances: Instance[],
    private readonly merchants: Merchant[],
  ) {
    this.pending = merchants.map(() => []);
    this.paid = merchants.map(() => []);
  }

  /** The instance client `i` belongs to. */
  home(i: number): Instance {
    return this.instances[i % this.instances.length];
  }

  private route(i: number): Instance {
    const own = this.home(i);
    return own.gone ? (this.instances.find((x) => !x.gone) ?? own) : own;
  }

  start(phase: string) {
    this.phase = phase;
    this.stats = newStats();
    this.stopping = false;
    this.running = Array.from({ length: CLIENTS }, (_, i) => this.client(i));
  }

  /** Stops sending new requests; those under way go on until they are answered. */
  async stop(): Promise<PhaseStats> {
    this.stopping = true;
    await Promise.all(this.running);
    return this.stats;
  }

  private async client(i: number) {
    // Clients of one merchant on both instances: their money-out requests meet on its row.
    const m = Math.floor(i / this.instances.length) % this.merchants.length;
    while (!this.stopping) {
      const roll = Math.random();
      const key = `faults-${RUN}-${i}-${++this.seq}`;
      const refundable = roll < 0.12 ? this.paid[m].shift() : undefined;
      if (refundable) {
        await this.settle(
          "refund",
          key,
          i,
          m,
          `/api/v1/order/${refundable}/refund`,
          { value: 1, reason: key },
          (j) => String((j.refund as { id: string }).id),
          key,
        );
      } else if (roll < 0.25) {
        await this.settle(
          "pix-out",
          key,
          i,
          m,
          "/api/v1/order/pix-out",
          { value: 1, pixKey: `${key}@faults.example` },
          (j) => String(j.id),
          `${key}@faults.example`,
        );
      } else if (roll < 0.37) {
        const to = `0x${randomBytes(20).toString("hex")}`;
        await this.settle(
          "onchain-withdraw",
          key,
          i,
          m,
          "/api/v1/onchain/withdraw/initiate",
          { toAddress: to, value: 1, network: "polygon" },
          (j) => String(j.id),
          to,
        );
      } else {
        const order = roll < 0.68 ? this.pending[m].shift() : undefined;
        if (order) {
          const id = await this.settle(
            "sandbox-pay",
            key,
            i,
            m,
            `/api/v1/sandbox/orders/${order}/pay`,
            undefined,
            () => order,
            order,
          );
          if (id) this.paid[m].push(id);
        } else {
          const id = await this.settle(
            "create-pix",
            key,
            i,
            m,
            "/api/v1/order/create/pix",
            { value: 10.5, orderId: key },
            (j) => (j.pixOrder as { _id: string })._id,
            key,
          );
          if (id) this.pending[m].push(id);
        }
      }
    }
  }

  /** One request to its definitive answer; the acknowledged resource's id, or null when it was refused. */
  private async settle(
    op: Op,
    key: string,
    client: number,
    merchant: number,
    urlPath: string,
    body: unknown,
    idOf: (json: Record<string, unknown>) => string,
    marker: string,
  ): Promise<string | null> {
    const startedAt = Date.now();
    let attempt = 0;
    this.inFlight.set(key, { startedAt, client });
    try {
      for (;;) {
        const stats = this.stats;
        if (Date.now() - startedAt > GIVE_UP_MS) {
          stats.unsettled.push(`${op} ${key}`);
          return null;
        }
        const instance = this.route(client);
        const t0 = performance.now();
        let status: string;
        let json: Record<string, unknown> | null = null;
        try {
          const res = await fetch(instance.base + urlPath, {
            method: "POST",
            headers: {
              authorization: `Bearer ${this.merchants[merchant].apiKey}`,
              "idempotency-key": key,
              // The key and the attempt in the app's log lines: what happened to one request, on either instance.
              "x-request-id": `${key}.${++attempt}`,
              ...(body === undefined ? {} : { "content-type": "application/json" }),
            },
            body: body === undefined ? undefined : JSON.stringify(body),
            // Far past the deadline: an answer this late is counted as a hang, not waited for.
            signal: AbortSignal.timeout(DEADLINE_MS + MARGIN_MS + 10_000),
          });
          const text = await res.text();
          status = String(res.status);
          try {
            json = JSON.parse(text) as Record<string, unknown>;
          } catch {
            json = null;
          }
        } catch (err) {
          const e = err as { name?: string; cause?: { code?: string } };
          status = e.name === "TimeoutError" ? "timeout" : `network ${e.cause?.code ?? e.name ?? "error"}`;
        }
        const ms = performance.now() - t0;
        stats.attempts++;
        stats.slowestMs = Math.max(stats.slowestMs, ms);
        bump(stats.statuses, status);
        if (ms > DEADLINE_MS + MARGIN_MS) stats.overDeadline.push({ ms: Math.round(ms), status });
        const code = Number(status);
        if (code >= 200 && code < 300 && json) {
          const at = Date.now();
          stats.okAt.push({ at, instance: instance.name, client });
          const id = idOf(json);
          stats.acks.push({ op, key, merchant, id, marker, phase: this.phase, instance: instance.name, at });
          this.settledAt.set(key, at);
          return id;
        }
        if (code >= 400 && code < 500 && code !== 409 && code !== 429) {
          // A definitive refusal (an insufficient balance, say): nothing to find, and nothing lost.
          bump(stats.refused, `${op} ${code} ${String(json?.message ?? json?.error ?? "").slice(0, 80)}`);
          this.settledAt.set(key, Date.now());
          return null;
        }
        // 503 (with Retry-After), 409 (still being processed), 5xx, no answer: again with the same key.
        // Sooner than Retry-After asks, to measure how soon the service answers again.
        await sleep(100 + Math.random() * 100);
      }
    } finally {
      this.inFlight.delete(key);
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// What the database holds for the acknowledged requests.

type Check = {
  acknowledged: number;
  found: number;
  duplicated: number;
  ledgerMismatches: number;
  missing: string[];
  duplicates: string[];
  /** Found by id but not by the request's own marker: the duplicate check would be blind to it. */
  unmarked: string[];
};

async function check(node: PgNode, merchants: Merchant[], acks: Ack[]): Promise<Check> {
  const sql = postgres(node.url("payments"), { max: 1, onnotice: () => {}, connect_timeout: 5 });
  try {
    const ids = merchants.map((m) => m.id);
    const orders = await sql<{ id: string; marker: string | null }[]>`
      select id::text, reference->>'orderId' as marker from orders where merchant_id = any(${ids}::uuid[])`;
    const credits = await sql<{ ref: string; n: number }[]>`
      select ref_id as ref, count(*)::int as n from ledger_entries where kind = 'order_credit' and merchant_id = any(${ids}::uuid[]) group by ref_id`;
    const withdrawals = await sql<{ id: string; marker: string | null }[]>`
      select id::text, case when kind = 'pix_out' then lower(pix_key) else lower(to_address) end as marker
      from withdrawals where merchant_id = any(${ids}::uuid[])`;
    const refunds = await sql<{ id: string; marker: string | null }[]>`
      select r.id::text, r.reason as marker from order_refunds r join orders o on o.id = r.order_id
      where o.merchant_id = any(${ids}::uuid[])`;
    const debits = await sql<{ ref: string; n: number }[]>`
      select ref_id as ref, count(*)::int as n from ledger_entries where amount_centavos < 0 and merchant_id = any(${ids}::uuid[]) group by ref_id`;
    const mismatched = await sql<{ id: string }[]>`
      select m.id::text from merchants m
      where m.id = any(${ids}::uuid[])
        and m.balance_centavos + coalesce((select sum(u.amount_centavos) from unfolded_credits u where u.merchant_id = m.id), 0)
            <> coalesce((select sum(l.amount_centavos) from ledger_entries l where l.merchant_id = m.id), 0)`;

    const byMarker = (rows: { id: string; marker: string | null }[]) => {
      const map = new Map<string, string[]>();
      for (const r of rows) if (r.marker) map.set(r.marker, [...(map.get(r.marker) ?? []), r.id]);
      return map;
    };
    const orderMarkers = byMarker(orders);
    const withdrawalMarkers = byMarker(withdrawals);
    const withdrawalIds = new Set(withdrawals.map((w) => w.id));
    const refundMarkers = byMarker(refunds);
    const refundIds = new Set(refunds.map((r) => r.id));
    const orderIds = new Set(orders.map((o) => o.id));
    const creditCount = new Map(credits.map((c) => [c.ref, c.n]));
    const debitCount = new Map(debits.map((d) => [d.ref, d.n]));

    let found = 0;
    const missing: string[] = [];
    const duplicates: string[] = [];
    const unmarked: string[] = [];
    for (const a of acks) {
      let present: boolean;
      let copies: number;
      if (a.op === "create-pix") {
        present = orderIds.has(a.id);
        copies = orderMarkers.get(a.marker)?.length ?? 0;
      } else if (a.op === "sandbox-pay") {
        copies = creditCount.get(a.id) ?? 0;
        present = copies >= 1;
      } else if (a.op === "refund") {
        // The refund, under its reason (the request's key), and its one debit.
        present = refundIds.has(a.id) && (debitCount.get(a.id) ?? 0) >= 1;
        copies = Math.max(refundMarkers.get(a.marker)?.length ?? 0, debitCount.get(a.id) ?? 0);
      } else {
        // The withdrawal, under its unique destination, and its one debit.
        present = withdrawalIds.has(a.id) && (debitCount.get(a.id) ?? 0) >= 1;
        copies = Math.max(withdrawalMarkers.get(a.marker.toLowerCase())?.length ?? 0, debitCount.get(a.id) ?? 0);
      }
      if (present) found++;
      else missing.push(`${a.phase}: ${a.op} ${a.key} → ${a.id}`);
      if (copies > 1) duplicates.push(`${a.phase}: ${a.op} ${a.key} ×${copies}`);
      if (present && copies === 0) unmarked.push(`${a.phase}: ${a.op} ${a.key}`);
    }
    return {
      acknowledged: acks.length,
      found,
      duplicated: duplicates.length,
      ledgerMismatches: mismatched.length,
      missing,
      duplicates,
      unmarked,
    };
  } finally {
    await sql.end({ timeout: 1 });
  }
}

// ---------------------------------------------------------------------------------------------------

type Row = {
  fault: string;
  check: Check;
  overDeadline: number;
  recoveryMs: number | null;
  unsettled: number;
  http500: number;
  extra?: string;
  failures: string[];
};

/** Ms from `at` to the first 2xx of each instance named (the slowest of them), or null if one had none. */
function firstOkAfter(stats: PhaseStats, at: number, instances: string[]): number | null {
  let worst = 0;
  for (const name of instances) {
    const after = stats.okAt.filter((o) => o.instance === name && o.at >= at).map((o) => o.at);
    if (after.length === 0) return null;
    worst = Math.max(worst, Math.min(...after) - at);
  }
  return worst;
}

/** Ms from `at` until every client sending to these instances had a 2xx again: the last to be served. */
function allServedAfter(stats: PhaseStats, at: number, clients: number[]): number | null {
  let worst = 0;
  for (const c of clients) {
    const after = stats.okAt.filter((o) => o.client === c && o.at >= at).map((o) => o.at);
    if (after.length === 0) return null;
    worst = Math.max(worst, Math.min(...after) - at);
  }
  return worst;
}

function printTable(rows: Row[], total: Row) {
  const head = ["fault", "acknowledged", "found", "duplicated", "ledger mismatches", "over deadline", "recovery ms"];
  const cells = [...rows, total].map((r) => [
    r.fault,
    String(r.check.acknowledged),
    String(r.check.found),
    String(r.check.duplicated),
    String(r.check.ledgerMismatches),
    String(r.overDeadline),
    r.recoveryMs === null ? "–" : String(r.recoveryMs),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) =>
    `| ${c.map((v, i) => (i === 0 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join(" | ")} |`;
  console.log(line(head));
  console.log(`|${widths.map((w, i) => (i === 0 ? "-".repeat(w + 2) : `${"-".repeat(w + 1)}:`)).join("|")}|`);
  for (const c of cells) console.log(line(c));
}

async function main() {
  const started = Date.now();
  // One log per instance: which of the two said what matters when they disagree.
  const logOf = (name: "A" | "B") => path.join(os.tmpdir(), `faults-app-${RUN}-${name}.log`);
  const logs = logOf("A").replace(/-A\.log$/, "-{A,B}.log");
  if (!findPgbouncer())
    throw new Error("pgbouncer is not installed (apt-get install pgbouncer): instance B runs behind it");
  log(
    `building the ${SERVER === "shipped" ? "shipped server (npm start's bundle)" : "bare server"}; the apps' logs: ${logs}`,
  );
  const bundle = await bundleServer();

  log(`starting a PostgreSQL primary and ${REPLICATION === "sync" ? "a synchronous" : "an asynchronous"} standby`);
  const cluster: PgCluster = await startCluster({
    standbys: 1,
    sync: REPLICATION === "sync" ? { kind: "quorum", count: 1 } : { kind: "async" },
    databases: ["payments"],
    settings: {
      synchronous_commit: "on",
      // A standby reconnects 5 s after losing its primary by default, and every commit waits for it
      // meanwhile: a restarted primary would answer writes only after that.
      wal_retrieve_retry_interval: process.env.FAULTS_WAL_RETRIEVE_RETRY_INTERVAL ?? "100ms",
    },
  });
  type Proxy = Awaited<ReturnType<typeof startTcpProxy>>;
  const closing: (() => Promise<void>)[] = [];
  const apps = new Map<string, App>();
  let failed = false;
  try {
    /** One TCP proxy per server, for one instance: each instance can be partitioned alone. */
    const proxiesFor = async () => {
      const map = new Map<PgNode, Proxy>();
      for (const n of cluster.nodes) {
        const p = await startTcpProxy({ host: "127.0.0.1", port: n.port });
        closing.push(() => p.close());
        map.set(n, p);
      }
      return map;
    };
    const urlThrough = (proxies: Map<PgNode, Proxy>) =>
      `postgres://postgres@${cluster.nodes.map((n) => `127.0.0.1:${proxies.get(n)!.port}`).join(",")}/payments?target_session_attrs=read-write`;
    const proxiesA = await proxiesFor();
    const proxiesB = await proxiesFor();
    // PgBouncer reaches the primary at one address, moved to the new primary at the failover (as a
    // virtual IP, a DNS name or Patroni's callback would).
    const bouncerUpstream = await startTcpProxy({ host: "127.0.0.1", port: cluster.primary.port });
    closing.push(() => bouncerUpstream.close());
    const bouncer = await startPgbouncer({
      server: { host: "127.0.0.1", port: bouncerUpstream.port, user: "postgres" },
      poolMode: "transaction",
      poolSize: DEFAULTS.DB_POOL_SIZE + 2,
    });
    closing.push(() => bouncer.stop());

    // The standby streams through a proxy of its own, so the failover fault can hold replication up.
    const standby = cluster.standbys[0];
    const replication = await startTcpProxy({ host: "127.0.0.1", port: cluster.primary.port });
    closing.push(() => replication.close());
    await standby.configure({
      primary_conninfo: `host=127.0.0.1 port=${replication.port} user=postgres application_name=${standby.name}`,
    });
    await waitUntil("the standby to stream through its proxy", async () => {
      const [r] = await standby.query<{ port: number | null }>(
        "select sender_port as port from pg_stat_wal_receiver where status = 'streaming'",
      );
      return r?.port === replication.port;
    });
    await cluster.waitForStreaming(1);
    // The point of the failover fault: a commit is acknowledged only once the standby has it.
    const [repl] = await cluster.primary.query<{ sync_state: string; sc: string }>(
      "select sync_state, current_setting('synchronous_commit') as sc from pg_stat_replication",
    );
    const expected = REPLICATION === "sync" ? "quorum" : "async";
    if (repl?.sync_state !== expected || repl.sc !== "on")
      throw new Error(`the standby is not ${expected}: ${JSON.stringify(repl)}`);
    // Behind a pooler the app sends no session settings: the database's own, as docs/operations.md says.
    for (const setting of [
      `statement_timeout = '${DEFAULTS.DB_STATEMENT_TIMEOUT_MS}ms'`,
      `lock_timeout = '${DEFAULTS.DB_LOCK_TIMEOUT_MS}ms'`,
      `idle_in_transaction_session_timeout = '${DEFAULTS.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS}ms'`,
      "tcp_keepalives_idle = 5",
      "tcp_keepalives_interval = 2",
      "tcp_keepalives_count = 3",
    ])
      await cluster.primary.query(`alter database payments set ${setting}`);

    const bases = { A: `http://127.0.0.1:${await freePort()}`, B: `http://127.0.0.1:${await freePort()}` };
    const common: Record<string, string> = {
      NODE_ENV: "production",
      PAYMENTS_MODE: "sandbox",
      HOST: "127.0.0.1",
      ADMIN_TOKEN,
      AUTH_SECRET: randomBytes(32).toString("hex"),
      SEED_DEMO_MERCHANT: "false",
      RATE_LIMIT_PER_MINUTE: "0",
      SANDBOX_SETTLE_SECONDS: "0",
      LOG_LEVEL: process.env.FAULTS_LOG_LEVEL ?? "warn",
      DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "faults-data-")),
      ...(process.env.FAULTS_REQUEST_DEADLINE_MS ? { REQUEST_DEADLINE_MS: String(DEADLINE_MS) } : {}),
    };
    const appEnv: Record<"A" | "B", Record<string, string>> = {
      A: {
        ...common,
        DATABASE_URL: urlThrough(proxiesA),
        PORT: new URL(bases.A).port,
        PUBLIC_BASE_URL: bases.A,
        INSTANCE_NAME: `faults-${RUN}-A`,
      },
      B: {
        ...common,
        DB_POOLER: "transaction",
        DATABASE_URL: bouncer.url("payments"),
        DATABASE_DIRECT_URL: urlThrough(proxiesB),
        PORT: new URL(bases.B).port,
        PUBLIC_BASE_URL: bases.B,
        INSTANCE_NAME: `faults-${RUN}-B`,
      },
    };
    log("migrating");
    await runMigrations(urlThrough(proxiesA));
    log("starting instance A (direct) and instance B (behind PgBouncer)");
    const [appA, appB] = await Promise.all([
      startApp(bundle, appEnv.A, logOf("A")),
      startApp(bundle, appEnv.B, logOf("B")),
    ]);
    apps.set("A", appA);
    apps.set("B", appB);

    const merchants: Merchant[] = [];
    for (let i = 0; i < MERCHANTS; i++) {
      const res = await fetch(`${bases.A}/api/v1/admin/merchants`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({
          companyName: `Faults ${RUN} ${i}`,
          pixKey: "52998224725",
          accountType: "business",
          openingBalance: 5_000_000,
        }),
      });
      const json = (await res.json()) as { apiKey: string; merchant: { id: string } };
      if (res.status !== 201) throw new Error(`creating a merchant: HTTP ${res.status} ${JSON.stringify(json)}`);
      merchants.push({ apiKey: json.apiKey, id: json.merchant.id });
    }

    const instances: Instance[] = [
      { name: "A", base: bases.A, gone: false },
      { name: "B", base: bases.B, gone: false },
    ];
    const load = new Load(instances, merchants);
    const clientsOf = (name: string) =>
      Array.from({ length: CLIENTS }, (_, i) => i).filter((i) => load.home(i).name === name);
    const rows: Row[] = [];
    const allAcks: Ack[] = [];
    const restart = async (name: "A" | "B") => {
      const app = await startApp(bundle, appEnv[name], logOf(name));
      apps.set(name, app);
      return app;
    };

    type Injected = {
      backAt: number;
      /** Instances whose first 2xx after backAt is the recovery (both unless said). */
      recovering?: string[];
      extra?: () => string;
      failures?: () => string[];
    };
    /** Load, the fault (which returns when the service's dependency is back), load for `after` ms, then the checks. */
    /** After a failed fault: what the database's sessions and PgBouncer's are doing, to say why. */
    const explain = async (fault: string) => {
      const sql = postgres(cluster.primary.url("payments"), { max: 1, onnotice: () => {}, connect_timeout: 5 });
      try {
        const sessions = await sql<
          { app: string; state: string; wait: string; n: number; xact_s: number; query: string }[]
        >`
          select coalesce(nullif(split_part(application_name, ':', 1), ''), backend_type) as app, coalesce(state, '') as state,
                 coalesce(wait_event_type || ':' || wait_event, '') as wait, count(*)::int as n,
                 coalesce(max(extract(epoch from now() - xact_start)), 0)::int as xact_s, min(left(regexp_replace(query, '[[:space:]]+', ' ', 'g'), 70)) as query
          from pg_stat_activity where datname = 'payments' and pid <> pg_backend_pid()
          group by 1, 2, 3 order by n desc`;
        for (const r of sessions)
          log(
            `${fault}: sessions: ${r.n}× ${r.app} ${r.state} ${r.wait} (oldest transaction ${r.xact_s} s) ${r.query}`,
          );
        for (const what of ["pools", "clients", "servers"]) {
          const rows = await bouncer.show(what);
          const states = new Map<string, number>();
          for (const r of rows)
            bump(
              states,
              `${String(r.state ?? "")}${r.cl_waiting !== undefined ? ` cl_active=${String(r.cl_active)} cl_waiting=${String(r.cl_waiting)} sv_active=${String(r.sv_active)} sv_idle=${String(r.sv_idle)} sv_used=${String(r.sv_used)} sv_login=${String(r.sv_login)}` : ""}`,
            );
          log(`${fault}: pgbouncer ${what}: ${[...states].map(([k, n]) => `${n}× ${k}`).join("; ")}`);
        }
      } catch (err) {
        log(`${fault}: could not look at the sessions: ${String(err)}`);
      } finally {
        await sql.end({ timeout: 1 });
      }
    };
    const phase = async (fault: string, inject: () => Promise<Injected>, after = 3000) => {
      if (fault !== "none" && ONLY.length > 0 && !ONLY.some((w) => fault.includes(w))) return;
      log(`${fault}: load`);
      load.start(fault);
      await sleep(2000);
      log(`${fault}: injecting`);
      const { backAt, recovering = ["A", "B"], extra, failures } = await inject();
      await sleep(after);
      log(`${fault}: draining`);
      const stats = await load.stop();
      allAcks.push(...stats.acks);
      const c = await check(cluster.primary, merchants, stats.acks);
      const recoveryMs = fault === "none" ? null : firstOkAfter(stats, backAt, recovering);
      const served =
        fault === "none"
          ? null
          : allServedAfter(
              stats,
              backAt,
              recovering.flatMap((name) => clientsOf(name)),
            );
      const row: Row = {
        fault,
        check: c,
        overDeadline: stats.overDeadline.length,
        recoveryMs,
        unsettled: stats.unsettled.length,
        http500: [...stats.statuses].filter(([st]) => Number(st) >= 500 && st !== "503").reduce((n, [, v]) => n + v, 0),
        extra: [
          fault === "none"
            ? ""
            : recovering
                .map((name) => `${name}'s first 2xx ${firstOkAfter(stats, backAt, [name]) ?? "never"} ms`)
                .join(", "),
          served === null ? "" : `every client served again within ${served} ms`,
          extra?.() ?? "",
        ]
          .filter(Boolean)
          .join("; "),
        failures: [...(failures?.() ?? [])],
      };
      if (c.found < c.acknowledged)
        row.failures.push(`${c.acknowledged - c.found} acknowledged not found: ${c.missing.slice(0, 5).join("; ")}`);
      if (c.duplicated > 0) row.failures.push(`duplicated: ${c.duplicates.slice(0, 5).join("; ")}`);
      if (c.unmarked.length > 0)
        row.failures.push(
          `found, but not by the request's marker (the suite cannot see duplicates): ${c.unmarked.slice(0, 5).join("; ")}`,
        );
      if (c.ledgerMismatches > 0) row.failures.push(`${c.ledgerMismatches} balances differ from their ledger`);
      if (row.overDeadline > 0)
        row.failures.push(
          `over ${DEADLINE_MS + MARGIN_MS} ms: ${stats.overDeadline
            .slice(0, 5)
            .map((o) => `${o.ms} ms (${o.status})`)
            .join(", ")}`,
        );
      if (row.unsettled > 0)
        row.failures.push(`no definitive answer within ${GIVE_UP_MS} ms: ${stats.unsettled.slice(0, 5).join("; ")}`);
      if (fault !== "none" && (recoveryMs === null || recoveryMs > RECOVERY_TARGET_MS))
        row.failures.push(`first 2xx ${recoveryMs ?? "never"} ms after recovery (target ${RECOVERY_TARGET_MS})`);
      rows.push(row);
      const statuses = [...stats.statuses].map(([st, n]) => `${st}×${n}`).join(" ");
      const perOp = new Map<string, number>();
      for (const a of stats.acks) bump(perOp, a.op);
      const ops = [...perOp].map(([op, n]) => `${op} ${n}`).join(", ");
      const refused = [...stats.refused].map(([st, n]) => `${st} ×${n}`).join("; ");
      log(
        `${fault}: ${c.acknowledged} acknowledged, ${c.found} found, ${c.duplicated} duplicated, ${c.ledgerMismatches} mismatches, ${row.overDeadline} over deadline, recovery ${recoveryMs ?? "–"} ms, slowest answer ${Math.round(stats.slowestMs)} ms; acknowledged ${ops}; attempts ${stats.attempts} (${statuses})${refused ? `; refused: ${refused}` : ""}${row.extra ? `; ${row.extra}` : ""}`,
      );
      for (const f of row.failures) log(`${fault}: FAILED: ${f}`);
      if (row.failures.length > 0) await explain(fault);
    };

    /** A's keys in flight at `at`, and the worst time from `from` to their definitive answers. */
    const keysOf = (name: string) =>
      [...load.inFlight].filter(([, v]) => load.home(v.client).name === name).map(([k]) => k);
    const worstAnswer = (keys: string[], from: number) =>
      Math.max(0, ...keys.map((k) => (load.settledAt.get(k) ?? Infinity) - from));

    await phase("none", async () => ({ backAt: Date.now() }));

    for (let round = 1; round <= ROUNDS; round++) {
      const n = ROUNDS > 1 ? ` #${round}` : "";
      await phase(`db restart (pg_ctl restart -m fast)${n}`, async () => {
        await cluster.primary.stop("fast");
        await cluster.primary.start();
        return { backAt: Date.now() };
      });

      await phase(`db crash (kill -9, restart)${n}`, async () => {
        await cluster.primary.kill();
        await cluster.primary.start();
        return { backAt: Date.now() };
      });

      await phase(`db down ${FAULT_MS / 1000} s (stop, start)${n}`, async () => {
        await cluster.primary.stop("fast");
        await sleep(FAULT_MS);
        await cluster.primary.start();
        return { backAt: Date.now() };
      });

      await phase(`A partitioned from the db ${FAULT_MS / 1000} s${n}`, async () => {
        const proxy = proxiesA.get(cluster.primary)!;
        const cutAt = Date.now();
        proxy.partition();
        await sleep(FAULT_MS);
        proxy.restore();
        const backAt = Date.now();
        // B moves each merchant's money again once A's sessions, which held their rows, are ended.
        const releasedMs = () => {
          const perMerchant = merchants.map((_, m) => {
            const firsts = load.stats.acks
              .filter((a) => a.instance === "B" && a.merchant === m && MONEY_OUT.includes(a.op) && a.at >= cutAt)
              .map((a) => a.at);
            return firsts.length ? Math.min(...firsts) - cutAt : null;
          });
          return perMerchant.some((x) => x === null) ? null : Math.max(...(perMerchant as number[]));
        };
        return {
          backAt,
          recovering: ["A"],
          extra: () => `B moved every merchant's money again ${releasedMs() ?? "never"} ms after A was cut off`,
          failures: () => {
            const ms = releasedMs();
            return ms === null || ms > LOCKS_RELEASED_TARGET_MS
              ? [
                  `B's refunds and withdrawals for every merchant went through again ${ms ?? "never"} ms after A was cut off (target ${LOCKS_RELEASED_TARGET_MS})`,
                ]
              : [];
          },
        };
      });

      await phase(`lock (ACCESS EXCLUSIVE on idempotency_keys, ${FAULT_MS / 1000} s)${n}`, async () => {
        const sql = postgres(cluster.primary.url("payments"), { max: 1, onnotice: () => {} });
        try {
          await sql.begin(async (tx) => {
            await tx`set local idle_in_transaction_session_timeout = 0`;
            await tx`lock table idempotency_keys in access exclusive mode`;
            await sleep(FAULT_MS);
          });
        } finally {
          await sql.end({ timeout: 1 });
        }
        return { backAt: Date.now() };
      });

      await phase(`A SIGKILL, restart${n}`, async () => {
        const killedAt = Date.now();
        const held = keysOf("A");
        await killApp(apps.get("A")!);
        const app = await restart("A");
        const readyAt = Date.now();
        return {
          backAt: readyAt,
          recovering: ["A"],
          extra: () =>
            `restart took ${readyAt - killedAt} ms, ending ${app.released} leases of the killed run; ${held.length} keys in flight at the kill, all answered within ${worstAnswer(held, readyAt)} ms of the restart`,
          failures: () =>
            worstAnswer(held, readyAt) > KILLED_KEYS_TARGET_MS
              ? [
                  `keys in flight at the kill answered ${worstAnswer(held, readyAt)} ms after the restart (target ${KILLED_KEYS_TARGET_MS})`,
                ]
              : [],
        };
      });

      await phase(`A killed for good (its clients retry on B)${n}`, async () => {
        const held = keysOf("A");
        await killApp(apps.get("A")!);
        const killedAt = Date.now();
        instances[0].gone = true;
        return {
          backAt: killedAt,
          recovering: ["B"],
          extra: () =>
            `${held.length} keys in flight on A at its death, all answered by B within ${worstAnswer(held, killedAt)} ms`,
          failures: () =>
            worstAnswer(held, killedAt) > KILLED_KEYS_TARGET_MS
              ? [
                  `keys of the dead instance answered ${worstAnswer(held, killedAt)} ms after its death (target ${KILLED_KEYS_TARGET_MS})`,
                ]
              : [],
        };
      });
      // A comes back, under a new name (a new pod), for what follows.
      if (instances[0].gone) {
        appEnv.A.INSTANCE_NAME = `faults-${RUN}-A${round}`;
        await restart("A");
        instances[0].gone = false;
      }
    }

    await phase(
      `failover (replication held ${REPLICATION_STALL_MS / 1000} s, kill -9 primary, promote ${REPLICATION} standby)`,
      async () => {
        const old = cluster.primary;
        // Synchronous: commits wait meanwhile, and none of them is acknowledged. Asynchronous: they are,
        // and the standby never gets them.
        replication.partition();
        await sleep(REPLICATION_STALL_MS);
        await old.kill();
        await standby.promote();
        const promotedAt = Date.now();
        cluster.setPrimary(standby);
        bouncerUpstream.retarget({ host: "127.0.0.1", port: standby.port });
        // What a failover manager does next (Patroni's non-strict synchronous mode): the new primary has
        // no standby yet, and would otherwise wait for one named in the configuration it copied.
        await standby.configure({ synchronous_standby_names: "" });
        return { backAt: promotedAt };
      },
    );

    // Everything acknowledged during the whole run, against the server that is primary now.
    const all = await check(cluster.primary, merchants, allAcks);
    const total: Row = {
      fault: "all, on the final primary",
      check: all,
      overDeadline: rows.reduce((k, r) => k + r.overDeadline, 0),
      recoveryMs: null,
      unsettled: 0,
      http500: rows.reduce((k, r) => k + r.http500, 0),
      failures: [],
    };
    if (all.found < all.acknowledged)
      total.failures.push(
        `${all.acknowledged - all.found} acknowledged not found: ${all.missing.slice(0, 5).join("; ")}`,
      );
    if (all.unmarked.length > 0)
      total.failures.push(`found, but not by the request's marker: ${all.unmarked.slice(0, 5).join("; ")}`);
    if (all.duplicated > 0) total.failures.push(`duplicated: ${all.duplicates.slice(0, 5).join("; ")}`);
    if (all.ledgerMismatches > 0) total.failures.push(`${all.ledgerMismatches} balances differ from their ledger`);
    if (total.http500 > 0) total.failures.push(`${total.http500} answers were a 5xx other than 503`);
    for (const f of total.failures) log(`total: FAILED: ${f}`);

    console.log("");
    printTable(rows, total);
    console.log("");
    console.log(
      `${CLIENTS} clients (half on A, direct; half on B, behind PgBouncer), ${MERCHANTS} merchants; ${SERVER} server; the app's default deadlines (REQUEST_DEADLINE_MS=${DEADLINE_MS}, DB_LOCK_TIMEOUT_MS=${DEFAULTS.DB_LOCK_TIMEOUT_MS}, DB_CONNECT_TIMEOUT_SECONDS=${DEFAULTS.DB_CONNECT_TIMEOUT_SECONDS}, DB_POOL_WAIT_MS=${DEFAULTS.DB_POOL_WAIT_MS}, DB_IDLE_IN_TRANSACTION_TIMEOUT_MS=${DEFAULTS.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS}, DB_POOL_SIZE=${DEFAULTS.DB_POOL_SIZE}); ` +
        `recovery target ${RECOVERY_TARGET_MS} ms; ${total.http500} answers 5xx other than 503; ${Math.round((Date.now() - started) / 1000)} s in all`,
    );
    for (const r of rows) if (r.extra) console.log(`${r.fault}: ${r.extra}`);
    console.log(
      `${os.hostname()}, ${os.cpus().length} cores, ${os.cpus()[0]?.model ?? "?"}, load ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}, Node ${process.version}, PostgreSQL from ${cluster.binDir}, ${new Date().toISOString()}`,
    );
    failed = rows.some((r) => r.failures.length > 0) || total.failures.length > 0;
    console.log(failed ? "FAILED" : ONLY.length > 0 ? `passed (partial: FAULTS_ONLY=${ONLY.join(",")})` : "passed");
  } finally {
    for (const app of apps.values()) await killApp(app).catch(() => {});
    for (const close of closing.reverse()) await close().catch(() => {});
    await cluster.close().catch(() => {});
    if (!failed && !process.env.FAULTS_KEEP)
      for (const name of ["A", "B"] as const) fs.rmSync(logOf(name), { force: true });
  }
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
