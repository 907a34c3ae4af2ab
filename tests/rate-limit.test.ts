import http from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { db } from "@/db";
import { apiKeys, rateLimits } from "@/db/schema";
import { authenticateApiKey } from "@/lib/identity/api-keys/authenticate";
import { cachedKey } from "@/lib/identity/api-keys/key-cache";
import { generateApiKey, hashApiKey } from "@/lib/identity/api-keys/keys";
import type { ApiScope } from "@/lib/identity/api-keys/scopes";
import { dispatchApi, isApiPath } from "@/lib/api/serve";
import { resetEnvForTests } from "@/lib/env";
import { CLIENT_ADDRESS_HEADER, stampClientAddress } from "@/lib/http/client-address";
import { SharedRateLimiter, type LimiterOptions } from "@/lib/http/rate-limit";
import { overrideProvidersForTests } from "@/lib/providers";
import { BINANCE_PAY_PROVIDER } from "@/lib/providers/exchange/binance-pay";
import type { ExchangeWalletProvider } from "@/lib/providers/exchange/types";
import { OPENNODE_PROVIDER } from "@/lib/providers/lightning/opennode";
import type { LightningProvider } from "@/lib/providers/lightning/types";
import type { PixProvider } from "@/lib/providers/pix/types";
import { processSlot } from "@/lib/singleton";
import { api, seedMerchant, specOf } from "./helpers";

// The limiter as docs/api.md#rate-limits describes it: per key per calendar minute, decided in
// memory, shared through PostgreSQL once per sync, with a bounded overshoot across instances.

const MINUTE = 60_000;
// A minute of its own, far from the real clock: simulated instances own their time.
const WINDOW = Date.UTC(2031, 0, 1, 12, 0);

function clock(start: number) {
  const c = { t: start, now: () => c.t };
  return c;
}

/** An instance: its own limiter, its own clock, no background sync (each test syncs when it says so). */
function instance(now: () => number, opts: LimiterOptions = {}) {
  return new SharedRateLimiter({ now, syncIntervalMs: 3_600_000, ...opts });
}

async function sharedCount(key: string, window = WINDOW): Promise<number> {
  const [row] = await db()
    .select({ count: rateLimits.count })
    .from(rateLimits)
    .where(and(eq(rateLimits.key, key), eq(rateLimits.windowStart, new Date(window))));
  return row?.count ?? 0;
}

function takeMany(limiter: SharedRateLimiter, key: string, limit: number, n: number): number {
  let admitted = 0;
  for (let i = 0; i < n; i++) if (limiter.take(key, limit) === 0) admitted++;
  return admitted;
}

describe("SharedRateLimiter", () => {
  it("one instance admits exactly the limit per minute, and answers the seconds left in the minute", async () => {
    const c = clock(WINDOW + 15_500);
    const a = instance(c.now);
    const key = `t:${randomUUID()}`;
    let admitted = 0;
    for (let i = 0; i < 80; i++) {
      if (a.take(key, 50) === 0) admitted++;
      if (i % 7 === 0) await a.sync();
    }
    expect(admitted).toBe(50);
    expect(a.take(key, 50)).toBe(45);
    expect(a.peek(key, 50)).toBe(45);
    await a.sync();
    expect(await sharedCount(key)).toBe(50);
  });

  it("two instances sharing the database: each sees the other's requests after a sync; the overshoot is what one could not see yet", async () => {
    const c = clock(WINDOW + 1_000);
    const a = instance(c.now);
    const b = instance(c.now);
    const key = `t:${randomUUID()}`;
    expect(takeMany(a, key, 100, 60)).toBe(60);
    await a.sync();
    // B has not synced: it cannot know A's 60, and admits up to the limit on its own count.
    expect(takeMany(b, key, 100, 50)).toBe(50);
    await b.sync();
    expect(takeMany(b, key, 100, 10)).toBe(0);
    // A has not read B's 50 back yet: it admits until its own view (60 + its new ones) is full.
    expect(takeMany(a, key, 100, 60)).toBe(40);
    await a.sync();
    await b.sync();
    expect(takeMany(a, key, 100, 10)).toBe(0);
    expect(takeMany(b, key, 100, 10)).toBe(0);
    // 150 = limit + B's 50 admitted before its first sync: within N × limit and the two-sync bound.
    expect(await sharedCount(key)).toBe(150);
  });

  it("under steady load across two instances, admits at least the limit and at most the documented bound", async () => {
    // Time moves in 50 ms ticks; A gets 4 requests a tick (80/s), B 6 (120/s); each syncs once a
    // second, half a second apart. The bound (lib/http/rate-limit.ts, docs/api.md): the limit plus
    // what every instance receives in two sync intervals.
    const c = clock(WINDOW);
    const a = instance(c.now);
    const b = instance(c.now);
    const key = `t:${randomUUID()}`;
    const limit = 1_000;
    let admitted = 0;
    for (let tick = 0; tick < 1_100; tick++) {
      c.t = WINDOW + tick * 50;
      admitted += takeMany(a, key, limit, 4) + takeMany(b, key, limit, 6);
      if (tick % 20 === 0) await a.sync();
      if (tick % 20 === 10) await b.sync();
    }
    await a.sync();
    await b.sync();
    const bound = limit + (80 + 120) * 2;
    expect(admitted).toBeGreaterThanOrEqual(limit);
    expect(admitted).toBeLessThanOrEqual(bound);
    expect(admitted).toBeLessThanOrEqual(2 * limit);
    expect(await sharedCount(key)).toBe(admitted);
  });

  it("starts a new count with a new minute, and drops the old minute's unsynced requests", async () => {
    const c = clock(WINDOW + 59_000);
    const a = instance(c.now);
    const key = `t:${randomUUID()}`;
    expect(takeMany(a, key, 3, 5)).toBe(3);
    expect(a.take(key, 3)).toBe(1);
    c.t = WINDOW + MINUTE;
    expect(takeMany(a, key, 3, 5)).toBe(3);
    await a.sync();
    expect(await sharedCount(key, WINDOW + MINUTE)).toBe(3);
    expect(await sharedCount(key, WINDOW)).toBe(0);
  });

  it("concurrent syncs of overlapping keys from two instances neither deadlock nor lose counts", async () => {
    const c = clock(WINDOW + 2_000);
    const a = instance(c.now);
    const b = instance(c.now);
    const keys = Array.from({ length: 200 }, () => `t:${randomUUID()}`);
    for (let round = 0; round < 5; round++) {
      for (const key of keys) {
        a.take(key, 1_000);
        b.take(key, 1_000);
      }
      await Promise.all([a.sync(), b.sync()]);
    }
    for (const key of [keys[0], keys[99], keys[199]]) expect(await sharedCount(key)).toBe(10);
  });

  it("keeps its counts out of the WAL, and leaves room on each page so a count's update writes no index entry", async () => {
    const [table] = await db().execute<{ persistence: string; options: string[] | null }>(
      sql`select relpersistence as persistence, reloptions as options from pg_class where oid = 'rate_limits'::regclass`,
    );
    expect(table.persistence).toBe("u");
    expect(table.options).toContain("fillfactor=50");
  });

  it("past the keys it can hold in memory, counts a new key in the database, exactly", async () => {
    const c = clock(WINDOW + 3_000);
    const a = instance(c.now, { maxKeys: 1 });
    const held = `t:${randomUUID()}`;
    const overflow = `t:${randomUUID()}`;
    expect(a.take(held, 2)).toBe(0);
    expect(await a.take(overflow, 2)).toBe(0);
    expect(await a.take(overflow, 2)).toBe(0);
    expect(await a.take(overflow, 2)).toBe(57);
    expect(await sharedCount(overflow)).toBe(3);
  });

  it("keeps counting on its own while the database is unreachable, and adds the count once a sync succeeds", async () => {
    const c = clock(WINDOW + 4_000);
    let url = "postgres://postgres@127.0.0.1:1/unreachable";
    const a = instance(c.now, { databaseUrl: () => url });
    const key = `t:${randomUUID()}`;
    expect(takeMany(a, key, 5, 3)).toBe(3);
    await expect(a.sync()).rejects.toThrow();
    url = process.env.DATABASE_URL!;
    expect(takeMany(a, key, 5, 5)).toBe(2);
    await a.sync();
    expect(await sharedCount(key)).toBe(5);
  });
});

// --- Through the API, with this process's limiter ---------------------------------------------

/** Calendar-minute windows: keep a test's requests inside one minute. */
async function awayFromMinuteEdge() {
  const left = MINUTE - (Date.now() % MINUTE);
  if (left < 5_000) await new Promise((r) => setTimeout(r, left + 50));
}

const address = () => `198.51.100.${1 + Math.floor(Math.random() * 250)}`;
const otherAddress = () => `192.0.2.${1 + Math.floor(Math.random() * 250)}`;
const from = (ip: string) => ({ [CLIENT_ADDRESS_HEADER]: ip });

/** The answer's RateLimit-* headers as numbers (NaN when absent). */
function quota(res: { headers: Headers }) {
  const n = (name: string) => Number(res.headers.get(name) ?? NaN);
  return { limit: n("ratelimit-limit"), remaining: n("ratelimit-remaining"), reset: n("ratelimit-reset") };
}

/** A key of its own merchant with only these scopes. */
async function seedScopedKey(scopes: ApiScope[]): Promise<string> {
  const { merchant } = await seedMerchant();
  const key = generateApiKey("sandbox");
  await db().insert(apiKeys).values({
    merchantId: merchant.id,
    name: "scoped",
    prefix: key.prefix,
    keyHash: key.hash,
    mode: "sandbox",
    scopes,
  });
  return key.key;
}

function setLimit(perMinute: number) {
  process.env.RATE_LIMIT_PER_MINUTE = String(perMinute);
  resetEnvForTests();
}

describe("rate limits through the API", () => {
  beforeEach(async () => {
    // A fresh limiter for the process: counts of earlier tests (the shared "unknown" address) do not carry over.
    const slot = processSlot<SharedRateLimiter>("rate-limiter");
    slot.value?.stop();
    slot.value = undefined;
    await awayFromMinuteEdge();
  });
  afterEach(() => setLimit(100_000));

  it("GET /api/v1/order/{id} → 429 in its own { success: false, error } shape, with Retry-After", async () => {
    setLimit(2);
    const { apiKey } = await seedMerchant();
    const id = randomUUID();
    const first = await api("GET", `/api/v1/order/${id}`, { apiKey });
    expect(first.status).toBe(404);
    expect(quota(first)).toEqual({ limit: 2, remaining: 1, reset: expect.any(Number) });
    const second = await api("GET", `/api/v1/order/${id}`, { apiKey });
    expect(second.status).toBe(404);
    expect(quota(second)).toMatchObject({ limit: 2, remaining: 0 });
    const limited = await api("GET", `/api/v1/order/${id}`, { apiKey });
    expect(limited.status).toBe(429);
    expect(specOf(limited.body)).toEqual({
      success: false,
      error: expect.stringContaining("Rate limit exceeded: at most 2 requests per minute"),
    });
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Both say when the minute ends; a client may read either.
    expect(quota(limited)).toEqual({ limit: 2, remaining: 0, reset: retryAfter });
    for (const res of [first, second]) {
      expect(quota(res).reset).toBeGreaterThanOrEqual(1);
      expect(quota(res).reset).toBeLessThanOrEqual(60);
    }
  });

  it("every answer counted against a key carries RateLimit-Limit/-Remaining/-Reset: a 200, a 400, a POST, and a 403 for a missing scope (counted nothing)", async () => {
    setLimit(10);
    const { apiKey } = await seedMerchant();
    const ok = await api("GET", "/api/v1/account", { apiKey });
    expect(ok.status).toBe(200);
    expect(quota(ok)).toMatchObject({ limit: 10, remaining: 9 });
    const invalid = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: 0 } });
    expect(invalid.status).toBe(400);
    expect(quota(invalid)).toMatchObject({ limit: 10, remaining: 8 });
    const created = await api("POST", "/api/v1/order/create/pix", {
      apiKey,
      body: { value: 10 },
      authHeader: "bearer",
    });
    expect(created.status).toBe(200);
    expect(quota(created)).toMatchObject({ limit: 10, remaining: 7 });
    const readOnly = await seedScopedKey(["read"]);
    const refused = await api("POST", "/api/v1/order/pix-out", { apiKey: readOnly, body: { value: 100 } });
    expect(refused.status).toBe(403);
    expect(quota(refused)).toMatchObject({ limit: 10, remaining: 10 });
  });

  it("failed authentication is limited per client address: 401s, then 429 without looking the key up; a key in memory still works", async () => {
    const good = await seedMerchant();
    const unseen = await seedMerchant();
    const ip = address();
    // Served from memory from here on (the cache fills once its LISTEN is up).
    for (let i = 0; i < 100 && !cachedKey(hashApiKey(good.apiKey)); i++) {
      await authenticateApiKey(new Request("http://x/", { headers: { authorization: `Bearer ${good.apiKey}` } }));
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(cachedKey(hashApiKey(good.apiKey))).toBeDefined();
    setLimit(3);
    const wrongKey = "sk_test_" + "x".repeat(40);
    const unknown = await api("GET", "/api/v1/account", { apiKey: wrongKey, headers: from(ip) });
    expect(unknown.status).toBe(401);
    expect(quota(unknown)).toMatchObject({ limit: 3, remaining: 2 });
    expect((await api("GET", "/api/v1/account", { headers: from(ip) })).status).toBe(401);
    expect((await api("GET", "/api/v1/account", { apiKey: "garbage", headers: from(ip) })).status).toBe(401);
    const limited = await api("GET", "/api/v1/account", { apiKey: wrongKey, headers: from(ip) });
    expect(limited.status).toBe(429);
    expect(specOf(limited.body)).toEqual({ message: expect.stringContaining("Rate limit exceeded") });
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // The allowance answered is the address's, for failed authentication.
    expect(quota(limited)).toEqual({ limit: 3, remaining: 0, reset: Number(limited.headers.get("retry-after")) });
    // A valid key that is not in memory would need the database lookup: refused before it.
    expect((await api("GET", "/api/v1/account", { apiKey: unseen.apiKey, headers: from(ip) })).status).toBe(429);
    expect(cachedKey(hashApiKey(unseen.apiKey))).toBeUndefined();
    expect((await api("GET", "/api/v1/account", { apiKey: good.apiKey, headers: from(ip) })).status).toBe(200);
    // Another address has its own allowance.
    expect((await api("GET", "/api/v1/account", { apiKey: wrongKey, headers: from(otherAddress()) })).status).toBe(401);
  });

  it("the operator API is limited per client address, whether the token is right or not", async () => {
    setLimit(3);
    const ip = address();
    const admin = { authorization: `Bearer ${process.env.ADMIN_TOKEN}` };
    const statuses: number[] = [];
    const patch = (headers: Record<string, string>) =>
      api("PATCH", `/api/v1/admin/merchants/${randomUUID()}`, { body: { accountType: "verified" }, headers });
    statuses.push((await patch({ ...from(ip), authorization: "Bearer wrong-token" })).status);
    for (let i = 0; i < 3; i++) statuses.push((await patch({ ...from(ip), ...admin })).status);
    expect(statuses).toEqual([401, 404, 404, 429]);
    expect((await patch({ ...from(otherAddress()), ...admin })).status).toBe(404);
  });
});

describe("the client address over HTTP, as scripts/start.ts stamps it", () => {
  let server: http.Server;
  let base: string;
  let hops = 0;

  beforeEach(async () => {
    const slot = processSlot<SharedRateLimiter>("rate-limiter");
    slot.value?.stop();
    slot.value = undefined;
    await awayFromMinuteEdge();
    server = http.createServer((req, res) => {
      stampClientAddress(req, hops);
      if (isApiPath(req.url ?? "/")) void dispatchApi(req, res, "http://127.0.0.1");
      // What Next would be handed: the request's header object.
      else res.writeHead(200, { "content-type": "text/plain" }).end(String(req.headers[CLIENT_ADDRESS_HEADER]));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    setLimit(100_000);
    hops = 0;
    await new Promise<void>((r) => server.close(() => r()));
  });

  const publicLookup = (headers: Record<string, string>) =>
    fetch(`${base}/api/v1/public/payments/nope`, { headers }).then((r) => r.status);

  it("ignores a client's X-Forwarded-For and its own copy of the internal header", async () => {
    setLimit(3);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      statuses.push(
        await publicLookup({ "x-forwarded-for": `203.0.113.${i}`, [CLIENT_ADDRESS_HEADER]: `192.0.2.${i}` }),
      );
    }
    expect(statuses).toEqual([404, 404, 404, 429, 429, 429]);
    const seen = await fetch(`${base}/dashboard`, {
      headers: { [CLIENT_ADDRESS_HEADER]: "192.0.2.1", "x-forwarded-for": "192.0.2.1" },
    });
    expect(await seen.text()).toBe("127.0.0.1");
  });

  it("with TRUST_PROXY_HOPS=1 takes the right-most X-Forwarded-For entry, whatever the client prepended", async () => {
    hops = 1;
    setLimit(2);
    const client = address();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push(await publicLookup({ "x-forwarded-for": `10.9.9.${i}, ${client}` }));
    expect(statuses).toEqual([404, 404, 429, 429]);
    expect(await publicLookup({ "x-forwarded-for": `${client}, ${otherAddress()}` })).toBe(404);
    const seen = await fetch(`${base}/dashboard`, { headers: { "x-forwarded-for": `1.2.3.4, ${client}` } });
    expect(await seen.text()).toBe(client);
  });
});

// The row the API's keys are counted in is the one operators see.
it("a synced API key's count is in rate_limits under key:<id>", async () => {
  const slot = processSlot<SharedRateLimiter>("rate-limiter");
  await awayFromMinuteEdge();
  const { apiKey } = await seedMerchant();
  for (let i = 0; i < 3; i++) expect((await api("GET", "/api/v1/account", { apiKey })).status).toBe(200);
  await slot.value!.sync();
  const [row] = await db().execute<{ count: number }>(sql`
    select r.count from rate_limits r join api_keys k on r.key = 'key:' || k.id
    where k.key_hash = ${hashApiKey(apiKey)} and r.window_start = date_trunc('minute', now())`);
  expect(Number(row.count)).toBe(3);
});

describe("provider receivers: PROVIDER_CALLBACK_LIMIT_PER_MINUTE per client address", () => {
  let work = 0;
  beforeEach(async () => {
    const slot = processSlot<SharedRateLimiter>("rate-limiter");
    slot.value?.stop();
    slot.value = undefined;
    work = 0;
    process.env.PROVIDER_CALLBACK_LIMIT_PER_MINUTE = "3";
    resetEnvForTests();
    // What each receiver would ask its provider (a certificate, a signature check, a read-back), counted instead.
    overrideProvidersForTests({
      exchange: {
        name: BINANCE_PAY_PROVIDER,
        verifyNotification: async () => (work++, null),
      } as unknown as ExchangeWalletProvider,
      lightning: { name: OPENNODE_PROVIDER, verifyCallback: () => (work++, false) } as unknown as LightningProvider,
      pix: { name: "pix-test", readPayment: async () => (work++, null) } as unknown as PixProvider,
    });
    await awayFromMinuteEdge();
  });
  afterEach(() => {
    overrideProvidersForTests(undefined);
    process.env.PROVIDER_CALLBACK_LIMIT_PER_MINUTE = "100000";
    resetEnvForTests();
  });

  const e2eid = () => `E${randomUUID().replace(/-/g, "").slice(0, 31)}`;

  /** Waits (up to 5 s: a loaded machine) for the count to reach `n`, then a moment more to see it stays there. */
  async function settled(count: () => number, n: number) {
    for (let i = 0; i < 500 && count() < n; i++) await new Promise((res) => setTimeout(res, 10));
    await new Promise((res) => setTimeout(res, 100));
    expect(count()).toBe(n);
  }
  const receivers = [
    {
      name: "Binance Pay",
      path: "/api/v1/providers/binance-pay/webhook",
      body: () => ({ bizType: "PAY", data: "{}" }),
      admitted: 401,
    },
    {
      name: "OpenNode",
      path: "/api/v1/providers/opennode/webhook",
      body: () => ({ id: randomUUID(), hashed_order: "0".repeat(64) }),
      admitted: 401,
    },
    {
      name: "the PSP (PIX)",
      path: `/api/v1/providers/pix/${process.env.PIX_WEBHOOK_TOKEN}/pix`,
      body: () => ({ pix: [{ endToEndId: e2eid() }] }),
      admitted: 200,
    },
  ];

  for (const r of receivers) {
    it(`${r.name}: a flood from one address is 429 past the limit, with Retry-After, and asks the provider nothing more; another address is unaffected`, async () => {
      const ip = address();
      const statuses: number[] = [];
      let limited: Awaited<ReturnType<typeof api>> | undefined;
      for (let i = 0; i < 10; i++) {
        const res = await api("POST", r.path, { body: r.body(), headers: from(ip) });
        statuses.push(res.status);
        if (res.status === 429) limited ??= res;
      }
      expect(statuses).toEqual([r.admitted, r.admitted, r.admitted, ...Array(7).fill(429)]);
      expect(specOf(limited!.body)).toEqual({
        message: expect.stringContaining("Rate limit exceeded: at most 3 requests per minute"),
      });
      expect(Number(limited!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      // The PIX read-backs start after the answer: waited for, then checked to stop there.
      await settled(() => work, 3);
      expect((await api("POST", r.path, { body: r.body(), headers: from(otherAddress()) })).status).toBe(r.admitted);
      await settled(() => work, 4);
    });
  }
});
