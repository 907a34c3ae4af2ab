import { randomUUID } from "node:crypto";
import postgres from "postgres";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { closeDb, connectionOptions, db, openPool } from "@/db";
import { ensureDatabase } from "@/db/bootstrap";
import { runMigrations } from "@/db/migrate";
import { cachedKey } from "@/lib/identity/api-keys/key-cache";
import { hashApiKey } from "@/lib/identity/api-keys/keys";
import { checkPooledDeadlines } from "@/lib/deployment/guards";
import { resetEnvForTests } from "@/lib/env";
import { jobQueue, startJobs, stopJobs, worker } from "@/lib/jobs/queue";
import { setLoggerForTests } from "@/lib/log";
import { api, captureLogs, seedMerchant } from "./helpers";
import { findPgbouncer, PGBOUNCER_SETTINGS, startPgbouncer, type PgBouncer } from "./support/pgbouncer";
import { startTcpProxy } from "./support/tcp-proxy";
import { balanceMatchesLedger } from "./support/ledger";
import { saveEnv } from "./support/env";
import { waitFor } from "./support/wait";
import { testDatabaseUrl } from "./support/database";

// Behind PgBouncer in transaction mode (DB_POOLER=transaction, docs/operations.md): consecutive
// transactions of one client run on different server sessions, so nothing may be prepared by name on
// the pooled connections, and what needs a session of its own (LISTEN for the API key cache, the job
// runner, migrations' advisory lock) goes to DATABASE_DIRECT_URL. Debian's pgbouncer 1.18 does not
// carry named prepared statements between server connections.

const bin = findPgbouncer();
const savedEnv = saveEnv();
const database = `pooler_${process.pid}_${Date.now()}`;
let bouncer: PgBouncer;
let directUrl: string;
let serverUrl: URL;

async function switchToPooler(vars: Record<string, string> = {}, through: PgBouncer = bouncer) {
  await closeDb();
  Object.assign(process.env, {
    DB_POOLER: "transaction",
    DATABASE_URL: through.url(database),
    DATABASE_DIRECT_URL: directUrl,
    ...vars,
  });
  resetEnvForTests();
}

/** One client, many short transactions, while other clients keep the pooler's two server connections busy. */
async function transactionsThroughPooler(
  client: postgres.Sql,
  rounds: number,
): Promise<{ ok: number; failed: string[] }> {
  const others = postgres(bouncer.url(database), { max: 4, prepare: false, onnotice: () => {} });
  let stop = false;
  const noise = Array.from({ length: 4 }, async () => {
    while (!stop)
      await others.begin(async (tx) => tx`select pg_sleep(0.002), ${randomUUID()}::uuid as id`).catch(() => {});
  });
  const failed: string[] = [];
  let ok = 0;
  for (let i = 0; i < rounds; i++) {
    try {
      await client.begin(async (tx) => {
        await tx`select ${i}::int as n, ${"x"}::text as t`;
        await tx`select pg_advisory_xact_lock(${4242})`;
      });
      ok++;
    } catch (err) {
      failed.push((err as Error).message);
    }
  }
  stop = true;
  await Promise.all(noise);
  await others.end({ timeout: 1 });
  return { ok, failed };
}

describe.skipIf(!bin)("behind PgBouncer in transaction mode", () => {
  beforeAll(async () => {
    serverUrl = new URL(testDatabaseUrl());
    const admin = postgres(serverUrl.toString(), { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database "${database}"`);
    // Behind a pooler the app sends no session settings: the deadlines come from the database's.
    await admin.unsafe(`alter database "${database}" set statement_timeout = '30s'`);
    await admin.unsafe(`alter database "${database}" set lock_timeout = '5s'`);
    await admin.end();
    const direct = new URL(serverUrl);
    direct.pathname = `/${database}`;
    directUrl = direct.toString();
    await runMigrations(directUrl);
    bouncer = await startPgbouncer({
      server: {
        host: serverUrl.hostname,
        port: Number(serverUrl.port || 5432),
        user: decodeURIComponent(serverUrl.username),
        password: decodeURIComponent(serverUrl.password) || undefined,
      },
      poolMode: "transaction",
      poolSize: 2,
    });
  }, 120_000);

  afterEach(async () => {
    setLoggerForTests(undefined);
    await stopJobs(1000);
    savedEnv.restore();
    await closeDb();
  });

  afterAll(async () => {
    await bouncer?.stop();
    const admin = postgres(serverUrl.toString(), { max: 1, onnotice: () => {} });
    await admin.unsafe(`drop database if exists "${database}" with (force)`);
    await admin.end();
  }, 60_000);

  it("named prepared statements break transactions through the pooler (the control); the app's connections prepare nothing", async () => {
    // The driver's default: a statement prepared on one server session is missing on the next.
    const naive = postgres(bouncer.url(database), { max: 1, onnotice: () => {} });
    const broken = await transactionsThroughPooler(naive, 60);
    await naive.end({ timeout: 1 });
    expect(broken.failed.length, "the pooler should have moved the client between sessions").toBeGreaterThan(0);
    expect(broken.failed[0]).toMatch(/prepared statement .* does not exist|current transaction is aborted/);

    await switchToPooler();
    const url = bouncer.url(database);
    const app = postgres(url, { ...connectionOptions(url, { applicationName: "pooler-test", pooled: true }), max: 1 });
    const fine = await transactionsThroughPooler(app, 60);
    await app.end({ timeout: 1 });
    expect(fine).toEqual({ ok: 60, failed: [] });
    console.log(
      `through pgbouncer (transaction mode, 2 server connections): ${broken.failed.length} of 60 transactions failed with named statements, 0 of 60 with DB_POOLER=transaction`,
    );
  }, 60_000);

  it("the API works through the pooler: orders, payments, a withdrawal, lists, under concurrency", async () => {
    await switchToPooler();
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 100_000 });
    const created = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        api("POST", "/api/v1/order/create/pix", {
          apiKey,
          body: { value: 10 + i },
          headers: { "idempotency-key": randomUUID() },
        }),
      ),
    );
    expect(created.map((r) => r.status)).toEqual(Array(12).fill(200));
    const ids = created.map((r) => r.body.pixOrder._id as string);
    const paid = await Promise.all(
      ids.slice(0, 6).map((id) => api("POST", `/api/v1/sandbox/orders/${id}/pay`, { apiKey })),
    );
    expect(paid.map((r) => r.status)).toEqual(Array(6).fill(200));
    // The hot path's prepared queries (db/prepared.ts), many at once.
    const reads = await Promise.all(
      ids.flatMap((id) => [
        api("GET", `/api/v1/order/${id}`, { apiKey }),
        api("GET", `/api/v1/order/${id}`, { apiKey }),
      ]),
    );
    expect(reads.map((r) => r.status)).toEqual(Array(24).fill(200));
    const out = await api("POST", "/api/v1/order/pix-out", {
      apiKey,
      body: { value: 100 },
      headers: { "idempotency-key": randomUUID() },
    });
    expect(out.status, JSON.stringify(out.body)).toBe(201);
    const list = await api("GET", "/api/v1/orders?limit=50", { apiKey });
    expect(list.status).toBe(200);
    expect(list.body.orders).toHaveLength(12);
    expect((await api("GET", "/api/v1/withdrawals", { apiKey })).status).toBe(200);
    await balanceMatchesLedger(merchant.id);
    // Deadlines from the database's settings, as the pooler's sessions see them.
    expect(await checkPooledDeadlines()).toEqual({ statementTimeout: "30s", lockTimeout: "5s" });
  }, 60_000);

  it("LISTEN, the job runner and migrations use DATABASE_DIRECT_URL, never the pooler", async () => {
    await switchToPooler();
    // Migrations: ensureDatabase runs them on the direct URL (their advisory lock is a session's).
    await ensureDatabase();
    const { merchant, apiKey } = await seedMerchant();
    expect((await api("GET", "/api/v1/account", { apiKey })).status).toBe(200);
    // The key cache serves from memory only while it is listening.
    // The key cache stores nothing before its LISTEN is up: asked again until it serves from memory.
    await waitFor(
      "the key in the cache",
      async () => (await api("GET", "/api/v1/account", { apiKey }), cachedKey(hashApiKey(apiKey))),
      (e) => e !== undefined,
    );
    const done: string[] = [];
    const queue = jobQueue<{ n: string }>(`pooler-test-${process.pid}`, {});
    await startJobs({
      workers: [worker(queue, { pollingIntervalSeconds: 0.5 }, async (data) => void done.push(data.n))],
      recurring: [],
    });
    await queue.send({ n: "one" });
    await waitFor(
      "the job",
      async () => done,
      (d) => d.includes("one"),
      15_000,
    );

    // A change made elsewhere reaches this process's cache by NOTIFY, so the listener is really listening.
    const direct = postgres(directUrl, { max: 1, onnotice: () => {} });
    try {
      await direct`update merchants set company_name = ${"Renamed elsewhere"} where id = ${merchant.id}`;
      await waitFor(
        "the notification",
        async () => cachedKey(hashApiKey(apiKey)),
        (e) => e === undefined,
        5000,
      );

      // Who is connected through the pooler: the app's pool only. The LISTEN session and pg-boss's
      // sessions are PostgreSQL's own, not the pooler's server connections.
      const viaPooler = new Set((await bouncer.show("servers")).map((s) => Number(s.remote_pid)));
      const listening = await direct<
        { pid: number }[]
      >`select pid from pg_stat_activity where datname = ${database} and query ilike 'listen%'`;
      const jobs = await direct<
        { pid: number }[]
      >`select pid from pg_stat_activity where datname = ${database} and application_name like 'payments-jobs:%'`;
      expect(listening.length).toBeGreaterThan(0);
      expect(jobs.length).toBeGreaterThan(0);
      for (const { pid } of [...listening, ...jobs]) expect(viaPooler.has(pid)).toBe(false);
      const clients = (await bouncer.show("clients")).map((c) => String(c.application_name ?? ""));
      expect(clients.some((name) => name.startsWith("payments-jobs"))).toBe(false);
    } finally {
      await direct.end({ timeout: 1 });
    }
    expect(openPool().url).toBe(bouncer.url(database));
    await db().execute(sql`select 1`);
  }, 60_000);

  /**
   * Ms from the database taking connections again to the first API answer through a pooler whose way to
   * it was cut (every server connection dropped, new ones refused: a restart) for `cutMs`.
   */
  async function recoveryThroughPooler(o: { pgbouncerDefaults: boolean; cutMs: number }): Promise<number> {
    const proxy = await startTcpProxy({ host: serverUrl.hostname, port: Number(serverUrl.port || 5432) });
    const cutOff = await startPgbouncer({
      server: {
        host: "127.0.0.1",
        port: proxy.port,
        user: decodeURIComponent(serverUrl.username),
        password: decodeURIComponent(serverUrl.password) || undefined,
      },
      poolMode: "transaction",
      poolSize: 2,
      pgbouncerDefaults: o.pgbouncerDefaults,
    });
    try {
      // What PgBouncer runs with, read back: a value it could not parse would leave its default.
      const config = await cutOff.show("config");
      const retry = config.find((c) => c.key === "server_login_retry");
      expect(Number(retry?.value)).toBe(o.pgbouncerDefaults ? 15 : PGBOUNCER_SETTINGS.server_login_retry);
      await switchToPooler({}, cutOff);
      const { apiKey } = await seedMerchant();
      expect((await api("GET", "/api/v1/account", { apiKey })).status).toBe(200);
      proxy.cut();
      // Requests meanwhile: the pooler's server logins fail, and it waits server_login_retry to try again.
      for (const until = Date.now() + o.cutMs; Date.now() < until; await new Promise((r) => setTimeout(r, 200)))
        expect((await api("GET", "/api/v1/account", { apiKey })).status).toBe(503);
      proxy.restore();
      const backAt = performance.now();
      for (;;) {
        const res = await api("GET", "/api/v1/account", { apiKey });
        if (res.status === 200) return Math.round(performance.now() - backAt);
        expect(res.status, JSON.stringify(res.body)).toBe(503);
        if (performance.now() - backAt > 30_000) throw new Error("no answer through the pooler 30 s after the restart");
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await closeDb();
      await cutOff.stop();
      await proxy.close();
    }
  }

  it("recovers within 2 s of a database restart with the settings the app needs (server_login_retry = 0.5), not after PgBouncer's 15 s", async () => {
    const withDefaults = await recoveryThroughPooler({ pgbouncerDefaults: true, cutMs: 2000 });
    const withSettings = await recoveryThroughPooler({ pgbouncerDefaults: false, cutMs: 2000 });
    console.log(
      `through pgbouncer after a 2 s outage: first answer ${withSettings} ms after the database returned with server_login_retry = ${PGBOUNCER_SETTINGS.server_login_retry}, ${withDefaults} ms with PgBouncer's defaults`,
    );
    expect(withSettings).toBeLessThanOrEqual(2000);
    expect(withDefaults, "the control: PgBouncer's default server_login_retry is 15 s").toBeGreaterThan(3000);
  }, 90_000);

  it("warns when the pooler's sessions have no deadlines of their own", async () => {
    const admin = postgres(directUrl, { max: 1, onnotice: () => {} });
    // Settings reach new sessions: the pooler's server connections are ended, so it opens new ones.
    const reconnectPooler = () =>
      admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${database} and pid <> pg_backend_pid()`;
    await admin.unsafe(`alter database "${database}" set statement_timeout = 0`);
    await reconnectPooler();
    try {
      await switchToPooler();
      // A server connection the pooler was opening when its sessions were ended fails its client's
      // first statement ("invalid server parameter"); the check is about the sessions that follow.
      await waitFor(
        "a statement through the pooler",
        () =>
          db()
            .execute(sql`select 1`)
            .then(
              () => true,
              () => false,
            ),
        (ok) => ok,
        15_000,
        { everyMs: 100 },
      );
      const logs = captureLogs();
      expect(await checkPooledDeadlines()).toEqual({ statementTimeout: "0", lockTimeout: "5s" });
      expect(logs.join("")).toMatch(/the pooler's sessions have no statement_timeout or lock_timeout/);
    } finally {
      await admin.unsafe(`alter database "${database}" set statement_timeout = '30s'`);
      await reconnectPooler();
      await admin.end();
    }
  }, 30_000);
});

if (!bin) {
  describe("behind PgBouncer in transaction mode", () => {
    it.skip("skipped: pgbouncer is not installed (apt-get install -y pgbouncer; CI installs it in .ci/run)", () => {});
  });
}
