import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { closeDb } from "@/db";
import { MIGRATIONS_DIR, runMigrations } from "@/db/migrate";
import { claimDatabaseMode, checkNodes, DeploymentRefused } from "@/lib/deployment/guards";
import { resetEnvForTests } from "@/lib/env";
import { startAnvil, type Anvil } from "./fixtures/anvil";
import { saveEnv } from "./support/env";
import { testDatabaseUrl } from "./support/database";

// Start-up refusals that need a database or a node (docs/configuration.md#what-start-up-refuses); the environment-only ones are in
// lib/chain/config.test.ts and lib/env/env.test.ts.

const testUrl = testDatabaseUrl();
const created: string[] = [];
const savedEnv = saveEnv();

async function freshDatabase(migrationsFolder = MIGRATIONS_DIR): Promise<string> {
  const name = `guards_${process.pid}_${created.length}_${Date.now()}`;
  const admin = postgres(testUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  await admin.end();
  created.push(name);
  const u = new URL(testUrl);
  u.pathname = `/${name}`;
  await runMigrations(u.toString(), migrationsFolder);
  return u.toString();
}

/** db/migrations up to and including `lastTag`, as a folder of its own. */
function migrationsUpTo(lastTag: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "migrations-"));
  const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS_DIR, "meta/_journal.json"), "utf8")) as {
    entries: { tag: string }[];
  };
  const keep = journal.entries.slice(0, journal.entries.findIndex((e) => e.tag === lastTag) + 1);
  fs.mkdirSync(path.join(dir, "meta"));
  fs.writeFileSync(path.join(dir, "meta/_journal.json"), JSON.stringify({ ...journal, entries: keep }));
  for (const e of keep) fs.copyFileSync(path.join(MIGRATIONS_DIR, `${e.tag}.sql`), path.join(dir, `${e.tag}.sql`));
  return dir;
}

async function useDatabase(url: string) {
  await closeDb();
  process.env.DATABASE_URL = url;
  resetEnvForTests();
}

afterEach(async () => {
  savedEnv.restore();
  await closeDb();
});

afterAll(async () => {
  const admin = postgres(testUrl, { max: 1, onnotice: () => {} });
  for (const name of created) await admin.unsafe(`drop database if exists "${name}" with (force)`);
  await admin.end();
});

describe("one database, one mode", () => {
  it("live refuses a database sandbox wrote to, and sandbox one that live wrote to", async () => {
    const sandboxDb = await freshDatabase();
    await useDatabase(sandboxDb);
    await claimDatabaseMode("sandbox");
    await claimDatabaseMode("sandbox"); // restarts are fine
    const refused = await claimDatabaseMode("live").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DeploymentRefused);
    expect((refused as Error).message).toMatch(
      /^this database was written by sandbox mode \(first started in sandbox mode, .*\); live mode needs a database of its own/,
    );

    const liveDb = await freshDatabase();
    await useDatabase(liveDb);
    await claimDatabaseMode("live");
    await claimDatabaseMode("live");
    await expect(claimDatabaseMode("sandbox")).rejects.toThrow(/written by live mode/);
  });

  it("two processes starting together in different modes: exactly one passes", async () => {
    await useDatabase(await freshDatabase());
    const results = await Promise.allSettled([
      claimDatabaseMode("sandbox"),
      claimDatabaseMode("live"),
      claimDatabaseMode("live"),
      claimDatabaseMode("sandbox"),
    ]);
    const passedModes = new Set(
      results.flatMap((r, i) => (r.status === "fulfilled" ? [i % 3 === 0 ? "sandbox" : "live"] : [])),
    );
    expect(passedModes.size).toBe(1);
    for (const r of results) if (r.status === "rejected") expect(r.reason).toBeInstanceOf(DeploymentRefused);
  });

  it("migration 0004 marks a database that already held sandbox keys, and carries in-flight payouts and transactions over", async () => {
    const url = await freshDatabase(migrationsUpTo("0003_partial_order_indexes"));
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    const [m] = await sql`insert into merchants (company_name) values ('Loja') returning id`;
    await sql`insert into api_keys (merchant_id, name, prefix, key_hash, mode) values (${m.id}, 'k', 'sk_test_abc', 'h', 'sandbox')`;
    const [pixOut] =
      await sql`insert into withdrawals (merchant_id, kind, value_centavos, debit_centavos, limit_day, pix_key)
      values (${m.id}, 'pix_out', 1000, 1100, '2026-11-24', 'loja@example.com') returning id`;
    const [onchain] =
      await sql`insert into withdrawals (merchant_id, kind, value_centavos, debit_centavos, limit_day, network, token_address, to_address, token_amount, nonce, raw_transaction, tx_hash)
      values (${m.id}, 'onchain', 5000, 5100, '2026-11-24', 'bsc', '0x55d398326f99059ff775485246999027b3197955', '0x000000000000000000000000000000000000dead', '9.1', 7, '0x02ab', '0xfeed') returning id`;
    await sql.end();
    await runMigrations(url);

    const after = postgres(url, { max: 1, onnotice: () => {} });
    const marks = await after`select name from deployment_marks`;
    expect(marks.map((r) => r.name)).toEqual(["sandbox_used"]);
    const [payout] = await after`select id, purpose, status, pix_key, value_centavos from pix_payouts`;
    expect(payout).toMatchObject({
      id: pixOut.id,
      purpose: "withdrawal",
      status: "created",
      pix_key: "loja@example.com",
      value_centavos: "1000",
    });
    const [tx] = await after`select purpose, owner_id, nonce, status from chain_txs`;
    expect(tx).toMatchObject({ purpose: "withdrawal", owner_id: onchain.id, nonce: 7, status: "pending" });
    const [attempt] = await after`select hash, raw_transaction from chain_tx_attempts`;
    expect(attempt).toEqual({ hash: "0xfeed", raw_transaction: "0x02ab" });
    await after.end();

    await useDatabase(url);
    await expect(claimDatabaseMode("live")).rejects.toThrow(
      /written by sandbox mode \(sandbox API keys found by migration 0004/,
    );
  });
});

describe("the node a network is routed to", () => {
  let anvil: Anvil | null = null;
  afterAll(async () => {
    await anvil?.stop();
  });

  it("must serve the chain id we sign for; a node that does not answer only warns", async () => {
    anvil ??= await startAnvil();
    Object.assign(process.env, { EVM_RPC_URL_POLYGON: anvil.url, EVM_CHAIN_ID_POLYGON: "31337" });
    resetEnvForTests();
    await expect(checkNodes()).resolves.toBeUndefined();

    process.env.EVM_CHAIN_ID_POLYGON = "1337";
    resetEnvForTests();
    await expect(checkNodes()).rejects.toThrow(
      "EVM_RPC_URL_POLYGON serves chain id 31337, but polygon signs for 1337: fix the URL, or EVM_CHAIN_ID_POLYGON for a test chain",
    );

    process.env.EVM_RPC_URL_POLYGON = "http://127.0.0.1:1";
    process.env.CHAIN_RPC_TIMEOUT_MS = "500";
    resetEnvForTests();
    await expect(checkNodes()).resolves.toBeUndefined();
  });
});
