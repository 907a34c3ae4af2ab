import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { build } from "esbuild";
import postgres from "postgres";
import { runMigrations } from "@/db/migrate";
import { freePort, startCluster, type PgCluster, type PgNode } from "../../tests/support/pg-cluster";
import { startTcpProxy } from "../../tests/support/tcp-proxy";

// `npm run faults`: the pre-release fault suite (docs/operations.md, "The fault suite"). It starts a
// PostgreSQL primary with a synchronous standby of its own (tests/support/pg-cluster.ts), the API server
// (scripts/faults/server.ts) on a URL naming both servers through one TCP proxy each, and clients that
// create PIX orders, pay them in the sandbox and withdraw by PIX and on-chain, every POST keyed and
// retried with its key until it gets a definitive answer. One fault after another, each under load:
// a database restart, a crash, a network partition, a held lock, the app killed, a failover. After
// each, the database is asked whether every acknowledged request is there exactly once and every
// balance equals its ledger. Exits 1 on any loss, duplicate, mismatch, request past its deadline,
// request without an answer, or recovery slower than its target.
//
// Environment: FAULTS_CLIENTS (12), FAULTS_ROUNDS (1), FAULTS_REQUEST_DEADLINE_MS (5000),
// FAULTS_REPLICATION=async (an asynchronous standby: the failover must then fail the suite),
// FAULTS_WAL_RETRIEVE_RETRY_INTERVAL (the standby's wal_retrieve_retry_interval, 100ms; PostgreSQL's
// default 5s fails the restart's recovery target), PG_BIN_DIR (the newest /usr/lib/postgresql/<v>/bin),
// FAULTS_KEEP=1 keeps the app's log.

const ROOT = path.resolve(__dirname, "../..");
const int = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
const CLIENTS = int("FAULTS_CLIENTS", 12);
/** How many times each fault but the failover (which ends the standby) is injected. */
const ROUNDS = int("FAULTS_ROUNDS", 1);
/** async: what the suite must catch, acknowledged requests lost in the failover. */
const REPLICATION = process.env.FAULTS_REPLICATION === "async" ? "async" : "sync";
/** How long replication is held up before the primary is lost, so that the standby lags behind it. */
const REPLICATION_STALL_MS = 2000;
const MERCHANTS = 4;
const DEADLINE_MS = int("FAULTS_REQUEST_DEADLINE_MS", 5000);
/** Past the deadline, an answer is late by more than scheduling on a busy machine explains. */
const MARGIN_MS = 1000;
const RECOVERY_TARGET_MS = 2000;
const KILLED_KEYS_TARGET_MS = 5000;
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

async function bundleServer(): Promise<string> {
  const outfile = path.join(ROOT, "dist/faults/server.cjs");
  // Like build:server: run by node, not tsx, so a restart costs no transpiling.
  await build({
    entryPoints: [path.join(ROOT, "scripts/faults/server.ts")],
    bundle: true,
    platform: "node",
    target: "node22",
    format: "cjs",
    packages: "external",
    outfile,
    logLevel: "warning",
  });
  return outfile;
}

function startApp(bundle: string, env: Record<string, string>, logFile: string): Promise<App> {
  const out = fs.openSync(logFile, "a");
  const child = spawn(process.execPath, [bundle], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", out],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    let text = "";
    child.stdout!.on("data", (d: Buffer) => {
      fs.appendFileSync(logFile, d);
      text += d.toString();
      const ready = /^ready \d+ released=(\d+)/m.exec(text);
      if (ready) resolve({ child, exited, released: Number(ready[1]) });
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

type Op = "create-pix" | "sandbox-pay" | "pix-out" | "onchain-withdraw";
type Ack = { op: Op; key: string; merchant: number; id: string; marker: string; phase: string };
type PhaseStats = {
  acks: Ack[];
  attempts: number;
  overDeadline: { ms: number; status: string }[];
  statuses: Map<string, number>;
  okAt: number[];
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

class Load {
  private stopping = false;
  private running: Promise<void>[] = [];
  /** Keys whose request is still looking for its definitive answer, and when it started. */
  readonly inFlight = new Map<string, number>();
  /** Keys that reached their definitive answer, and when. */
  readonly settledAt = new Map<string, number>();
  private seq = 0;
  private readonly pending: string[][];
  stats = newStats();
  phase = "";

  constructor(
    private readonly base: string,
    private readonly merchants: Merchant[],
  ) {
    this.pending = merchants.map(() => []);
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
    const m = i % this.merchants.length;
    while (!this.stopping) {
      const roll = Math.random();
      const key = `faults-${RUN}-${i}-${++this.seq}`;
      if (roll < 0.15) {
        await this.settle(
          "pix-out",
          key,
          m,
          "/api/v1/order/pix-out",
          { value: 100, pixKey: `${key}@faults.example` },
          (j) => String(j.id),
          `${key}@faults.example`,
        );
      } else if (roll < 0.3) {
        const to = `0x${randomBytes(20).toString("hex")}`;
        await this.settle(
          "onchain-withdraw",
          key,
          m,
          "/api/v1/onchain/withdraw/initiate",
          { toAddress: to, value: 1, network: "polygon" },
          (j) => String(j.id),
          to,
        );
      } else {
        const order = roll < 0.65 ? this.pending[m].shift() : undefined;
        if (order) {
          await this.settle(
            "sandbox-pay",
            key,
            m,
            `/api/v1/sandbox/orders/${order}/pay`,
            undefined,
            () => order,
            order,
          );
        } else {
          const id = await this.settle(
            "create-pix",
            key,
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
    merchant: number,
    urlPath: string,
    body: unknown,
    idOf: (json: Record<string, unknown>) => string,
    marker: string,
  ): Promise<string | null> {
    const startedAt = Date.now();
    this.inFlight.set(key, startedAt);
    try {
      for (;;) {
        const stats = this.stats;
        if (Date.now() - startedAt > GIVE_UP_MS) {
          stats.unsettled.push(`${op} ${key}`);
          return null;
        }
        const t0 = performance.now();
        let status: string;
        let json: Record<string, unknown> | null = null;
        try {
          const res = await fetch(this.base + urlPath, {
            method: "POST",
            headers: {
              authorization: `Bearer ${this.merchants[merchant].apiKey}`,
              "idempotency-key": key,
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
          stats.okAt.push(Date.now());
          const id = idOf(json);
          stats.acks.push({ op, key, merchant, id, marker, phase: this.phase });
          this.settledAt.set(key, Date.now());
          return id;
        }
        if (code >= 400 && code < 500 && code !== 409 && code !== 429) {
          // A definitive refusal (an insufficient balance, say): nothing to find, and nothing lost.
          bump(stats.refused, `${op} ${code} ${String(json?.message ?? "").slice(0, 80)}`);
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

function firstOkAfter(stats: PhaseStats, at: number): number | null {
  const after = stats.okAt.filter((t) => t >= at);
  return after.length ? Math.min(...after) - at : null;
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
  const logFile = path.join(os.tmpdir(), `faults-app-${RUN}.log`);
  log(`building the server bundle; the app's log: ${logFile}`);
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
  const proxies = new Map<PgNode, Awaited<ReturnType<typeof startTcpProxy>>>();
  const closing: (() => Promise<void>)[] = [];
  let app: App | null = null;
  let failed = false;
  try {
    for (const n of cluster.nodes) proxies.set(n, await startTcpProxy({ host: "127.0.0.1", port: n.port }));
    const hosts = cluster.nodes.map((n) => `127.0.0.1:${proxies.get(n)!.port}`).join(",");
    const databaseUrl = `postgres://postgres@${hosts}/payments?target_session_attrs=read-write`;
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
    log("migrating");
    await runMigrations(databaseUrl);

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const appEnv: Record<string, string> = {
      NODE_ENV: "production",
      PAYMENTS_MODE: "sandbox",
      DATABASE_URL: databaseUrl,
      HOST: "127.0.0.1",
      PORT: String(port),
      PUBLIC_BASE_URL: base,
      INSTANCE_NAME: `faults-${RUN}`,
      ADMIN_TOKEN,
      AUTH_SECRET: randomBytes(32).toString("hex"),
      SEED_DEMO_MERCHANT: "false",
      RATE_LIMIT_PER_MINUTE: "0",
      SANDBOX_SETTLE_SECONDS: "0",
      REQUEST_DEADLINE_MS: String(DEADLINE_MS),
      DB_LOCK_TIMEOUT_MS: "2000",
      DB_CONNECT_TIMEOUT_SECONDS: "2",
      LOG_LEVEL: "warn",
    };
    log("starting the app");
    app = await startApp(bundle, appEnv, logFile);

    const merchants: Merchant[] = [];
    for (let i = 0; i < MERCHANTS; i++) {
      const res = await fetch(`${base}/api/v1/admin/merchants`, {
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

    const load = new Load(base, merchants);
    const rows: Row[] = [];
    const allAcks: Ack[] = [];

    /** Load, the fault (which returns when the service's dependency is back), load for `after` ms, then the checks. */
    const phase = async (
      fault: string,
      inject: () => Promise<{ backAt: number; extra?: () => string; failures?: () => string[] }>,
      after = 3000,
    ) => {
      log(`${fault}: load`);
      load.start(fault);
      await sleep(1500);
      log(`${fault}: injecting`);
      const { backAt, extra, failures } = await inject();
      await sleep(after);
      log(`${fault}: draining`);
      const stats = await load.stop();
      allAcks.push(...stats.acks);
      const c = await check(cluster.primary, merchants, stats.acks);
      const recoveryMs = fault === "none" ? null : firstOkAfter(stats, backAt);
      const row: Row = {
        fault,
        check: c,
        overDeadline: stats.overDeadline.length,
        recoveryMs,
        unsettled: stats.unsettled.length,
        http500: [...stats.statuses].filter(([s]) => Number(s) >= 500 && s !== "503").reduce((n, [, v]) => n + v, 0),
        extra: extra?.(),
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
      const statuses = [...stats.statuses].map(([s, n]) => `${s}×${n}`).join(" ");
      const perOp = new Map<string, number>();
      for (const a of stats.acks) bump(perOp, a.op);
      const ops = [...perOp].map(([op, n]) => `${op} ${n}`).join(", ");
      const refused = [...stats.refused].map(([s, n]) => `${s} ×${n}`).join("; ");
      log(
        `${fault}: ${c.acknowledged} acknowledged, ${c.found} found, ${c.duplicated} duplicated, ${c.ledgerMismatches} mismatches, ${row.overDeadline} over deadline, recovery ${recoveryMs ?? "–"} ms, slowest answer ${Math.round(stats.slowestMs)} ms; acknowledged ${ops}; attempts ${stats.attempts} (${statuses})${refused ? `; refused: ${refused}` : ""}${row.extra ? `; ${row.extra}` : ""}`,
      );
      for (const f of row.failures) log(`${fault}: FAILED: ${f}`);
    };

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

      const partitionMs = DEADLINE_MS + 1000;
      await phase(`partition (TCP proxy, ${partitionMs / 1000} s)${n}`, async () => {
        const proxy = proxies.get(cluster.primary)!;
        proxy.partition();
        await sleep(partitionMs);
        proxy.restore();
        return { backAt: Date.now() };
      });

      const lockMs = 5000;
      await phase(`lock (ACCESS EXCLUSIVE on idempotency_keys, ${lockMs / 1000} s)${n}`, async () => {
        const sql = postgres(cluster.primary.url("payments"), { max: 1, onnotice: () => {} });
        try {
          await sql.begin(async (tx) => {
            await tx`lock table idempotency_keys in access exclusive mode`;
            await sleep(lockMs);
          });
        } finally {
          await sql.end({ timeout: 1 });
        }
        return { backAt: Date.now() };
      });

      await phase(`app SIGKILL, restart${n}`, async () => {
        const killedAt = Date.now();
        const held = [...load.inFlight.keys()];
        await killApp(app!);
        app = await startApp(bundle, appEnv, logFile);
        const readyAt = Date.now();
        const worst = () => Math.max(0, ...held.map((k) => (load.settledAt.get(k) ?? Infinity) - readyAt));
        return {
          backAt: readyAt,
          extra: () =>
            `restart took ${readyAt - killedAt} ms, ending ${app!.released} leases of the killed run; ${held.length} keys in flight at the kill, all answered within ${worst()} ms of the restart`,
          failures: () =>
            worst() > KILLED_KEYS_TARGET_MS
              ? [
                  `keys in flight at the kill answered ${worst()} ms after the restart (target ${KILLED_KEYS_TARGET_MS})`,
                ]
              : [],
        };
      });
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
      overDeadline: rows.reduce((n, r) => n + r.overDeadline, 0),
      recoveryMs: null,
      unsettled: 0,
      http500: rows.reduce((n, r) => n + r.http500, 0),
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
    for (const f of total.failures) log(`total: FAILED: ${f}`);

    console.log("");
    printTable(rows, total);
    console.log("");
    const http500 = total.http500;
    console.log(
      `${CLIENTS} clients, ${MERCHANTS} merchants; REQUEST_DEADLINE_MS=${DEADLINE_MS} (+${MARGIN_MS} ms margin), DB_LOCK_TIMEOUT_MS=2000, DB_CONNECT_TIMEOUT_SECONDS=2; ` +
        `recovery target ${RECOVERY_TARGET_MS} ms; ${http500} answers 5xx other than 503; ${Math.round((Date.now() - started) / 1000)} s in all`,
    );
    for (const r of rows) if (r.extra) console.log(`${r.fault}: ${r.extra}`);
    console.log(
      `${os.hostname()}, ${os.cpus().length} cores, ${os.cpus()[0]?.model ?? "?"}, PostgreSQL from ${cluster.binDir}, ${new Date().toISOString()}`,
    );
    failed = rows.some((r) => r.failures.length > 0) || total.failures.length > 0;
    console.log(failed ? "FAILED" : "passed");
  } finally {
    if (app) await killApp(app).catch(() => {});
    for (const p of proxies.values()) await p.close().catch(() => {});
    for (const close of closing) await close().catch(() => {});
    await cluster.close().catch(() => {});
    if (!failed && !process.env.FAULTS_KEEP) fs.rmSync(logFile, { force: true });
  }
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
