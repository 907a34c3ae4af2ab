import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reconnectDelaySeconds } from "@/db";
import { testDatabaseUrl } from "./support/database";
import { startTcpProxy } from "./support/tcp-proxy";

// The pool after its connections die under load (docs/operations.md): PostgreSQL restarting, a
// failover, pg_terminate_backend. postgres.js 3.4.9 cleared the pending-write timer on close without
// resetting it or the bytes it held, so the next connection in that slot sent stale bytes before its
// startup packet (PostgreSQL: "invalid length of startup packet") or never flushed at all, and every
// query on the slot then waited out connect_timeout (30 s), again and again (patches/postgres+3.4.9.patch).
// And a query handed to a connection after its socket's error event was never rejected: it hung for
// good. Here: 32 clients keep a pool of 5 busy, every backend of the pool is terminated, repeatedly;
// every query must settle, and then every slot must answer within a second.
// Reserved connections (the job runner's `BEGIN …` scripts, lib/jobs/postgres-js-db.ts) lost one slot for good
// per reservation the outage touched: a reserved connection that closed went back to the pool as open when
// released, and a reserve refused while connecting stayed queued and swallowed the next connection that
// opened. After a few outages the job runner's pool of 4 had none left, so every job send (a refund's, a
// withdrawal's, after its commit) waited for ever, its request holding its Idempotency-Key meanwhile.

const url = () => testDatabaseUrl();
const APP = `reconnect-test-${process.pid}`;

let sql: postgres.Sql;
let admin: postgres.Sql;

beforeAll(() => {
  // The app's pool settings (db/index.ts), the driver's 30 s connect_timeout kept: a stuck slot shows as a 30 s wait.
  sql = postgres(url(), {
    max: 5,
    connect_timeout: 30,
    backoff: reconnectDelaySeconds,
    onnotice: () => {},
    connection: { application_name: APP },
  });
  admin = postgres(url(), { max: 1, onnotice: () => {} });
});

afterAll(async () => {
  await sql.end({ timeout: 1 });
  await admin.end({ timeout: 1 });
});

/** Kills every backend of the pool under test. */
async function terminatePool(): Promise<number> {
  const rows = await admin<
    { ok: boolean }[]
  >`select pg_terminate_backend(pid) as ok from pg_stat_activity where application_name = ${APP}`;
  return rows.length;
}

describe("the pool after its connections are killed under load", () => {
  it("answers on every slot within a second once the server takes connections again", async () => {
    let stop = false;
    let failures = 0;
    // Small statements, many in flight: writes are batched behind setImmediate, so a kill often lands
    // while one is buffered.
    const load = Array.from({ length: 32 }, async (_, i) => {
      while (!stop) {
        try {
          await sql`select ${i}::int as n, pg_sleep(0.002)`;
        } catch {
          failures++;
        }
      }
    });
    let killed = 0;
    for (let round = 0; round < 8; round++) {
      await new Promise((r) => setTimeout(r, 60));
      killed += await terminatePool();
    }
    stop = true;
    const draining = performance.now();
    await Promise.race([
      Promise.all(load),
      new Promise((_, reject) => setTimeout(() => reject(new Error("a query never settled")), 5000)),
    ]);
    const drainMs = performance.now() - draining;
    expect(killed).toBeGreaterThan(0);

    // Every slot, at once: a stuck slot would hold its query until connect_timeout (30 s).
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        Promise.race([
          sql`select ${i}::int as n`.then((r) => r[0].n),
          new Promise((_, reject) => setTimeout(() => reject(new Error("slot stuck")), 1000)),
        ]),
      ),
    );
    const ms = performance.now() - started;
    console.log(
      `${killed} backends killed under load (${failures} queries failed then, the rest settled ${Math.round(drainMs)} ms after the last kill); 16 queries on 5 slots answered in ${Math.round(ms)} ms`,
    );
    expect(answers).toEqual(Array.from({ length: 16 }, (_, i) => i));
    // And keep answering: each slot twice more.
    for (let i = 0; i < 2; i++)
      expect((await Promise.all(Array.from({ length: 5 }, () => sql`select 1 as one`))).length).toBe(5);
  });
});

describe("reserved connections after the network to the server is cut", () => {
  it("keeps every slot: reservations and plain queries answer after each of several outages", async () => {
    const through = new URL(url());
    const proxy = await startTcpProxy({ host: through.hostname, port: Number(through.port || 5432) });
    through.host = `127.0.0.1:${proxy.port}`;
    // As the job runner's client: 4 connections, used by reservations.
    const jobs = postgres(through.toString(), {
      max: 4,
      connect_timeout: 2,
      backoff: reconnectDelaySeconds,
      onnotice: () => {},
    });
    const reserveAndQuery = async () => {
      const r = await jobs.reserve();
      try {
        await r`select 1 as one`;
      } finally {
        r.release();
      }
    };
    const within = <T>(p: Promise<T>, ms: number) =>
      Promise.race([p.then(() => "answered"), new Promise<string>((r) => setTimeout(() => r("hung"), ms))]);
    try {
      await reserveAndQuery();
      for (let round = 0; round < 3; round++) {
        // In use when the network goes (reservations on their connections), and asked for while it is gone.
        const inUse = Array.from({ length: 4 }, () => reserveAndQuery().catch(() => {}));
        proxy.cut();
        const refused = await Promise.all(
          Array.from({ length: 6 }, () =>
            reserveAndQuery().then(
              () => "ok",
              () => "refused",
            ),
          ),
        );
        await Promise.all(inUse);
        proxy.restore();
        const after = await Promise.all([
          ...Array.from({ length: 8 }, () => within(reserveAndQuery(), 5000)),
          within(jobs`select 1 as one`, 5000),
        ]);
        expect({ round, refused: refused.includes("refused"), after }).toEqual({
          round,
          refused: true,
          after: Array.from({ length: 9 }, () => "answered"),
        });
      }
    } finally {
      await jobs.end({ timeout: 1 });
      await proxy.close();
    }
  });
});

describe("a session that refuses writes where writes were asked for", () => {
  it("is ended after its first refused write, so the next write runs on a session that takes writes", async () => {
    // One connection, as a pool of the app's with target_session_attrs=read-write: a standby reached
    // under a race, or a server turned read-only, is this session refusing every write it is given.
    const pool = postgres(url(), { max: 1, target_session_attrs: "read-write", onnotice: () => {} });
    try {
      await pool`set default_transaction_read_only = on`;
      await expect(pool`create temp table refused_here (a int)`).rejects.toMatchObject({ code: "25006" });
      await pool`create temp table taken_now (a int)`;
      expect((await pool<{ ro: string }[]>`show transaction_read_only`)[0].ro ?? "").not.toBe("on");
    } finally {
      await pool.end({ timeout: 1 });
    }
  });
});
