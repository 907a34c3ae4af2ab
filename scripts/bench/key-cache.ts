// `npx tsx scripts/bench/key-cache.ts [keys] [seconds] [per-second]`: the work the API key cache does per
// cached key rather than per request. Makes `keys` (2,000) keys on a scratch database, authenticates each
// once, then for `seconds` (60) keeps authenticating them round-robin at `per-second` (200) from memory,
// and counts the key lookups PostgreSQL ran meanwhile (scans of the keys' hash index) and this process's CPU. A cache that re-reads its entries on a timer shows a
// rate that grows with the keys; one that trusts invalidation shows none.
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx scripts/bench/key-cache.ts
import os from "node:os";
import postgres from "postgres";

const KEYS = Number(process.argv[2] ?? 2000);
const SECONDS = Number(process.argv[3] ?? 60);
const RATE = Number(process.argv[4] ?? 200);

async function main() {
  const admin = process.env.DATABASE_URL;
  if (!admin) throw new Error("DATABASE_URL: a server where a scratch database may be created");
  const name = `key_cache_bench_${process.pid}`;
  const root = postgres(admin, { max: 1, onnotice: () => {} });
  await root.unsafe(`create database "${name}"`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  process.env.DATABASE_URL = url.toString();
  try {
    const { runMigrations } = await import("@/db/migrate");
    await runMigrations(url.toString());
    const { generateApiKey } = await import("@/lib/identity/api-keys/keys");
    const { authenticateApiKey } = await import("@/lib/identity/api-keys/authenticate");
    const { closeDb } = await import("@/db");
    const sql = postgres(url.toString(), { max: 1, onnotice: () => {} });
    const [{ id }] = await sql<{ id: string }[]>`insert into merchants (company_name) values ('Bench') returning id`;
    const keys = Array.from({ length: KEYS }, () => generateApiKey("sandbox"));
    for (let i = 0; i < keys.length; i += 500) {
      const rows = keys.slice(i, i + 500).map((k, j) => ({
        merchant_id: id,
        name: `k${i + j}`,
        prefix: k.prefix,
        key_hash: k.hash,
        mode: "sandbox",
      }));
      await sql`insert into api_keys ${sql(rows)}`;
    }
    const requests = keys.map(
      (k) => new Request("http://localhost/api/v1/account", { headers: { authorization: `Bearer ${k.key}` } }),
    );
    // Warm: until every key is served from memory (nothing is cached before LISTEN is up).
    for (let pass = 0; pass < 20; pass++) {
      let fromDb = 0;
      for (const r of requests) {
        const auth = authenticateApiKey(r);
        if (auth instanceof Promise) {
          fromDb++;
          await auth;
        }
      }
      if (fromDb === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    // Every key lookup, foreground or background, reads the key's hash index once.
    const xacts = async () =>
      Number((await sql`select idx_scan from pg_stat_user_indexes where indexrelname = 'api_keys_hash'`)[0].idx_scan);
    await new Promise((r) => setTimeout(r, 1500)); // the warm-up's statistics reach the collector
    await sql`select pg_stat_clear_snapshot()`;
    const before = await xacts();
    const cpu = process.cpuUsage();
    const load = os.loadavg()[0];
    let i = 0;
    let fromDb = 0;
    const end = Date.now() + SECONDS * 1000;
    while (Date.now() < end) {
      const tickEnd = Date.now() + 100;
      for (let n = 0; n < RATE / 10; n++) {
        const auth = authenticateApiKey(requests[i++ % requests.length]);
        if (auth instanceof Promise) {
          fromDb++;
          await auth;
        }
      }
      await new Promise((r) => setTimeout(r, Math.max(0, tickEnd - Date.now())));
    }
    const used = process.cpuUsage(cpu);
    await new Promise((r) => setTimeout(r, 600)); // the statistics collector's flush
    await sql`select pg_stat_clear_snapshot()`;
    const after = await xacts();
    console.log(
      JSON.stringify({
        keys: KEYS,
        seconds: SECONDS,
        authPerSecond: RATE,
        lookupsOnRequestPath: fromDb,
        keyLookupsPerSecond: +((after - before) / SECONDS).toFixed(1),
        cpuMsPerSecond: +((used.user + used.system) / 1000 / SECONDS).toFixed(1),
        load1: load,
        loadEnd: os.loadavg()[0],
      }),
    );
    await sql.end();
    await closeDb();
  } finally {
    await root.unsafe(`drop database "${name}" with (force)`);
    await root.end();
  }
}

void main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
