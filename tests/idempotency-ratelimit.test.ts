import { afterEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { db } from "@/db";
import { idempotencyKeys, withdrawals } from "@/db/schema";
import { resetEnvForTests } from "@/lib/env";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/client-address";
import { api, seedMerchant, specOf } from "./helpers";

const WITHDRAW = "/api/v1/onchain/withdraw/initiate";
const body = { toAddress: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", value: 100, network: "polygon" };

describe("Idempotency-Key", () => {
  it("replays the stored response with Idempotent-Replayed: true, and pays once", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 1_000_00 });
    const headers = { "idempotency-key": "withdraw-1" };
    const first = await api("POST", WITHDRAW, { apiKey, body, headers });
    expect(first.status).toBe(200);
    const again = await api("POST", WITHDRAW, {
      apiKey,
      body: { network: "polygon", value: 100, toAddress: body.toAddress },
      headers,
    });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const rows = await db().select().from(withdrawals).where(eq(withdrawals.merchantId, merchant.id));
    expect(rows).toHaveLength(1);
    const account = await api("GET", "/api/v1/account", { apiKey });
    expect(account.body.merchant.balance).toBe(1_000_00 - (100_00 + 50 + 5));
  });

  it("never pays twice when both copies arrive at the same moment", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 1_000_00 });
    const headers = { "idempotency-key": "same-moment" };
    const results = await Promise.all(
      Array.from({ length: 10 }, () => api("POST", WITHDRAW, { apiKey, body, headers })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    const rows = await db().select().from(withdrawals).where(eq(withdrawals.merchantId, merchant.id));
    expect(rows).toHaveLength(1);
    const conflict = results.find((r) => r.status === 409);
    if (conflict) expect(conflict.body).toMatchObject({ message: expect.stringContaining("still being processed") });
  });

  it("answers 422 in the endpoint's shape when the key is reused with another body", async () => {
    const { apiKey } = await seedMerchant();
    const headers = { "idempotency-key": "k-422" };
    expect((await api("POST", "/api/v1/order/create", { apiKey, body: { value: 10 }, headers })).status).toBe(201);
    const other = await api("POST", "/api/v1/order/create", { apiKey, body: { value: 11 }, headers });
    expect(other.status).toBe(422);
    expect(specOf(other.body)).toEqual({ success: false, error: expect.stringContaining("different request body") });
  });

  it("does not store validation errors, so a corrected retry with the same key goes through", async () => {
    const { merchant, apiKey } = await seedMerchant();
    const headers = { "idempotency-key": "fix-me" };
    const bad = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: "ten" }, headers });
    expect(bad.status).toBe(400);
    const good = await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: 10 }, headers });
    expect(good.status).toBe(200);
    const stored = await db().select().from(idempotencyKeys).where(eq(idempotencyKeys.merchantId, merchant.id));
    expect(stored).toHaveLength(1);
    expect(stored[0].state).toBe("done");
  });

  it("does not store a domain refusal (insufficient balance): the same request runs again", async () => {
    const { merchant, apiKey } = await seedMerchant({ balanceCentavos: 10_00 });
    const headers = { "idempotency-key": "poor" };
    const first = await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value: 50_00 }, headers });
    expect(first.status).toBe(400);
    const again = await api("POST", "/api/v1/order/pix-out", { apiKey, body: { value: 50_00 }, headers });
    expect(again.status).toBe(400);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect(again.body).toEqual(first.body);
    expect(await db().select().from(idempotencyKeys).where(eq(idempotencyKeys.merchantId, merchant.id))).toEqual([]);
  });

  it("keys are per merchant: another merchant may use the same key", async () => {
    const a = await seedMerchant();
    const b = await seedMerchant();
    const headers = { "idempotency-key": "shared-name" };
    const ra = await api("POST", "/api/v1/order/create", { apiKey: a.apiKey, body: { value: 1 }, headers });
    const rb = await api("POST", "/api/v1/order/create", { apiKey: b.apiKey, body: { value: 2 }, headers });
    expect(rb.status).toBe(201);
    expect(rb.body.order.id).not.toBe(ra.body.order.id);
  });

  it("refuses an unusable key with a 400", async () => {
    const { apiKey } = await seedMerchant();
    const res = await api("POST", "/api/v1/order/create/pix", {
      apiKey,
      body: { value: 1 },
      headers: { "idempotency-key": "x".repeat(300) },
    });
    expect(res.status).toBe(400);
  });
});

// The limiter's own behaviour (windows, instances, addresses) is in tests/rate-limit.test.ts.
describe("rate limit", () => {
  afterEach(() => {
    process.env.RATE_LIMIT_PER_MINUTE = "100000";
    resetEnvForTests();
  });

  it("answers 429 with Retry-After past RATE_LIMIT_PER_MINUTE for one key, and not for another key", async () => {
    process.env.RATE_LIMIT_PER_MINUTE = "5";
    resetEnvForTests();
    const a = await seedMerchant();
    const b = await seedMerchant();
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await api("GET", "/api/v1/account", { apiKey: a.apiKey })).status);
    // The window is a calendar minute: if it turned over mid-test, at most the first run of 5 is reset.
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    const limited = await api("GET", "/api/v1/account", { apiKey: a.apiKey });
    if (limited.status === 429) {
      expect(specOf(limited.body)).toEqual({ message: expect.stringContaining("Rate limit exceeded") });
      const retryAfter = Number(limited.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
    }
    expect(statuses.includes(429) || limited.status === 429).toBe(true);
    expect((await api("GET", "/api/v1/account", { apiKey: b.apiKey })).status).toBe(200);
  });

  it("limits public routes per client address", async () => {
    process.env.RATE_LIMIT_PER_MINUTE = "3";
    resetEnvForTests();
    const headers = { [CLIENT_ADDRESS_HEADER]: `203.0.113.${Math.floor(Math.random() * 200)}` };
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await api("GET", "/api/v1/public/payments/nope", { headers })).status);
    expect(statuses).toContain(429);
    expect(statuses.filter((s) => s === 404).length).toBeLessThanOrEqual(6);
  });
});
