import { randomUUID } from "node:crypto";
import postgres from "postgres";
import { afterEach, describe, expect, it } from "vitest";
import { closeDb, connectionOptions, POOLED_ANSWER_MARGIN_MS } from "@/db";
import { resetEnvForTests } from "@/lib/env";
import { api, seedMerchant } from "./helpers";
import { findPgbouncer, startPgbouncer } from "./support/pgbouncer";
import { startSwallowingProxy } from "./support/swallowing-proxy";
import { saveEnv } from "./support/env";
import { testDatabaseUrl } from "./support/database";

// Behind a pooler an answer can be lost for good: PgBouncer 1.18 in transaction mode hands its server
// connection back at the first ReadyForQuery and drops what that server says next ("got packet '1'
// from server when not linked"), so a statement pipelined behind another was never answered, and the
// postgres.js connection it was on waited for ever with its pool slot. The pooled connections send one
// statement at a time (max_pipeline 0), and one whose answer does not come anyway is destroyed after
// answer_timeout (patches/postgres+3.4.9.patch) and replaced (docs/operations.md).

const savedEnv = saveEnv();
const bin = findPgbouncer();

afterEach(async () => {
  savedEnv.restore();
  await closeDb();
});

function server() {
  const url = new URL(testDatabaseUrl());
  return { url, host: url.hostname, port: Number(url.port || 5432), database: url.pathname.slice(1) };
}

const urlThrough = (port: number) => {
  const { url } = server();
  const through = new URL(url);
  through.host = `127.0.0.1:${port}`;
  return through.toString();
};

/** Whether `p` is still unsettled `ms` from now. */
const pendingAfter = (p: Promise<unknown>, ms: number) =>
  Promise.race([
    p.then(
      () => false,
      () => false,
    ),
    new Promise<boolean>((r) => setTimeout(() => r(true), ms)),
  ]);

describe("a pooled connection whose answer never comes", () => {
  it("pooled connections pipeline nothing and bound a missing answer; direct ones neither", () => {
    const pooled = connectionOptions("postgres://x@h/d", { applicationName: "t", pooled: true });
    expect(pooled.max_pipeline).toBe(0);
    expect(pooled.answer_timeout).toBe(30_000 + POOLED_ANSWER_MARGIN_MS);
    const direct = connectionOptions("postgres://x@h/d", { applicationName: "t", pooled: false });
    expect(direct.max_pipeline).toBeUndefined();
    expect(direct.answer_timeout).toBeUndefined();
  });

  it("is destroyed after answer_timeout and the next query runs on a new one; without the bound it waits for ever", async () => {
    const proxy = await startSwallowingProxy(server());
    const url = urlThrough(proxy.port);
    const options = connectionOptions(url, { applicationName: "answers-test", pooled: true });
    try {
      // The control: the driver without the bound.
      const unbounded = postgres(url, { ...options, answer_timeout: null, max: 1 });
      await unbounded`select ${1}::int as n`;
      proxy.swallowNextParse();
      const lost = unbounded`select ${2}::int as n`;
      lost.catch(() => {});
      expect(await pendingAfter(lost, 1500), "without answer_timeout the query should still wait").toBe(true);
      await unbounded.end({ timeout: 0 });

      const bounded = postgres(url, { ...options, answer_timeout: 500, max: 1 });
      const [{ pid }] = await bounded<{ pid: number }[]>`select pg_backend_pid() as pid, ${1}::int as n`;
      // Idle longer than the bound with nothing outstanding: the connection is kept.
      await new Promise((r) => setTimeout(r, 800));
      const [again] = await bounded<{ pid: number }[]>`select pg_backend_pid() as pid, ${1}::int as n`;
      expect(again.pid, "an idle connection is not ended by the bound").toBe(pid);
      const opened = proxy.connections();

      proxy.swallowNextParse();
      const t0 = performance.now();
      const err = await bounded`select ${3}::int as n`.then(
        () => null,
        (e: { code?: string }) => e,
      );
      const ms = Math.round(performance.now() - t0);
      expect(err?.code).toBe("ANSWER_TIMEOUT");
      expect(ms).toBeGreaterThanOrEqual(500);
      expect(ms).toBeLessThan(3000);
      // The pool's one slot is whole again: a new connection, answering.
      const [after] = await bounded<{ pid: number; n: number }[]>`select pg_backend_pid() as pid, ${4}::int as n`;
      expect(after.n).toBe(4);
      expect(after.pid).not.toBe(pid);
      expect(proxy.connections()).toBe(opened + 1);
      expect(proxy.swallowed()).toBe(2);
      await bounded.end({ timeout: 1 });
      console.log(
        `a swallowed answer: ANSWER_TIMEOUT after ${ms} ms (answer_timeout 500), the next query on a new connection`,
      );
    } finally {
      await proxy.close();
    }
  }, 30_000);

  it("through the app (DB_POOLER=transaction, one pool connection): that request is a 503 at its deadline, and requests succeed again once the connection is replaced", async () => {
    const proxy = await startSwallowingProxy(server());
    try {
      // DB_STATEMENT_TIMEOUT_MS 1000: the bound is 1000 + POOLED_ANSWER_MARGIN_MS.
      const bound = 1000 + POOLED_ANSWER_MARGIN_MS;
      Object.assign(process.env, {
        DB_POOLER: "transaction",
        DATABASE_URL: urlThrough(proxy.port),
        DATABASE_DIRECT_URL: testDatabaseUrl(),
        DB_POOL_SIZE: "1",
        DB_STATEMENT_TIMEOUT_MS: "1000",
        DB_POOL_WAIT_MS: "5000",
        REQUEST_DEADLINE_MS: "2000",
      });
      resetEnvForTests();
      await closeDb();
      const { apiKey } = await seedMerchant();
      const order = () =>
        api("POST", "/api/v1/order/create/pix", {
          apiKey,
          body: { value: 10 },
          headers: { "idempotency-key": randomUUID() },
        });
      expect((await order()).status).toBe(200);
      const opened = proxy.connections();

      proxy.swallowNextParse();
      const t0 = performance.now();
      const lost = await order();
      const lostMs = Math.round(performance.now() - t0);
      expect(lost.status, JSON.stringify(lost.body)).toBe(503);
      expect(lostMs, "answered at its deadline, not left waiting").toBeLessThan(2000 + 1500);

      // Until the connection is replaced, requests wait for the one pool slot and are 503s; then 200s.
      const statuses: number[] = [];
      let firstOkMs: number | null = null;
      while (performance.now() - t0 < bound + 10_000) {
        const res = await order();
        statuses.push(res.status);
        if (res.status === 200) {
          firstOkMs = Math.round(performance.now() - t0);
          break;
        }
        expect(res.status, JSON.stringify(res.body)).toBe(503);
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(firstOkMs, `no 200 after the swallowed answer: ${statuses.join(",")}`).not.toBeNull();
      expect(firstOkMs!).toBeLessThan(bound + 4000);
      const next = await Promise.all(Array.from({ length: 5 }, () => order()));
      expect(next.map((r) => r.status)).toEqual(Array(5).fill(200));
      expect(proxy.swallowed()).toBe(1);
      expect(proxy.connections(), "the pool replaced its connection").toBeGreaterThan(opened);
      console.log(
        `through the app: the swallowed request a 503 after ${lostMs} ms (deadline 2000), the first 200 ${firstOkMs} ms after it (bound ${bound}), then 5 of 5 200`,
      );
    } finally {
      await closeDb();
      await proxy.close();
    }
  }, 60_000);
});

describe.skipIf(!bin)("statements pipelined through PgBouncer 1.18 in transaction mode", () => {
  it("lose their answers with the driver's defaults (the control), never with the pooled connections' options", async () => {
    const { host, port, database, url } = server();
    const bouncer = await startPgbouncer({
      server: {
        host,
        port,
        user: decodeURIComponent(url.username),
        password: decodeURIComponent(url.password) || undefined,
      },
      poolMode: "transaction",
      poolSize: 2,
    });
    const pairs = async (sql: postgres.Sql, rounds: number) => {
      let answered = 0;
      for (let i = 0; i < rounds; i++) {
        // One statement without parameters (sent whole, so the connection takes the next at once), one with.
        const both = Promise.all([sql.unsafe("select 1 as a"), sql`select ${i}::int as b`]);
        both.catch(() => {});
        // Far longer than a pair takes on a loaded machine: an answer this late is not coming.
        if (await pendingAfter(both, 5000)) return { answered, lost: true };
        answered++;
      }
      return { answered, lost: false };
    };
    try {
      const pooledUrl = bouncer.url(database);
      const naive = postgres(pooledUrl, { max: 1, prepare: false, onnotice: () => {} });
      // How soon an answer is lost depends on timing (the second statement must reach the server before
      // PgBouncer reads the first one's ReadyForQuery): as many pairs as that takes, up to 300.
      const broken = await pairs(naive, 300);
      await naive.end({ timeout: 0 });
      expect(broken.lost, "the control: a pipelined statement's answer should have been lost").toBe(true);
      expect(bouncer.logTail(10_000)).toMatch(/from server when not linked/);

      const app = postgres(pooledUrl, {
        ...connectionOptions(pooledUrl, { applicationName: "answers-test", pooled: true }),
        max: 1,
      });
      const fine = await pairs(app, 30);
      await app.end({ timeout: 1 });
      expect(fine).toEqual({ answered: 30, lost: false });
      console.log(
        `through pgbouncer: with the driver's defaults an answer was lost after ${broken.answered} pipelined pairs; the pooled connections' options answered 30 of 30`,
      );
    } finally {
      await bouncer.stop();
    }
  }, 60_000);
});
