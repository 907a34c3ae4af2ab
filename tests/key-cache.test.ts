import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import postgres from "postgres";
import { databaseUrl, db, getPool } from "@/db";
import { apiKeys, merchants } from "@/db/schema";
import { authenticateApiKey, flushKeyUsage, touchedKeyCount } from "@/lib/identity/api-keys/authenticate";
import { cachedKey, cacheGeneration, forgetMerchant, rememberKey } from "@/lib/identity/api-keys/key-cache";
import { hashApiKey } from "@/lib/identity/api-keys/keys";
import { postLedgerEntry } from "@/lib/ledger/ledger";
import { revokeApiKey, updateMerchant } from "@/lib/merchants/service";
import { api, seedMerchant } from "./helpers";

// The clock the key cache and last-use bookkeeping read, movable forward by a test.
const clock = vi.hoisted(() => ({ offsetMs: 0 }));
vi.mock("@/lib/wall-clock", async (importOriginal) => {
  const real = await importOriginal<typeof import("@/lib/wall-clock")>();
  return { ...real, wallClockMs: () => real.wallClockMs() + clock.offsetMs };
});

const keyRequest = (key: string) =>
  new Request("http://localhost:3000/api/v1/account", { headers: { authorization: `Bearer ${key}` } });

async function until(check: () => Promise<boolean> | boolean, ms = 3_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return check();
}

/** Authenticates until the key is served from memory (the cache stores nothing before LISTEN is up). */
async function warm(key: string) {
  const cached = await until(async () => {
    await authenticateApiKey(keyRequest(key));
    return cachedKey(hashApiKey(key)) !== undefined;
  });
  expect(cached).toBe(true);
}

/** The key's row, found by its hash as authentication finds it. */
const keyRowOf = async (key: string) =>
  (
    await db()
      .select()
      .from(apiKeys)
      .where(eq(apiKeys.keyHash, hashApiKey(key)))
  )[0];
const keyIdOf = async (key: string) => (await keyRowOf(key)).id;

describe("API key cache", () => {
  it("a key revoked in this process is refused on the very next request", async () => {
    const { merchant, apiKey } = await seedMerchant();
    await warm(apiKey);
    await revokeApiKey(merchant.id, await keyIdOf(apiKey));
    expect((await api("GET", "/api/v1/account", { apiKey })).status).toBe(401);
  });

  it("a key revoked by another writer (another instance, psql) is dropped through the database's notification", async () => {
    const { apiKey } = await seedMerchant();
    await warm(apiKey);
    // Straight SQL: nothing in this process is told, only the trigger's NOTIFY.
    await db().execute(sql`update api_keys set revoked_at = now() where key_hash = ${hashApiKey(apiKey)}`);
    expect(await until(() => cachedKey(hashApiKey(apiKey)) === undefined, 2_000)).toBe(true);
    expect((await api("GET", "/api/v1/account", { apiKey })).status).toBe(401);
  });

  it("a profile change made elsewhere reaches the next requests; the balance is never served from memory", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 1_000 });
    await warm(apiKey);
    await db().execute(
      sql`update merchants set pix_key = 'loja@example.com', pix_key_type = 'email' where id = ${merchant.id}`,
    );
    expect(
      await until(
        async () => (await api("GET", "/api/v1/account", { apiKey })).body.merchant.pixKey === "loja@example.com",
        2_000,
      ),
    ).toBe(true);

    // A credit committed a moment ago shows at once, cache or not.
    await db().transaction((tx) =>
      postLedgerEntry(tx, {
        merchantId: merchant.id,
        kind: "adjustment",
        amountCentavos: 2_345,
        refType: "test",
        refId: randomUUID(),
      }),
    );
    expect(cachedKey(hashApiKey(apiKey))).toBeDefined();
    expect((await api("GET", "/api/v1/account", { apiKey })).body.merchant.balance).toBe(3_345);
  });

  it("an account type changed through the service applies to the next withdrawal limits at once", async () => {
    const { merchant, apiKey } = await seedMerchant();
    await warm(apiKey);
    await updateMerchant(merchant.id, { accountType: "business" });
    const res = await api("GET", "/api/v1/account", { apiKey });
    expect(res.body.merchant.accountType).toBe("business");
    const [row] = await db().select({ t: merchants.accountType }).from(merchants).where(eq(merchants.id, merchant.id));
    expect(row.t).toBe("business");
  });

  it("a lookup that began before an invalidation does not store what it read", async () => {
    const { merchant, apiKey } = await seedMerchant();
    await warm(apiKey);
    const hash = hashApiKey(apiKey);
    const entry = cachedKey(hash)!;
    const before = cacheGeneration();
    forgetMerchant(merchant.id);
    rememberKey(hash, entry.keyId, entry.scopes, entry.merchant, before);
    expect(cachedKey(hash)).toBeUndefined();
    rememberKey(hash, entry.keyId, entry.scopes, entry.merchant, cacheGeneration());
    expect(cachedKey(hash)).toBeDefined();
  });
});

describe("a key's last use", () => {
  it("is recorded for every key used, in one write, and at most once a minute per key", async () => {
    const a = await seedMerchant();
    const b = await seedMerchant();
    await flushKeyUsage();
    for (const key of [a.apiKey, b.apiKey, a.apiKey]) await authenticateApiKey(keyRequest(key));
    const lastUsed = async (key: string) => (await keyRowOf(key)).lastUsedAt;
    expect(await lastUsed(a.apiKey)).toBeNull();
    await flushKeyUsage();
    const first = await lastUsed(a.apiKey);
    expect(first).toBeInstanceOf(Date);
    expect(await lastUsed(b.apiKey)).toBeInstanceOf(Date);
    // Used again within the minute: nothing more is written.
    await authenticateApiKey(keyRequest(a.apiKey));
    await flushKeyUsage();
    expect(await lastUsed(a.apiKey)).toEqual(first);
  });
});

describe("last-use bookkeeping in memory", () => {
  it("forgets a key a minute after its use: the map holds the keys used lately, not every key ever used", async () => {
    const keys = await Promise.all([seedMerchant(), seedMerchant(), seedMerchant()]);
    await flushKeyUsage();
    for (const { apiKey } of keys) await authenticateApiKey(keyRequest(apiKey));
    expect(touchedKeyCount()).toBeGreaterThanOrEqual(keys.length);
    try {
      clock.offsetMs = 61_000;
      await flushKeyUsage();
      expect(touchedKeyCount()).toBe(0);
    } finally {
      clock.offsetMs = 0;
    }
  });
});

describe("a cached key is kept until the database says it changed", () => {
  it("is never read again while unchanged: serving it costs no statement, however long it is cached", async () => {
    const { apiKey } = await seedMerchant();
    await warm(apiKey);
    try {
      clock.offsetMs = 3_600_000;
      const auth = authenticateApiKey(keyRequest(apiKey));
      expect(auth).not.toBeInstanceOf(Promise); // answered from memory, an hour on
    } finally {
      clock.offsetMs = 0;
    }
  });

  it("a key revoked through another pool (another instance) is refused within a second", async () => {
    const { apiKey } = await seedMerchant();
    await warm(apiKey);
    const other = postgres(databaseUrl(), { max: 1, onnotice: () => {} });
    try {
      const started = Date.now();
      await other`update api_keys set revoked_at = now() where key_hash = ${hashApiKey(apiKey)}`;
      expect(await until(() => cachedKey(hashApiKey(apiKey)) === undefined, 1_000)).toBe(true);
      expect(Date.now() - started).toBeLessThan(1_000);
      await expect(Promise.resolve().then(() => authenticateApiKey(keyRequest(apiKey)))).rejects.toThrow(/revoked/);
    } finally {
      await other.end();
    }
  });

  it("a change of scopes or of the destination allowlist made elsewhere reaches the cache", async () => {
    const { merchant, apiKey } = await seedMerchant();
    await warm(apiKey);
    await db().execute(sql`update api_keys set scopes = '{read}' where key_hash = ${hashApiKey(apiKey)}`);
    expect(await until(() => cachedKey(hashApiKey(apiKey)) === undefined, 1_000)).toBe(true);
    await warm(apiKey);
    expect(cachedKey(hashApiKey(apiKey))!.scopes).toEqual(["read"]);
    await db().execute(sql`update merchants set api_destination_allowlist = true where id = ${merchant.id}`);
    expect(await until(() => cachedKey(hashApiKey(apiKey)) === undefined, 1_000)).toBe(true);
  });

  it("a balance change or a key's last use does not empty the cache", async () => {
    const { merchant, apiKey } = await seedMerchant();
    await warm(apiKey);
    await db().execute(sql`update merchants set balance_centavos = balance_centavos + 1 where id = ${merchant.id}`);
    await db().execute(sql`update api_keys set last_used_at = now() where key_hash = ${hashApiKey(apiKey)}`);
    // A notification would have arrived by the time this probe's own round trip is back.
    await db().execute(sql`select pg_sleep(0.2)`);
    expect(cachedKey(hashApiKey(apiKey))).toBeDefined();
  });

  it("after the LISTEN connection is lost, nothing cached before is served: a change missed meanwhile counts", async () => {
    const { apiKey } = await seedMerchant();
    await warm(apiKey);
    // Revoked with the notification trigger off: the notification a lost connection would miss.
    await db().transaction(async (tx) => {
      await tx.execute(sql`set local session_replication_role = replica`);
      await tx
        .update(apiKeys)
        .set({ revokedAt: new Date() })
        .where(eq(apiKeys.keyHash, hashApiKey(apiKey)));
    });
    // Trusted until told: no timer reads it again.
    expect(cachedKey(hashApiKey(apiKey))).toBeDefined();

    const other = await seedMerchant();
    await warm(other.apiKey);
    const ended = await db().execute<{ pid: number }>(sql`
      select pg_terminate_backend(pid) as pid from pg_stat_activity
      where application_name = ${getPool().applicationName} and query ilike 'listen %'`);
    expect(ended.length).toBe(1);
    expect(await until(() => cachedKey(hashApiKey(apiKey)) === undefined, 1_000)).toBe(true);
    await expect(Promise.resolve().then(() => authenticateApiKey(keyRequest(apiKey)))).rejects.toThrow(/revoked/);
    // Once LISTEN is back, keys are cached again (read afresh).
    await warm(other.apiKey);
  });
});
