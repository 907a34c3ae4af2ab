import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { closeDb, db, openPool } from "@/db";
import { runMigrations } from "@/db/migrate";
import { generateApiKey } from "@/lib/identity/api-keys/keys";
import { checkFailoverDurability, DeploymentRefused } from "@/lib/deployment/guards";
import { resetEnvForTests } from "@/lib/env";
import { databaseUnavailable } from "@/lib/http/unavailable";
import { jobQueue, startJobs, stopJobs, worker } from "@/lib/jobs/queue";
import { setLoggerForTests } from "@/lib/log";
import { api, captureLogs, seedMerchant } from "./helpers";
import { findPostgresBinaries, startCluster, type PgCluster } from "./support/pg-cluster";
import { saveEnv } from "./support/env";

// Failover (docs/operations.md, "Failover"), against a PostgreSQL primary and a streaming standby of
// this test's own: a DATABASE_URL listing both hosts follows the promoted standby, the pool, the job
// runner and migrations never write to a server in recovery (a request meets a 503 meanwhile), live
// mode refuses a database whose commits do not wait for a synchronous standby, and a commit whose wait
// for the standby is cut short by statement_timeout is reported.

const binaries = findPostgresBinaries();
const savedEnv = saveEnv();
let cluster: PgCluster;

async function useDatabase(vars: Record<string, string>) {
  await closeDb();
  Object.assign(process.env, vars);
  resetEnvForTests();
}

/** The port of the server the app's pool writes to. */
async function writtenTo(): Promise<number> {
  const [row] = await openPool().sql<{ port: number }[]>`select inet_server_port() as port`;
  return row.port;
}

async function until<T>(
  what: string,
  attempt: () => Promise<T>,
  timeoutMs: number,
): Promise<{ value: T; ms: number; failures: unknown[] }> {
  const started = Date.now();
  const failures: unknown[] = [];
  for (;;) {
    try {
      return { value: await attempt(), ms: Date.now() - started, failures };
    } catch (err) {
      failures.push(err);
      if (Date.now() - started > timeoutMs)
        throw new Error(`${what}: not within ${timeoutMs} ms (last: ${(err as Error).message})`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

describe.skipIf(!binaries)("failover with a multi-host DATABASE_URL", () => {
  beforeAll(async () => {
    cluster = await startCluster({ standbys: 1, databases: ["payments"] });
    // Migrations through the host list: the standby comes first and is passed over.
    await runMigrations(cluster.multiHostUrl("payments", {}, [cluster.standbys[0], cluster.primary]));
    await cluster.waitForReplay(cluster.standbys[0]);
  }, 120_000);

  afterEach(async () => {
    setLoggerForTests(undefined);
    await stopJobs(1000);
    savedEnv.restore();
    await closeDb();
  });

  afterAll(async () => {
    await cluster?.close();
  }, 60_000);

  it("refuses writes on a standby: a single-host URL at one is a 503, not a write that fails as a 500", async () => {
    const [standby] = cluster.standbys;
    await useDatabase({ DATABASE_URL: standby.url("payments") });
    const refused = await db()
      .execute(sql`select 1`)
      .catch((e: unknown) => e);
    expect((refused as { cause?: { code?: string } }).cause?.code).toBe("TARGET_SESSION_ATTRS_UNMET");
    expect(databaseUnavailable(refused)).toBe("no database server takes writes (a failover is under way)");
    // Through an endpoint: the endpoint's own error body, 503 with Retry-After.
    const res = await api("GET", "/api/v1/account", { apiKey: generateApiKey("sandbox").key });
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("2");
  }, 30_000);

  it("live mode refuses commits that do not wait for a synchronous standby, unless told the durability lies elsewhere; synchronous_commit=off always", async () => {
    await useDatabase({ DATABASE_URL: cluster.multiHostUrl("payments") });
    const refused = await checkFailoverDurability("live", true).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DeploymentRefused);
    expect((refused as Error).message).toMatch(
      /commits do not wait for a synchronous standby \(synchronous_commit=on, synchronous_standby_names=''\)/,
    );
    // Sandbox mode reads the same settings and refuses nothing.
    expect(await checkFailoverDurability("sandbox", true)).toMatchObject({ waitsForStandby: false });

    const logs = captureLogs();
    expect(await checkFailoverDurability("live", false)).toMatchObject({ waitsForStandby: false });
    expect(logs.join("")).toMatch(
      /live mode with DB_REQUIRE_SYNC_STANDBY=false: commits do not wait for a synchronous standby/,
    );

    await cluster.primary.configure({ synchronous_standby_names: "ANY 1 (s1)" });
    try {
      await closeDb();
      expect(await checkFailoverDurability("live", true)).toEqual({
        synchronousCommit: "on",
        synchronousStandbyNames: "ANY 1 (s1)",
        waitsForStandby: true,
      });
      // synchronous_commit is a session setting: one set for the database is what the app's sessions get.
      await cluster.primary.query(`alter database payments set synchronous_commit = off`);
      await closeDb();
      await expect(checkFailoverDurability("live", false)).rejects.toThrow(
        /synchronous_commit is off: a crash of the server alone loses commits already acknowledged/,
      );
      await cluster.primary.query(`alter database payments set synchronous_commit = local`);
      await closeDb();
      await expect(checkFailoverDurability("live", true)).rejects.toThrow(/synchronous_commit=local/);
    } finally {
      await cluster.primary.query(`alter database payments reset synchronous_commit`);
      await cluster.primary.configure({ synchronous_standby_names: null });
    }
  }, 60_000);

  it("a commit waits for its synchronous standby (statement_timeout does not end the wait); one released by a cancel is acknowledged by PostgreSQL, and reported", async () => {
    const [standby] = cluster.standbys;
    await cluster.primary.configure({ synchronous_standby_names: "ANY 1 (s1)" });
    await standby.stop("fast");
    try {
      await useDatabase({ DATABASE_URL: cluster.primary.url("payments"), DB_STATEMENT_TIMEOUT_MS: "500" });
      const logs = captureLogs();
      const write = db()
        .execute(sql`insert into deployment_marks (name, value) values ('sync-wait-test', 'x') on conflict do nothing`)
        .then(() => "acknowledged");
      const pending = await Promise.race([write, new Promise((r) => setTimeout(() => r("still waiting"), 1500))]);
      // PostgreSQL turns statement_timeout off before it commits: nothing but the standby ends the wait.
      expect(pending).toBe("still waiting");
      const waiting = await cluster.primary.query<{ pid: number }>(
        `select pid from pg_stat_activity where wait_event = 'SyncRep'`,
      );
      expect(waiting.length).toBe(1);
      // A cancel (an operator, a failover tool) ends it: the commit stays, on the primary alone.
      await cluster.primary.query(`select pg_cancel_backend(${waiting[0].pid})`);
      expect(await write).toBe("acknowledged");
      const [row] = await db().execute<{ n: number }>(
        sql`select count(*)::int as n from deployment_marks where name = 'sync-wait-test'`,
      );
      expect(row.n).toBe(1);
      expect(logs.join("")).toMatch(/a commit was acknowledged before a synchronous standby confirmed it/);
    } finally {
      // First: until then every commit on the primary waits for the stopped standby.
      await cluster.primary.configure({ synchronous_standby_names: null });
      await cluster.primary
        .query(`delete from deployment_marks where name = 'sync-wait-test'`, "payments")
        .catch(() => {});
      await standby.start();
      await cluster.waitForStreaming(1);
    }
  }, 60_000);

  it("the pool and the job runner follow a promoted standby; no write reaches a server in recovery, a request meanwhile is a 503", async () => {
    const [standby] = cluster.standbys;
    const oldPrimary = cluster.primary;
    // The standby first: a driver that did not check would write to it.
    const url = cluster.multiHostUrl("payments", {}, [standby, oldPrimary]);
    await useDatabase({ DATABASE_URL: url, DB_CONNECT_TIMEOUT_SECONDS: "2" });
    const { apiKey } = await seedMerchant({ balanceCentavos: 10_000 });
    expect(await writtenTo()).toBe(oldPrimary.port);
    expect((await api("GET", "/api/v1/account", { apiKey })).status).toBe(200);

    const done: string[] = [];
    const queue = jobQueue<{ n: string }>(`failover-test-${process.pid}`, { retryLimit: 5, retryDelay: 1 });
    await startJobs({
      workers: [worker(queue, { pollingIntervalSeconds: 0.5 }, async (data) => void done.push(data.n))],
      recurring: [],
    });
    await queue.send({ n: "before" });
    await until("the job sent before the failover", async () => expect(done).toContain("before"), 15_000);

    // The primary goes away; its standby is promoted.
    await cluster.waitForReplay(standby);
    await oldPrimary.stop("fast");
    const during = await api("GET", "/api/v1/account", { apiKey });
    expect(during.status).toBe(503);
    const promoting = Date.now();
    await standby.promote();
    const promoteMs = Date.now() - promoting;
    cluster.setPrimary(standby);

    const back = await until(
      "a 200 after the promotion",
      async () => {
        const res = await api("GET", "/api/v1/account", { apiKey });
        if (res.status !== 200) throw new Error(`status ${res.status}`);
        return res;
      },
      10_000,
    );
    expect(await writtenTo()).toBe(standby.port);
    const { apiKey: afterKey } = await seedMerchant({ balanceCentavos: 500 });
    expect((await api("GET", "/api/v1/account", { apiKey: afterKey })).body.merchant).toMatchObject({ balance: 500 });
    await queue.send({ n: "after" });
    await until("the job sent after the failover", async () => expect(done).toContain("after"), 20_000);
    console.log(
      `failover: promotion took ${promoteMs} ms; the first 200 came ${back.ms} ms after it (${back.failures.length} refused before)`,
    );

    // The old primary comes back as a standby of the new one, and is first in the list: new
    // connections pass it over.
    await oldPrimary.follow(standby);
    await cluster.waitForStreaming(1);
    await useDatabase({ DATABASE_URL: cluster.multiHostUrl("payments", {}, [oldPrimary, standby]) });
    expect(await writtenTo()).toBe(standby.port);
    expect((await api("GET", "/api/v1/account", { apiKey: afterKey })).status).toBe(200);
    // Restore the roles for any later test: the old primary is a standby now.
    cluster.setPrimary(standby);
  }, 120_000);
});

if (!binaries) {
  describe("failover with a multi-host DATABASE_URL", () => {
    it.skip("skipped: no PostgreSQL server binaries (initdb, pg_ctl, postgres); set PG_BIN_DIR or install postgresql", () => {});
  });
}
