import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPostgresBinaries, freePort, startCluster, type PgCluster } from "./support/pg-cluster";

// The driver with a list of hosts (patches/postgres+3.4.9.patch), against a real primary and standby.
// postgres.js 3.4.9 read a hot standby as writable (PostgreSQL 14+ reports in_hot_standby=on but
// default_transaction_read_only=off, and only the latter was checked), so target_session_attrs=read-write
// connected to a standby; with no host matching, or none up, it went round the list for ever: the query
// never settled and the loop kept a core busy. Now: each host once per connection attempt, then the
// attempt fails (TARGET_SESSION_ATTRS_UNMET, or the last host's error).

const binaries = findPostgresBinaries();
let cluster: PgCluster;
const clients: postgres.Sql[] = [];

function client(url: string) {
  const sql = postgres(url, { max: 1, connect_timeout: 2, onnotice: () => {} });
  clients.push(sql);
  return sql;
}

/** What one query gets, settled or not within `ms`. */
async function outcome(query: Promise<unknown>, ms = 5000): Promise<string> {
  const settled = query.then(
    (rows) => `port ${(rows as { port: number }[])[0]?.port}`,
    (err: { code?: string }) => `error ${err.code}`,
  );
  return Promise.race([settled, new Promise<string>((r) => setTimeout(() => r("pending"), ms))]);
}

describe.skipIf(!binaries)("postgres.js with several hosts", () => {
  beforeAll(async () => {
    cluster = await startCluster({ standbys: 1, databases: ["app"] });
  }, 120_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end({ timeout: 0 }).catch(() => {})));
    await cluster?.close();
  }, 60_000);

  it("target_session_attrs picks the server that matches, in either order", async () => {
    const { primary } = cluster;
    const [standby] = cluster.standbys;
    const port = (tsa: string, order: typeof cluster.nodes) =>
      outcome(
        client(cluster.multiHostUrl("app", { target_session_attrs: tsa }, order))`select inet_server_port() as port`,
      );
    for (const order of [
      [standby, primary],
      [primary, standby],
    ]) {
      expect(await port("read-write", order)).toBe(`port ${primary.port}`);
      expect(await port("primary", order)).toBe(`port ${primary.port}`);
      expect(await port("read-only", order)).toBe(`port ${standby.port}`);
      expect(await port("standby", order)).toBe(`port ${standby.port}`);
    }
  }, 60_000);

  it("fails at once when no host matches, and again on the next query (no endless round of the list)", async () => {
    const [standby] = cluster.standbys;
    const sql = client(cluster.multiHostUrl("app", { target_session_attrs: "read-write" }, [standby, standby]));
    const started = performance.now();
    expect(await outcome(sql`select 1 as port`)).toBe("error TARGET_SESSION_ATTRS_UNMET");
    expect(await outcome(sql`select 1 as port`)).toBe("error TARGET_SESSION_ATTRS_UNMET");
    expect(performance.now() - started).toBeLessThan(3000);
    const single = client(cluster.multiHostUrl("app", { target_session_attrs: "read-write" }, [standby]));
    expect(await outcome(single`select 1 as port`)).toBe("error TARGET_SESSION_ATTRS_UNMET");
  }, 30_000);

  it("with every host down, fails with the last host's error instead of hanging", async () => {
    const [a, b] = [await freePort(), await freePort()];
    const cpuBefore = process.cpuUsage();
    const sql = client(`postgres://postgres@127.0.0.1:${a},127.0.0.1:${b}/app`);
    expect(await outcome(sql`select 1 as port`, 3000)).toBe("error ECONNREFUSED");
    const cpu = process.cpuUsage(cpuBefore);
    expect((cpu.user + cpu.system) / 1000).toBeLessThan(1000);
  }, 30_000);

  it("passes over a host that is down for the next one", async () => {
    const down = await freePort();
    const sql = client(
      `postgres://postgres@127.0.0.1:${down},127.0.0.1:${cluster.primary.port}/app?target_session_attrs=read-write`,
    );
    expect(await outcome(sql`select inet_server_port() as port`)).toBe(`port ${cluster.primary.port}`);
  }, 30_000);
});

if (!binaries) {
  describe("postgres.js with several hosts", () => {
    it.skip("skipped: no PostgreSQL server binaries (initdb, pg_ctl, postgres); set PG_BIN_DIR or install postgresql", () => {});
  });
}
