import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import { startEmbeddedPostgres } from "@/db/embedded";

// Shows the postgres.js pool defect patched in patches/postgres+3.4.9.patch: after a burst opens
// every connection, light traffic uses the idle connections in turn, the idle queue never empties,
// and unpatched, each query's bookkeeping scanned one more slot than the last. Prints the cost per
// query as the count grows; patched, it stays flat.
//   npx tsx scripts/bench/pg-queue.ts        (DATABASE_URL, or an embedded PostgreSQL)

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const PER_ROUND = 40_000;

async function main() {
  let stop = async () => {};
  let url = process.env.DATABASE_URL;
  if (!url) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pg-queue-"));
    fs.chmodSync(dir, 0o755);
    const pg = await startEmbeddedPostgres({
      dataDir: path.join(dir, "pg"),
      port: 54900 + Math.floor(Math.random() * 90),
      database: "bench",
      persistent: false,
    });
    url = pg.url;
    stop = () => pg.stop();
  }
  const sql = postgres(url, { max: 10, onnotice: () => {} });
  try {
    await Promise.all(Array.from({ length: 20 }, () => sql`select pg_sleep(0.05)`));
    for (let round = 1; round <= ROUNDS; round++) {
      const started = performance.now();
      for (let i = 0; i < PER_ROUND / 2; i++) await Promise.all([sql`select 1`, sql`select 1`]);
      const perQuery = ((performance.now() - started) * 1000) / PER_ROUND;
      console.log(`after ${(round * PER_ROUND) / 1000}k queries: ${perQuery.toFixed(1)} µs per query`);
    }
  } finally {
    await sql.end();
    await stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
