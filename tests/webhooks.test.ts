import { afterEach, describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { db, getPool } from "@/db";
import { events, webhookDeliveries, webhookEndpoints } from "@/db/schema";
import { resetEnvForTests } from "@/lib/env";
import { recordEvent } from "@/lib/events/outbox";
import { SANDBOX_DEPOSIT_XPUB } from "@/lib/chain/sandbox-keys";
import { MAX_ENDPOINTS_PER_MERCHANT } from "@/lib/webhooks/registry";
import { openSecret } from "@/lib/webhooks/secrets";
import { api, seedMerchant, specOf } from "./helpers";
import { liveMerchant } from "./support/merchants";

const HOOKS = "/api/v1/webhooks";

const createHook = (apiKey: string | undefined, body: unknown) => api("POST", HOOKS, { apiKey, body });

/** An event in its own transaction, as any state change writes one. */
async function emit(merchantId: string, subjectId = crypto.randomUUID(), data: Record<string, unknown> = {}) {
  await db().transaction((tx) =>
    recordEvent(tx, { merchantId, type: "order.status_changed", subjectType: "order", subjectId, data }),
  );
}

async function listAll(apiKey: string, limit: number) {
  const seen: { id: string }[] = [];
  let after: string | null = null;
  for (let page = 0; page < 100; page++) {
    const res = await api("GET", `/api/v1/events?limit=${limit}${after ? `&after=${after}` : ""}`, { apiKey });
    expect(res.status).toBe(200);
    seen.push(...res.body.events);
    after = res.body.nextCursor;
    if (!res.body.hasMore) break;
  }
  return { seen, after };
}

describe("POST /api/v1/webhooks", () => {
  it("→ 201 { webhook: { id, url, description, secret, createdAt } } with a whsec_ secret shown once", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const res = await createHook(apiKey, { url: "https://shop.example.com/hooks?src=pix", description: "Orders" });
    expect(res.status).toBe(201);
    const w = res.body.webhook;
    expect(w).toMatchObject({
      url: "https://shop.example.com/hooks?src=pix",
      description: "Orders",
      status: "enabled",
      disabledAt: null,
    });
    expect(w.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(w.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(w.secret.slice(6), "base64").length).toBeGreaterThanOrEqual(24);
    expect(new Date(w.createdAt).toISOString()).toBe(w.createdAt);

    const list = await api("GET", HOOKS, { apiKey });
    expect(list.status).toBe(200);
    expect(list.body.webhooks).toEqual([
      { id: w.id, url: w.url, description: "Orders", status: "enabled", disabledAt: null, createdAt: w.createdAt },
    ]);
    expect(JSON.stringify(list.body)).not.toContain("whsec_");
    // Stored sealed (docs/webhooks.md): the database never holds the secret the merchant was shown.
    const [row] = await db().select().from(webhookEndpoints).where(eq(webhookEndpoints.id, w.id));
    expect(row.merchantId).toBe(merchant.id);
    expect(row.secret).toMatch(/^v1\./);
    expect(row.secret).not.toContain(w.secret.slice(6));
    expect(openSecret(row.secret)).toBe(w.secret);
  });

  it("→ 201 for http URLs and private addresses in sandbox (local development); description is optional", async () => {
    const { apiKey } = await seedMerchant();
    const res = await createHook(apiKey, { url: "http://127.0.0.1:8080/webhooks" });
    expect(res.status).toBe(201);
    expect(res.body.webhook.description).toBeNull();
  });

  it.each([
    ["no url", {}, "url: is required"],
    ["a number", { url: 42 }, "url: must be a string"],
    ["a relative URL", { url: "/hooks" }, "url: must be an absolute URL"],
    ["ftp", { url: "ftp://example.com/x" }, "url: must use http or https"],
    ["javascript:", { url: "javascript:alert(1)" }, "url: must use http or https"],
    ["credentials", { url: "https://user:pass@example.com/hooks" }, "url: must not contain credentials"],
    ["a fragment", { url: "https://example.com/hooks#x" }, "url: must not contain a fragment"],
    ["an over-long URL", { url: `https://example.com/${"a".repeat(2100)}` }, "url: must be at most 2048 characters"],
    [
      "an over-long description",
      { url: "https://example.com/h", description: "d".repeat(201) },
      "description: must be at most 200 characters",
    ],
  ])("→ 400 { message } for %s", async (_label, body, message) => {
    const { apiKey } = await seedMerchant();
    const res = await createHook(apiKey, body);
    expect(res.status).toBe(400);
    expect(specOf(res.body)).toEqual({ message: expect.stringContaining(message) });
  });

  it("→ 400 on malformed JSON or a non-object body, 401 { message } without a key", async () => {
    const { apiKey } = await seedMerchant();
    expect(specOf((await api("POST", HOOKS, { apiKey, rawBody: "{url:" })).body)).toEqual({
      message: "Malformed JSON body",
    });
    const arr = await api("POST", HOOKS, { apiKey, body: ["https://example.com"] });
    expect(arr.status).toBe(400);
    expect(specOf(arr.body)).toEqual({ message: expect.stringContaining("JSON object") });
    const anon = await createHook(undefined, { url: "https://example.com/h" });
    expect(anon.status).toBe(401);
    expect(specOf(anon.body)).toEqual({ message: expect.any(String) });
    expect((await api("GET", HOOKS)).status).toBe(401);
  });

  it(`→ 400 past ${MAX_ENDPOINTS_PER_MERCHANT} endpoints; a deleted one frees its place`, async () => {
    const { apiKey } = await seedMerchant();
    let first = "";
    for (let i = 0; i < MAX_ENDPOINTS_PER_MERCHANT; i++) {
      const r = await createHook(apiKey, { url: `https://example.com/h${i}` });
      expect(r.status).toBe(201);
      first ||= r.body.webhook.id;
    }
    const over = await createHook(apiKey, { url: "https://example.com/one-more" });
    expect(over.status).toBe(400);
    expect(over.body.message).toContain(`at most ${MAX_ENDPOINTS_PER_MERCHANT}`);
    expect((await api("DELETE", `${HOOKS}/${first}`, { apiKey })).status).toBe(204);
    expect((await createHook(apiKey, { url: "https://example.com/one-more" })).status).toBe(201);
  });
});

describe("webhook URLs in live mode (SSRF guard at registration)", () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const k of ["PAYMENTS_MODE", "AUTH_SECRET", "DEPOSIT_XPUB", "WEBHOOK_ALLOW_PRIVATE", "PUBLIC_BASE_URL"]) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
    resetEnvForTests();
  });

  /** A merchant's live key, with the server switched to live mode. */
  async function liveKey() {
    const { apiKey } = await liveMerchant();
    process.env.PAYMENTS_MODE = "live";
    process.env.AUTH_SECRET = "x".repeat(40);
    process.env.DEPOSIT_XPUB = SANDBOX_DEPOSIT_XPUB;
    process.env.PUBLIC_BASE_URL = "https://pay.example.com";
    resetEnvForTests();
    return apiKey;
  }

  it.each([
    ["http", "http://93.184.216.34/hooks", "must use https in live mode"],
    ["loopback", "https://127.0.0.1/hooks", "127.0.0.1 is a loopback address"],
    ["a name resolving to loopback", "https://localhost:8443/hooks", "localhost resolves to"],
    ["IPv6 loopback", "https://[::1]/hooks", "::1 is a loopback address"],
    ["IPv4-mapped IPv6 loopback", "https://[::ffff:127.0.0.1]/hooks", "is a loopback address"],
    ["10/8", "https://10.1.2.3/hooks", "a private address"],
    ["172.16/12", "https://172.20.0.1/hooks", "a private address"],
    ["192.168/16", "https://192.168.0.10/hooks", "a private address"],
    ["CGNAT", "https://100.64.0.1/hooks", "a cgnat address"],
    ["link-local", "https://169.254.10.10/hooks", "a link-local address"],
    ["cloud metadata", "https://169.254.169.254/latest/meta-data", "a metadata address"],
    ["IPv6 metadata", "https://[fd00:ec2::254]/", "a metadata address"],
    ["unique-local", "https://[fd12::1]/hooks", "a unique-local address"],
    ["IPv6 link-local", "https://[fe80::1]/hooks", "a link-local address"],
    ["unspecified", "https://0.0.0.0/hooks", "0.0.0.0 is an unspecified address"],
    ["decimal IPv4 spelling", "https://2130706433/hooks", "127.0.0.1 is a loopback address"],
    ["multicast", "https://224.0.0.1/hooks", "a multicast address"],
  ])("→ 400 { message } for %s", async (_label, url, message) => {
    const apiKey = await liveKey();
    const res = await createHook(apiKey, { url });
    expect(res.status).toBe(400);
    expect(specOf(res.body)).toEqual({ message: expect.stringContaining(message) });
  });

  it("→ 201 for a public https address; WEBHOOK_ALLOW_PRIVATE=true lifts the guard (not the https rule)", async () => {
    const apiKey = await liveKey();
    expect((await createHook(apiKey, { url: "https://93.184.216.34/hooks" })).status).toBe(201);
    process.env.WEBHOOK_ALLOW_PRIVATE = "true";
    resetEnvForTests();
    expect((await createHook(apiKey, { url: "https://127.0.0.1:8443/hooks" })).status).toBe(201);
    expect((await createHook(apiKey, { url: "http://127.0.0.1:8080/hooks" })).status).toBe(400);
  });
});

describe("DELETE /api/v1/webhooks/{id}", () => {
  it("→ 204, soft-deletes, cancels pending deliveries, and later events are not fanned out to it", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const created = await createHook(apiKey, { url: "http://127.0.0.1:9/never" });
    const id = created.body.webhook.id as string;
    await emit(merchant.id);
    const [pending] = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, id));
    expect(pending).toMatchObject({ status: "pending", attempts: 0, merchantId: merchant.id });

    const del = await api("DELETE", `${HOOKS}/${id}`, { apiKey });
    expect(del.status).toBe(204);
    expect(del.body).toBeNull();
    const [row] = await db().select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
    expect(row.deletedAt).toBeInstanceOf(Date);
    const [cancelled] = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.id, pending.id));
    expect(cancelled).toMatchObject({ status: "cancelled", nextAttemptAt: null });
    expect((await api("GET", HOOKS, { apiKey })).body.webhooks).toEqual([]);

    await emit(merchant.id);
    expect(await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, id))).toHaveLength(1);
    // Deleting twice, or reading its deliveries, is a 404.
    expect((await api("DELETE", `${HOOKS}/${id}`, { apiKey })).status).toBe(404);
    expect((await api("GET", `${HOOKS}/${id}/deliveries`, { apiKey })).status).toBe(404);
  });

  it("→ 404 { message } for an unknown id, a malformed id, and another merchant's webhook", async () => {
    const a = await seedMerchant();
    const b = await seedMerchant();
    const theirs = (await createHook(b.apiKey, { url: "https://example.com/b" })).body.webhook.id;
    for (const id of [crypto.randomUUID(), "not-a-uuid", "%00", theirs]) {
      const res = await api("DELETE", `${HOOKS}/${encodeURIComponent(id)}`, { apiKey: a.apiKey });
      expect(res.status).toBe(404);
      expect(specOf(res.body)).toEqual({ message: "Webhook not found" });
    }
    expect((await api("GET", HOOKS, { apiKey: b.apiKey })).body.webhooks).toHaveLength(1);
  });
});

describe("fan-out in recordEvent's transaction", () => {
  it("one pending delivery per active endpoint, due now, with the event's seq and subject; a rollback leaves neither", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const other = await seedMerchant();
    const h1 = (await createHook(apiKey, { url: "http://127.0.0.1:9/a" })).body.webhook.id;
    const h2 = (await createHook(apiKey, { url: "http://127.0.0.1:9/b" })).body.webhook.id;
    await createHook(other.apiKey, { url: "http://127.0.0.1:9/other" });
    const subject = crypto.randomUUID();
    await emit(merchant.id, subject);
    const [event] = await db().select().from(events).where(eq(events.subjectId, subject));
    const rows = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, event.id));
    expect(rows.map((r) => r.endpointId).sort()).toEqual([h1, h2].sort());
    for (const r of rows) {
      expect(r).toMatchObject({
        status: "pending",
        attempts: 0,
        eventSeq: event.seq,
        subjectId: subject,
        merchantId: merchant.id,
        redeliveryOf: null,
      });
      expect(r.nextAttemptAt!.getTime()).toBeLessThanOrEqual(Date.now());
    }

    const rolledBack = crypto.randomUUID();
    await expect(
      db().transaction(async (tx) => {
        await recordEvent(tx, {
          merchantId: merchant.id,
          type: "order.status_changed",
          subjectType: "order",
          subjectId: rolledBack,
          data: {},
        });
        throw new Error("the change failed");
      }),
    ).rejects.toThrow("the change failed");
    expect(await db().select().from(events).where(eq(events.subjectId, rolledBack))).toEqual([]);
    expect(await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.subjectId, rolledBack))).toEqual([]);
  });
});

describe("GET /api/v1/events", () => {
  it("lists the merchant's events oldest first as { id, type, createdAt, data }, paging every event exactly once", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const other = await seedMerchant();
    for (let i = 0; i < 12; i++) {
      await emit(merchant.id, `subject-${i}`, { n: i });
      if (i % 3 === 0) await emit(other.merchant.id);
    }
    const { seen } = await listAll(apiKey, 5);
    expect(seen.map((e: any) => e.data.n)).toEqual([...Array(12).keys()]);
    const rows = await db().select().from(events).where(eq(events.merchantId, merchant.id));
    const first = rows.find((r) => r.data.n === 0)!;
    expect(seen[0]).toEqual({
      id: first.id,
      type: "order.status_changed",
      createdAt: first.createdAt.toISOString(),
      data: { n: 0 },
    });
  });

  it("an empty list has nextCursor null; polling from the last cursor returns only what is new", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const empty = await api("GET", "/api/v1/events", { apiKey });
    expect(empty.body).toEqual({ events: [], nextCursor: null, hasMore: false });
    await emit(merchant.id, "s", { n: 1 });
    const one = await api("GET", "/api/v1/events", { apiKey });
    expect(one.body.events).toHaveLength(1);
    const again = await api("GET", `/api/v1/events?after=${one.body.nextCursor}`, { apiKey });
    expect(again.body).toEqual({ events: [], nextCursor: one.body.nextCursor, hasMore: false });
    await emit(merchant.id, "s", { n: 2 });
    const next = await api("GET", `/api/v1/events?after=${again.body.nextCursor}`, { apiKey });
    expect(next.body.events.map((e: any) => e.data.n)).toEqual([2]);
  });

  it("never skips an event whose transaction committed late (seq taken earlier, committed after a later one was listed)", async () => {
    const { merchant, apiKey } = await seedMerchant();
    await emit(merchant.id, "before", { n: "before" });
    const first = await api("GET", "/api/v1/events", { apiKey });
    expect(first.body.events.map((e: any) => e.data.n)).toEqual(["before"]);

    // A transaction takes its seq now and stays open.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let inserted!: () => void;
    const hasInserted = new Promise<void>((r) => (inserted = r));
    const late = getPool().sql.begin(async (tx) => {
      await tx`insert into events (merchant_id, type, subject_type, subject_id, data)
               values (${merchant.id}, 'order.status_changed', 'order', 'late', ${JSON.stringify({ n: "late" })}::jsonb)`;
      inserted();
      await held;
    });
    await hasInserted;
    // Another commits meanwhile, with a later seq, and is listed.
    await emit(merchant.id, "early", { n: "early" });
    const mid = await api("GET", `/api/v1/events?after=${first.body.nextCursor}`, { apiKey });
    expect(mid.body.events.map((e: any) => e.data.n)).toEqual(["early"]);

    release();
    await late;
    const after = await api("GET", `/api/v1/events?after=${mid.body.nextCursor}`, { apiKey });
    expect(after.body.events.map((e: any) => e.data.n)).toEqual(["late"]);
    const seqs = await db()
      .select({ n: sql<string>`data->>'n'`, seq: events.seq })
      .from(events)
      .where(eq(events.merchantId, merchant.id));
    const seqOf = (n: string) => seqs.find((s) => s.n === n)!.seq;
    expect(seqOf("late")).toBeLessThan(seqOf("early"));
    // From the start, everything once.
    expect((await listAll(apiKey, 2)).seen.map((e: any) => e.data.n)).toEqual(["before", "early", "late"]);
  });

  it.each([
    ["limit=0", "limit: must be at least 1"],
    ["limit=101", "limit: must be at most 100"],
    ["limit=abc", "limit: must be a number"],
    ["limit=1.5", "limit: must be a whole number"],
    ["after=not-a-cursor", "after: is not a valid cursor"],
    [`after=${Buffer.from('{"p":-1}').toString("base64url")}`, "after: is not a valid cursor"],
  ])("→ 400 { message } for %s", async (q, message) => {
    const { apiKey } = await seedMerchant();
    const res = await api("GET", `/api/v1/events?${q}`, { apiKey });
    expect(res.status).toBe(400);
    expect(specOf(res.body)).toEqual({ message: expect.stringContaining(message) });
  });

  it("→ 401 { message } without a key", async () => {
    const res = await api("GET", "/api/v1/events");
    expect(res.status).toBe(401);
    expect(specOf(res.body)).toEqual({ message: expect.any(String) });
  });
});

describe("GET /api/v1/webhooks/{id}/deliveries", () => {
  it("lists deliveries newest first with eventType and an empty attemptsLog before any attempt; pages with a cursor; filters by status", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const id = (await createHook(apiKey, { url: "http://127.0.0.1:9/x" })).body.webhook.id;
    for (let i = 0; i < 3; i++) await emit(merchant.id);
    const page1 = await api("GET", `${HOOKS}/${id}/deliveries?limit=2`, { apiKey });
    expect(page1.status).toBe(200);
    expect(page1.body.deliveries).toHaveLength(2);
    expect(page1.body.deliveries[0]).toMatchObject({
      eventType: "order.status_changed",
      status: "pending",
      attempts: 0,
      lastStatusCode: null,
      lastError: null,
      redeliveryOf: null,
      attemptsLog: [],
    });
    const page2 = await api("GET", `${HOOKS}/${id}/deliveries?limit=2&cursor=${page1.body.nextCursor}`, { apiKey });
    expect(page2.body.deliveries).toHaveLength(1);
    expect(page2.body.nextCursor).toBeNull();
    const all = [...page1.body.deliveries, ...page2.body.deliveries];
    expect(new Set(all.map((d: any) => d.id)).size).toBe(3);
    expect((await api("GET", `${HOOKS}/${id}/deliveries?status=succeeded`, { apiKey })).body.deliveries).toEqual([]);
    const bad = await api("GET", `${HOOKS}/${id}/deliveries?status=nope`, { apiKey });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain("status: must be one of pending, succeeded, failed, cancelled");
  });

  it("→ 404 { message } for another merchant's webhook or delivery (redeliver included)", async () => {
    const a = await seedMerchant();
    const b = await seedMerchant();
    const hb = (await createHook(b.apiKey, { url: "http://127.0.0.1:9/b" })).body.webhook.id;
    const ha = (await createHook(a.apiKey, { url: "http://127.0.0.1:9/a" })).body.webhook.id;
    await emit(b.merchant.id);
    const [d] = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, hb));
    expect((await api("GET", `${HOOKS}/${hb}/deliveries`, { apiKey: a.apiKey })).status).toBe(404);
    for (const path of [
      `${HOOKS}/${hb}/deliveries/${d.id}/redeliver`,
      `${HOOKS}/${ha}/deliveries/${d.id}/redeliver`,
      `${HOOKS}/${ha}/deliveries/nope/redeliver`,
    ]) {
      const res = await api("POST", path, { apiKey: a.apiKey });
      expect(res.status).toBe(404);
      expect(specOf(res.body)).toEqual({ message: expect.stringMatching(/not found/) });
    }
  });
});
