import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { closeDb, openPool } from "@/db";
import { runMigrations } from "@/db/migrate";
import { probeReplica, readDb, replicaLagBoundMs } from "@/db/replica";
import { exportQuery, exportStream } from "@/lib/dashboard/server/exports";
import { resetEnvForTests } from "@/lib/env";
import { translator } from "@/lib/i18n";
import { api, seedMerchant } from "./helpers";
import { findPostgresBinaries, startCluster, type PgCluster } from "./support/pg-cluster";
import { saveEnv } from "./support/env";

// Heavy reads on a streaming standby (DATABASE_REPLICA_URL, docs/operations.md "Read replica"), with
// a real one: lists and exports go to it while it is known to be within REPLICA_MAX_LAG_SECONDS, to
// the primary once it falls further behind (replay paused here) or cannot answer, and back to it when
// it catches up; balances and money moves read the primary whatever the standby says.

const binaries = findPostgresBinaries();
const savedEnv = saveEnv();
const MAX_LAG_SECONDS = 3;
let cluster: PgCluster;

async function useReplica(replicaUrl: string) {
  await closeDb();
  Object.assign(process.env, {
    DATABASE_URL: cluster.primary.url("payments"),
    DATABASE_REPLICA_URL: replicaUrl,
    REPLICA_MAX_LAG_SECONDS: String(MAX_LAG_SECONDS),
  });
  resetEnvForTests();
}

const onReplica = () => readDb() === openPool().replica?.db;
const orderIds = async (apiKey: string) =>
  ((await api("GET", "/api/v1/orders?limit=100", { apiKey })).body.orders as { id: string }[]).map((o) => o.id);
const exportedOrderIds = async (merchantId: string) => {
  const csv = await new Response(exportStream("orders", merchantId, exportQuery.parse({}), translator("en"))).text();
  return csv.trim().split("\n").length - 1;
};

async function createOrder(apiKey: string): Promise<string> {
  const res = await api("POST", "/api/v1/order/create/pix", {
    apiKey,
    body: { value: 25 },
    headers: { "idempotency-key": randomUUID() },
  });
  expect(res.status).toBe(200);
  return res.body.pixOrder._id as string;
}

describe.skipIf(!binaries)("heavy reads on a read replica", () => {
  beforeAll(async () => {
    cluster = await startCluster({ standbys: 1, databases: ["payments"] });
    await runMigrations(cluster.primary.url("payments"));
    await cluster.waitForReplay(cluster.standbys[0]);
  }, 120_000);

  afterEach(async () => {
    await cluster.standbys[0].query("select pg_wal_replay_resume()").catch(() => {});
    savedEnv.restore();
    await closeDb();
  });

  afterAll(async () => {
    await cluster?.close();
  }, 60_000);

  it("lists and exports read the standby while it is close enough, the primary once it falls behind, and the standby again once it catches up; money reads the primary", async () => {
    const [standby] = cluster.standbys;
    await useReplica(standby.url("payments"));
    const { merchant, apiKey } = await seedMerchant();
    const first = await createOrder(apiKey);
    await cluster.waitForReplay(standby);
    // Nothing is known before the first probe: the primary.
    expect(onReplica()).toBe(false);
    await probeReplica();
    expect(replicaLagBoundMs()).toBeLessThan(1000);
    expect(onReplica()).toBe(true);
    expect(await orderIds(apiKey)).toEqual([first]);

    // The standby stops replaying; a new order and a payment land on the primary only.
    await standby.query("select pg_wal_replay_pause()");
    const second = await createOrder(apiKey);
    expect((await api("POST", `/api/v1/sandbox/orders/${second}/pay`, { apiKey })).status).toBe(200);
    await probeReplica();
    // Within the bound the standby still serves the list: without the newest order.
    expect(onReplica()).toBe(true);
    expect(await orderIds(apiKey)).toEqual([first]);
    expect(await exportedOrderIds(merchant.id)).toBe(1);
    // The balance is a money read: the primary's, with the payment the standby lacks.
    const account = await api("GET", "/api/v1/account", { apiKey });
    expect(account.body.merchant.balance).toBeGreaterThan(0);

    // Past the bound (no probe can advance it while replay is paused): the primary.
    await new Promise((r) => setTimeout(r, MAX_LAG_SECONDS * 1000 + 200));
    await probeReplica();
    expect(replicaLagBoundMs()).toBeGreaterThan(MAX_LAG_SECONDS * 1000);
    expect(onReplica()).toBe(false);
    expect((await orderIds(apiKey)).sort()).toEqual([first, second].sort());
    expect(await exportedOrderIds(merchant.id)).toBe(2);
    expect((await api("GET", "/api/v1/withdrawals", { apiKey })).status).toBe(200);

    // Replay resumes: the standby again, now with both.
    await standby.query("select pg_wal_replay_resume()");
    await cluster.waitForReplay(standby);
    await probeReplica();
    await probeReplica();
    expect(onReplica()).toBe(true);
    expect((await orderIds(apiKey)).sort()).toEqual([first, second].sort());
  }, 90_000);

  it("a standby that cannot answer: the read runs on the primary at once, and the standby is used again once it is back", async () => {
    const [standby] = cluster.standbys;
    await useReplica(standby.url("payments"));
    const { apiKey } = await seedMerchant();
    const order = await createOrder(apiKey);
    await cluster.waitForReplay(standby);
    await probeReplica();
    expect(onReplica()).toBe(true);

    await standby.stop("fast");
    try {
      // Chosen as the standby (the last probe was fine), refused by it, answered by the primary.
      const res = await api("GET", "/api/v1/orders", { apiKey });
      expect(res.status).toBe(200);
      expect(res.body.orders.map((o: { id: string }) => o.id)).toEqual([order]);
      expect(onReplica()).toBe(false);
      await probeReplica();
      expect(onReplica()).toBe(false);
    } finally {
      await standby.start();
    }
    await cluster.waitForStreaming(1);
    await cluster.waitForReplay(standby);
    let back = false;
    for (const until = Date.now() + 10_000; !back && Date.now() < until; await new Promise((r) => setTimeout(r, 200))) {
      await probeReplica();
      back = onReplica();
    }
    expect(back).toBe(true);
  }, 90_000);

  it("a DATABASE_REPLICA_URL that is not a standby is never used", async () => {
    await useReplica(cluster.primary.url("payments"));
    await probeReplica();
    expect(replicaLagBoundMs()).toBeNull();
    expect(onReplica()).toBe(false);
  }, 30_000);
});

if (!binaries) {
  describe("heavy reads on a read replica", () => {
    it.skip("skipped: no PostgreSQL server binaries (initdb, pg_ctl, postgres); set PG_BIN_DIR or install postgresql", () => {});
  });
}
