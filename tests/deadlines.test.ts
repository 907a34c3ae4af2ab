import { eq, sql } from "drizzle-orm";
import postgres from "postgres";
import { afterEach, describe, expect, it } from "vitest";
import { closeDb, db } from "@/db";
import { withdrawals } from "@/db/schema";
import { resetEnvForTests } from "@/lib/env";
import { api, seedMerchant, specOf } from "./helpers";
import { startTcpProxy } from "./support/tcp-proxy";
import { balanceMatchesLedger } from "./support/ledger";
import { saveEnv } from "./support/env";
import { waitFor } from "./support/wait";
import { testDatabaseUrl } from "./support/database";

// Deadlines (docs/operations.md): no request waits on PostgreSQL, or on another's lock, without an
// end, and a client is told "not now, retry after" (503 with Retry-After, in the endpoint's own error
// body) rather than a 500 or an answer after minutes.

const savedEnv = saveEnv();

async function withEnv(vars: Record<string, string>) {
  Object.assign(process.env, vars);
  resetEnvForTests();
  // The pool's session settings (timeouts) are sent when it connects: a new pool for the new ones.
  await closeDb();
}

afterEach(async () => {
  savedEnv.restore();
  await closeDb();
});

/** A merchant, and the API loaded and connected (the first request in a test file loads every endpoint module). */
async function warmMerchant(balanceCentavos: number) {
  const seeded = await seedMerchant({ balanceCentavos });
  expect((await api("GET", "/api/v1/account", { apiKey: seeded.apiKey })).status).toBe(200);
  return seeded;
}

/** Another session holding the merchant's row, as a long transaction would. */
async function holdMerchantRow(merchantId: string, mode: "update" | "no key update" = "update") {
  const other = postgres(testDatabaseUrl(), { max: 1, onnotice: () => {} });
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const held = new Promise<void>((locked) => {
    void other.begin(async (tx) => {
      await tx`select id from merchants where id = ${merchantId} for ${tx.unsafe(mode)}`;
      locked();
      await released;
    });
  });
  await held;
  return {
    release: async () => {
      release();
      await other.end({ timeout: 1 });
    },
  };
}

describe("deadlines", () => {
  it("a lock held past DB_LOCK_TIMEOUT_MS: the withdrawal is a 503 with Retry-After in pix-out's error body, and nothing is debited", async () => {
    await withEnv({ DB_LOCK_TIMEOUT_MS: "300", REQUEST_DEADLINE_MS: "10000" });
    const { merchant, apiKey } = await warmMerchant(50_000);
    const lock = await holdMerchantRow(merchant.id);
    try {
      const started = performance.now();
      const res = await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value: 1000 } });
      expect(performance.now() - started).toBeLessThan(3000);
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("2");
      expect(specOf(res.body)).toEqual({
        message: expect.stringMatching(
          /^Service temporarily unavailable: the data it needs is locked by other work; retry in a few seconds/,
        ),
        error: { details: expect.stringMatching(/^Service temporarily unavailable/) },
      });
    } finally {
      await lock.release();
    }
    expect(await db().select().from(withdrawals).where(eq(withdrawals.merchantId, merchant.id))).toEqual([]);
    expect(await balanceMatchesLedger(merchant.id)).toBe(50_000);
  });

  it("a request past REQUEST_DEADLINE_MS is a 503; its work still commits once, and a retry with its Idempotency-Key gets that result", async () => {
    await withEnv({ DB_LOCK_TIMEOUT_MS: "5000", REQUEST_DEADLINE_MS: "300" });
    const { merchant, apiKey } = await warmMerchant(50_000);
    const lock = await holdMerchantRow(merchant.id);
    const headers = { "idempotency-key": `deadline-${merchant.id}` };
    let late: Awaited<ReturnType<typeof api>>;
    try {
      const started = performance.now();
      late = await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value: 700 }, headers });
      expect(performance.now() - started).toBeLessThan(2000);
    } finally {
      await lock.release();
    }
    expect(late.status).toBe(503);
    expect(late.headers.get("retry-after")).toBe("2");
    expect(late.body.message).toMatch(/did not finish within 300 ms and may still complete/);
    // The work goes on once the lock is released, and commits.
    for (
      let i = 0;
      i < 100 && (await db().select().from(withdrawals).where(eq(withdrawals.merchantId, merchant.id))).length === 0;
      i++
    )
      await new Promise((r) => setTimeout(r, 50));
    const made = await db().select().from(withdrawals).where(eq(withdrawals.merchantId, merchant.id));
    expect(made).toHaveLength(1);
    // The request stored its outcome under the key when it finished: the client's retry gets it, not a second withdrawal.
    let retry = await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value: 700 }, headers });
    for (let i = 0; i < 50 && retry.status === 409; i++) {
      await new Promise((r) => setTimeout(r, 50));
      retry = await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value: 700 }, headers });
    }
    expect(retry.status, JSON.stringify(retry.body)).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.body.id).toBe(made[0].id);
    expect(await db().select().from(withdrawals).where(eq(withdrawals.merchantId, merchant.id))).toHaveLength(1);
    expect(await balanceMatchesLedger(merchant.id)).toBe(50_000 - made[0].debitCentavos);
  });

  // FOR UPDATE holds the key's claim itself (its row refers to the merchant's), whose INSERT then
  // commits after the connection died; FOR NO KEY UPDATE lets the claim through and holds the
  // withdrawal's transaction, so it is the key's release that cannot reach the database.
  it.each([
    ["its claim", "update"],
    ["its withdrawal", "no key update"],
  ] as const)(
    "the database lost while %s waits: 503, and once it is back the client's retry with the same Idempotency-Key runs within 2 s (not a 409 for the lease)",
    async (_, mode) => {
      const direct = new URL(testDatabaseUrl());
      const proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
      try {
        const { merchant, apiKey } = await warmMerchant(50_000);
        const through = new URL(direct);
        through.port = String(proxy.port);
        await withEnv({
          DATABASE_URL: through.toString(),
          DB_CONNECT_TIMEOUT_SECONDS: "2",
          DB_LOCK_TIMEOUT_MS: "5000",
        });
        expect((await api("GET", "/api/v1/account", { apiKey })).status).toBe(200);
        const headers = { "idempotency-key": `blip-${merchant.id}` };
        // The withdrawal waits on the merchant's row while the network to the database goes down: its
        // transaction dies, and so does the release of its key.
        const lock = await holdMerchantRow(merchant.id, mode);
        const pending = api("POST", "/api/v1/order/pix-out", { apiKey, body: { value: 700 }, headers });
        await new Promise((r) => setTimeout(r, 400));
        proxy.cut();
        const lost = await pending;
        expect(lost.status, JSON.stringify(lost.body)).toBe(503);
        expect(lost.headers.get("retry-after")).toBe("2");
        await new Promise((r) => setTimeout(r, 500));
        proxy.restore();
        await lock.release();
        const back = performance.now();
        let retry = await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value: 700 }, headers });
        while (retry.status !== 201 && performance.now() - back < 5000) {
          await new Promise((r) => setTimeout(r, 100));
          retry = await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value: 700 }, headers });
        }
        const ms = performance.now() - back;
        console.log(`the retry ran ${Math.round(ms)} ms after the database came back`);
        expect(retry.status, JSON.stringify(retry.body)).toBe(201);
        expect(ms).toBeLessThan(2000);
        const made = await db().select().from(withdrawals).where(eq(withdrawals.merchantId, merchant.id));
        expect(made.map((w) => w.id)).toEqual([retry.body.id]);
        expect(await balanceMatchesLedger(merchant.id)).toBe(50_000 - made[0].debitCentavos);
      } finally {
        await proxy.close();
      }
    },
  );

  it("the database silent (a partition): once one request ran into its deadline the rest are answered 503 at once, and requests go through within 2 s of the network's return", async () => {
    const direct = new URL(testDatabaseUrl());
    const proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    try {
      const { merchant, apiKey } = await warmMerchant(50_000);
      const through = new URL(direct);
      through.port = String(proxy.port);
      await withEnv({ DATABASE_URL: through.toString(), DB_CONNECT_TIMEOUT_SECONDS: "2", REQUEST_DEADLINE_MS: "1500" });
      expect((await api("GET", "/api/v1/account", { apiKey })).status).toBe(200);
      proxy.partition();
      const first = await api("POST", "/api/v1/order/pix-out", {
        apiKey,
        body: { value: 700 },
        headers: { "idempotency-key": `silent-${merchant.id}` },
      });
      expect(first.status).toBe(503);
      // The probe gives up on its connection after a second.
      await new Promise((r) => setTimeout(r, 1500));
      const started = performance.now();
      const fast = await Promise.all(Array.from({ length: 8 }, () => api("GET", "/api/v1/account", { apiKey })));
      const fastMs = performance.now() - started;
      expect(fast.map((r) => r.status)).toEqual(Array(8).fill(503));
      expect(fast[0].headers.get("retry-after")).toBe("2");
      expect(fast[0].body.message).toMatch(/^Service temporarily unavailable: the database cannot be reached/);
      // Short of the 1,500 ms deadline each would have waited out had the first timeout taught nothing.
      expect(fastMs).toBeLessThan(1000);
      proxy.restore();
      const back = performance.now();
      let res = await api("GET", "/api/v1/account", { apiKey });
      while (res.status !== 200 && performance.now() - back < 5000) {
        await new Promise((r) => setTimeout(r, 50));
        res = await api("GET", "/api/v1/account", { apiKey });
      }
      const ms = performance.now() - back;
      console.log(
        `8 requests refused in ${Math.round(fastMs)} ms during the partition; first 200 ${Math.round(ms)} ms after it ended`,
      );
      expect(res.status).toBe(200);
      expect(ms).toBeLessThan(2000);
      // The withdrawal that ran into its deadline went on once the network returned, once.
      const { value: made } = await waitFor(
        "the withdrawal",
        () => db().select().from(withdrawals).where(eq(withdrawals.merchantId, merchant.id)),
        (rows) => rows.length > 0,
      );
      expect(made).toHaveLength(1);
      expect(await balanceMatchesLedger(merchant.id)).toBe(50_000 - made[0].debitCentavos);
    } finally {
      await proxy.close();
    }
  });

  it("the database unreachable: 503 with Retry-After within DB_CONNECT_TIMEOUT_SECONDS, never a 500", async () => {
    const { apiKey } = await warmMerchant(0);
    // A port nothing listens on.
    await withEnv({ DATABASE_URL: "postgres://postgres@127.0.0.1:1/nowhere", DB_CONNECT_TIMEOUT_SECONDS: "2" });
    const started = performance.now();
    const res = await api("GET", "/api/v1/account", { apiKey });
    expect(performance.now() - started).toBeLessThan(5000);
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("2");
    expect(res.body.message).toMatch(/^Service temporarily unavailable: the database cannot be reached/);
  });

  it("a query waits at most DB_POOL_WAIT_MS for a pool connection: a 503, not a backlog run later", async () => {
    await withEnv({ DB_POOL_SIZE: "1", DB_POOL_WAIT_MS: "300", REQUEST_DEADLINE_MS: "10000" });
    const { apiKey } = await seedMerchant({ balanceCentavos: 0 });
    // Once the circuit an earlier test opened has closed.
    await waitFor(
      "the API to answer",
      () => api("GET", "/api/v1/account", { apiKey }),
      (r) => r.status === 200,
    );
    // The pool's one connection, taken by a transaction that waits.
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let taken!: () => void;
    const isTaken = new Promise<void>((r) => (taken = r));
    const holding = db().transaction(async (tx) => {
      await tx.execute(sql`select 1`);
      taken();
      await released;
    });
    await isTaken;
    try {
      const started = performance.now();
      const res = await api("GET", "/api/v1/account", { apiKey });
      const ms = performance.now() - started;
      expect(res.status, JSON.stringify(res.body)).toBe(503);
      expect(res.headers.get("retry-after")).toBe("2");
      expect(res.body.message).toMatch(/^Service temporarily unavailable: the database has no free connection/);
      expect(ms).toBeGreaterThanOrEqual(250);
      expect(ms).toBeLessThan(3000);
    } finally {
      release();
      await holding;
    }
    expect((await api("GET", "/api/v1/account", { apiKey })).status).toBe(200);
  });

  it("a pool session gone silent inside a transaction is ended by PostgreSQL after DB_IDLE_IN_TRANSACTION_TIMEOUT_MS, and its row locks with it", async () => {
    const direct = new URL(testDatabaseUrl());
    const proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    const other = postgres(direct.toString(), { max: 1, onnotice: () => {} });
    try {
      const through = new URL(direct);
      through.host = `127.0.0.1:${proxy.port}`;
      await withEnv({ DATABASE_URL: through.toString(), DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: "1000" });
      const { merchant } = await seedMerchant({ balanceCentavos: 0 });
      const [settings] = await db().execute<Record<string, string>>(
        sql`select current_setting('idle_in_transaction_session_timeout') as idle, current_setting('tcp_keepalives_idle') as ka_idle, current_setting('tcp_keepalives_interval') as ka_interval, current_setting('tcp_keepalives_count') as ka_count`,
      );
      expect(settings).toEqual({ idle: "1s", ka_idle: "5", ka_interval: "2", ka_count: "3" });
      // A transaction holding the merchant's row when the network between the pool and PostgreSQL goes silent.
      let locked!: () => void;
      const isLocked = new Promise<void>((r) => (locked = r));
      const stalled = db()
        .transaction(async (tx) => {
          await tx.execute(sql`select id from merchants where id = ${merchant.id} for update`);
          locked();
          proxy.partition();
          await tx.execute(sql`select 1`);
        })
        .catch((err: unknown) => err);
      await isLocked;
      const started = performance.now();
      await other`set lock_timeout = '10s'`;
      await other`select id from merchants where id = ${merchant.id} for update`;
      const ms = performance.now() - started;
      expect(ms).toBeLessThan(4000);
      console.log(`the silent session's row lock was released ${Math.round(ms)} ms after it went silent`);
      proxy.restore();
      expect(await stalled).toBeInstanceOf(Error);
    } finally {
      proxy.restore();
      await other.end({ timeout: 1 });
      await proxy.close();
    }
  });
});
