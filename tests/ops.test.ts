import fs from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db";
import { resetEnvForTests } from "@/lib/env";
import { recordEvent } from "@/lib/events/outbox";
import type { OpsOptions } from "@/lib/ops/endpoints";
import { markDraining, NEWEST_MIGRATION } from "@/lib/ops/readiness";
import { createAppServer } from "@/lib/server/http";
import { startWorker, stopWorker } from "@/lib/worker";
import { api, seedMerchant } from "./helpers";
import { startReceiver, type Receiver } from "./webhook-receiver";

// The operator's endpoints on the production server's own node:http server (lib/server/http.ts), with
// Next replaced by a stub: /healthz, /readyz against this run's database, an unreachable one and
// databases missing migrations, and /metrics with its token, counters and scrape-time gauges.

const TOKEN = "metrics-token-0123456789abcdefghijklmnopqrstuv";

type Server = { base: string; close: () => Promise<void> };
const servers: Server[] = [];
const clients: postgres.Sql[] = [];

async function serve(ops?: OpsOptions): Promise<Server> {
  const server = createAppServer({
    next: async (_req, res) => void res.writeHead(418).end("next"),
    fastPath: true,
    baseUrl: "http://127.0.0.1",
    proxyHops: 0,
    ops,
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const s = {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
  servers.push(s);
  return s;
}

async function get(s: Server, p: string, headers: Record<string, string> = {}, method = "GET") {
  const res = await fetch(s.base + p, { method, headers });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Prometheus text
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** One sample of the Prometheus text: the line of `name` whose labels are exactly `labels`. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split("\n")) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (
      Object.keys(got).length === Object.keys(labels).length &&
      Object.entries(labels).every(([k, v]) => got[k] === v)
    )
      return Number(m[3]);
  }
  return undefined;
}

function setEnv(vars: Record<string, string | undefined>) {
  for (const [k, v] of Object.entries(vars)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  resetEnvForTests();
}

let main: Server;
let emptyDbUrl: string;
const emptyDb = `payments_ops_empty_${process.pid}_${Date.now()}`;

beforeAll(async () => {
  main = await serve();
  const admin = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${emptyDb}"`);
  await admin.end();
  const u = new URL(process.env.DATABASE_URL!);
  u.pathname = `/${emptyDb}`;
  emptyDbUrl = u.toString();
});

afterAll(async () => {
  setEnv({ METRICS_TOKEN: undefined, METRICS_TOKEN_FILE: undefined });
  await Promise.all(servers.map((s) => s.close()));
  await Promise.all(clients.map((c) => c.end({ timeout: 1 })));
  const admin = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists "${emptyDb}" with (force)`);
  await admin.end();
});

function client(url: string): postgres.Sql {
  const c = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 2 });
  clients.push(c);
  return c;
}

describe("GET /healthz", () => {
  it("→ 200 { status: ok } even where the database is unreachable: it checks only that the process serves", async () => {
    const down = await serve({
      readiness: { sql: client("postgres://postgres@127.0.0.1:1/none"), jobsExpected: false },
    });
    const res = await get(down, "/healthz");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok" });
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect((await get(down, "/readyz")).status).toBe(503);
  });

  it("→ 405 with Allow for another method; a query string is ignored; other paths are not ops paths", async () => {
    const res = await get(main, "/healthz", {}, "POST");
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD");
    expect((await get(main, "/healthz?probe=1")).status).toBe(200);
    expect((await get(main, "/healthz/")).status).toBe(418);
  });
});

describe("GET /readyz", () => {
  it("→ 503 naming the database when it is unreachable", async () => {
    const down = await serve({
      readiness: { sql: client("postgres://postgres@127.0.0.1:1/none"), jobsExpected: false },
    });
    const res = await get(down, "/readyz");
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ status: "unavailable", failed: ["database", "migrations"] });
    expect(res.body.checks.database).toMatch(/^unreachable/);
    expect(res.body.checks).toMatchObject({ migrations: "unknown", jobs: "off", shutdown: "ok" });
    expect(res.body.message).toContain("database unreachable");
  });

  it("→ 503 naming the migrations on a database that has none applied", async () => {
    const s = await serve({ readiness: { sql: client(emptyDbUrl), jobsExpected: false } });
    const res = await get(s, "/readyz");
    expect(res.status).toBe(503);
    expect(res.body.failed).toEqual(["migrations"]);
    expect(res.body.checks).toMatchObject({
      database: "ok",
      migrations: `none applied; this build needs up to ${NEWEST_MIGRATION.tag}`,
    });
  });

  it("→ 503 when the newest migration of this build is missing, 200 when the database is as new or newer (a newer build rolling out)", async () => {
    const sql = client(emptyDbUrl);
    await sql.unsafe(`create schema if not exists drizzle;
      create table if not exists drizzle.__drizzle_migrations (id serial primary key, hash text not null, created_at bigint)`);
    await sql`insert into drizzle.__drizzle_migrations (hash, created_at) values ('older', ${NEWEST_MIGRATION.when - 1})`;
    const s = await serve({ readiness: { sql, jobsExpected: false } });
    const behind = await get(s, "/readyz");
    expect(behind.status).toBe(503);
    expect(behind.body.failed).toEqual(["migrations"]);
    expect(behind.body.checks.migrations).toContain(`behind: ${NEWEST_MIGRATION.tag} is not applied`);

    await sql`insert into drizzle.__drizzle_migrations (hash, created_at) values ('newer', ${NEWEST_MIGRATION.when + 1000})`;
    const ahead = await get(s, "/readyz");
    expect(ahead.status).toBe(200);
    expect(ahead.body).toEqual({
      status: "ready",
      checks: { database: "ok", migrations: "ok", jobs: "off", shutdown: "ok" },
    });
  });

  it("on this run's migrated database: 503 naming jobs while the runner this instance should run is stopped, 200 while it runs", async () => {
    const stopped = await get(main, "/readyz");
    expect(stopped.status).toBe(503);
    expect(stopped.body).toMatchObject({
      failed: ["jobs"],
      checks: { database: "ok", migrations: "ok", jobs: "not running" },
    });
    await startWorker();
    try {
      const running = await get(main, "/readyz");
      expect(running.status).toBe(200);
      expect(running.body.checks).toEqual({ database: "ok", migrations: "ok", jobs: "ok", shutdown: "ok" });
    } finally {
      await stopWorker();
    }
    expect((await get(main, "/readyz")).body.failed).toEqual(["jobs"]);
  });
});

describe("GET /metrics", () => {
  it("→ 404 while METRICS_TOKEN is unset", async () => {
    setEnv({ METRICS_TOKEN: undefined, METRICS_TOKEN_FILE: undefined });
    const res = await get(main, "/metrics", { authorization: `Bearer ${TOKEN}` });
    expect(res.status).toBe(404);
    expect(res.body.message).toContain("METRICS_TOKEN");
  });

  it("→ 401 without a token or with a wrong one, 200 with it (from the variable or from METRICS_TOKEN_FILE)", async () => {
    setEnv({ METRICS_TOKEN: TOKEN });
    for (const headers of [
      {} as Record<string, string>,
      { authorization: `Bearer ${TOKEN}x` },
      { authorization: `Bearer ${TOKEN.slice(0, -1)}` },
      { authorization: `Basic ${TOKEN}` },
    ]) {
      const res = await get(main, "/metrics", headers);
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toContain("Bearer");
      expect(res.text).not.toContain(TOKEN);
    }
    const ok = await get(main, "/metrics", { authorization: `Bearer ${TOKEN}` });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toContain("text/plain");
    expect(ok.text).toContain("# TYPE payments_http_request_duration_seconds histogram");
    // prom-client's process metrics come with it.
    expect(sample(ok.text, "process_cpu_user_seconds_total")).toBeGreaterThan(0);
    expect(ok.text).toContain("nodejs_eventloop_lag_seconds");

    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "metrics-token-")), "token");
    const fromFile = "file-token-0123456789abcdefghijklmnopqrstuvwxyz";
    fs.writeFileSync(file, `${fromFile}\n`);
    setEnv({ METRICS_TOKEN: undefined, METRICS_TOKEN_FILE: file });
    expect((await get(main, "/metrics", { authorization: `Bearer ${fromFile}` })).status).toBe(200);
    expect((await get(main, "/metrics", { authorization: `Bearer ${TOKEN}` })).status).toBe(401);
    setEnv({ METRICS_TOKEN: TOKEN, METRICS_TOKEN_FILE: undefined });
  });

  it("counts requests by route template and status, never by raw path; the latency histogram moves with them", async () => {
    setEnv({ METRICS_TOKEN: TOKEN });
    const auth = { authorization: `Bearer ${TOKEN}` };
    const { apiKey } = await seedMerchant();
    const labels = { method: "GET", route: "/api/v1/order/{id}", status: "404" };
    const before = await get(main, "/metrics", auth);
    const count0 = sample(before.text, "payments_http_request_duration_seconds_count", labels) ?? 0;
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    for (const id of ids)
      expect((await get(main, `/api/v1/order/${id}`, { authorization: `Bearer ${apiKey}` })).status).toBe(404);
    expect((await get(main, "/api/v1/no/such/path")).status).toBe(404);
    expect((await get(main, "/dashboard")).status).toBe(418);

    const after = await get(main, "/metrics", auth);
    expect(sample(after.text, "payments_http_request_duration_seconds_count", labels)).toBe(count0 + 3);
    expect(sample(after.text, "payments_http_request_duration_seconds_bucket", { ...labels, le: "+Inf" })).toBe(
      count0 + 3,
    );
    expect(sample(after.text, "payments_http_request_duration_seconds_sum", labels)).toBeGreaterThan(0);
    expect(
      sample(after.text, "payments_http_request_duration_seconds_count", {
        method: "GET",
        route: "unmatched",
        status: "404",
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(after.text, "payments_http_request_duration_seconds_count", {
        method: "GET",
        route: "next",
        status: "418",
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(after.text, "payments_http_request_duration_seconds_count", {
        method: "GET",
        route: "/metrics",
        status: "200",
      }),
    ).toBeGreaterThanOrEqual(1);
    for (const id of ids) expect(after.text).not.toContain(id);
    expect(after.text).not.toContain("/no/such/path");
  });

  describe("with the background work running", () => {
    let rx: Receiver;
    beforeAll(async () => {
      setEnv({ METRICS_TOKEN: TOKEN });
      rx = await startReceiver();
    });
    afterAll(async () => {
      await stopWorker();
      await rx.close();
    });

    it("reports the webhook backlog, then the delivery's latency once the dispatcher sends it; the pool's connections and the job queues", async () => {
      const auth = { authorization: `Bearer ${TOKEN}` };
      const { merchant, apiKey } = await seedMerchant();
      expect((await api("POST", "/api/v1/webhooks", { apiKey, body: { url: rx.url } })).status).toBe(201);
      const before = (await get(main, "/metrics", auth)).text;
      const due0 = sample(before, "payments_webhook_backlog_deliveries", { state: "due" })!;
      expect(due0).toBeGreaterThanOrEqual(0);
      const delivered0 = sample(before, "payments_webhook_delivery_latency_seconds_count") ?? 0;
      const succeeded0 =
        sample(before, "payments_webhook_attempt_duration_seconds_count", { outcome: "succeeded" }) ?? 0;
      // No job runner here yet: the event waits, due.
      expect(sample(before, "payments_job_queue_jobs", { queue: "sweep", state: "ready" })).toBeUndefined();

      await db().transaction((tx) =>
        recordEvent(tx, {
          merchantId: merchant.id,
          type: "order.status_changed",
          subjectType: "order",
          subjectId: randomUUID(),
          data: { n: 1 },
        }),
      );
      await new Promise((r) => setTimeout(r, 50));
      const waiting = (await get(main, "/metrics", auth)).text;
      // Earlier files' retries may fall due meanwhile (nothing sends them here), never fewer.
      expect(sample(waiting, "payments_webhook_backlog_deliveries", { state: "due" })).toBeGreaterThanOrEqual(due0 + 1);
      expect(sample(waiting, "payments_webhook_backlog_oldest_due_seconds")).toBeGreaterThan(0);

      await startWorker();
      await rx.waitFor("the event", (r) => r.length === 1);
      let after = "";
      for (let i = 0; i < 100; i++) {
        after = (await get(main, "/metrics", auth)).text;
        if ((sample(after, "payments_webhook_delivery_latency_seconds_count") ?? 0) > delivered0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(sample(after, "payments_webhook_delivery_latency_seconds_count")).toBe(delivered0 + 1);
      expect(sample(after, "payments_webhook_attempt_duration_seconds_count", { outcome: "succeeded" })).toBe(
        succeeded0 + 1,
      );

      expect(sample(after, "payments_db_pool_max_connections")).toBeGreaterThan(0);
      // This scrape's own query is left out; the pool has answered requests, so it holds connections.
      const open = ["active", "idle", "idle in transaction"].map((state) =>
        sample(after, "payments_db_pool_connections", { state }),
      );
      expect(open.every((n) => n !== undefined)).toBe(true);
      expect(open.reduce((a, b) => a! + b!, 0)).toBeGreaterThan(0);
      // The job runner's queues, as pg-boss counts them.
      for (const state of ["ready", "deferred", "active", "failed"])
        expect(sample(after, "payments_job_queue_jobs", { queue: "sweep", state })).toBeGreaterThanOrEqual(0);
    });
  });
});

// Last in this file: draining cannot be undone, as in a real shutdown.
describe("once shutdown has begun (lib/server/shutdown.ts marks it)", () => {
  it("/readyz → 503 naming shutdown, /healthz still 200, and every answer closes its connection", async () => {
    const s = await serve({ readiness: { jobsExpected: false } });
    expect((await get(s, "/readyz")).status).toBe(200);
    markDraining();
    const res = await get(s, "/readyz");
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({
      failed: ["shutdown"],
      checks: { shutdown: "shutting down", database: "ok", migrations: "ok" },
    });
    expect(res.headers.get("connection")).toBe("close");
    const health = await get(s, "/healthz");
    expect(health.status).toBe(200);
    expect(health.headers.get("connection")).toBe("close");
  });
});
