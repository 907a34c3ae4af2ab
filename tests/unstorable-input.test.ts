import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { getOrderDetail } from "@/lib/dashboard/server/order-detail";
import { dashboardOrdersQuery, listDashboardOrders } from "@/lib/dashboard/server/orders";
import { api, seedMerchant, specOf } from "./helpers";

// Input PostgreSQL cannot store (NUL, lone surrogates), impossible dates and cursors: each was a 500
// before it was refused at the request boundary (lib/http/validation.ts refuseUnstorableText).

const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
const UUID = "7d9f0335-8dcc-4054-9bf9-0dbd61d36906";

describe("input PostgreSQL cannot store is a 400 in the endpoint's shape", () => {
  it("GET /api/v1/orders?q=%00 → 400 naming q", async () => {
    const { apiKey } = await seedMerchant();
    for (const q of ["%00", "a%00b", "%ED%A0%80"]) {
      const res = await api("GET", `/api/v1/orders?q=${q}`, { apiKey });
      if (q === "%ED%A0%80") {
        // Not UTF-8: the URL parser reads it as U+FFFD, which is storable and matches nothing.
        expect(res.status).toBe(200);
        continue;
      }
      expect(res.status).toBe(400);
      expect(specOf(res.body)).toEqual({
        message: "Invalid request: q: must not contain NUL characters or unpaired UTF-16 surrogates",
      });
    }
  });

  it('POST /api/v1/order/create/pix → 400 when "name" holds a lone surrogate or NUL, and nothing is created', async () => {
    const { apiKey } = await seedMerchant();
    for (const raw of [
      '{"value": 10, "name": "\\ud800abc"}',
      '{"value": 10, "name": "a\\u0000b"}',
      '{"value": 10, "\\udc00": 1}',
    ]) {
      const res = await api("POST", "/api/v1/order/create/pix", {
        apiKey,
        rawBody: raw,
        headers: { "idempotency-key": `bad-${raw.length}` },
      });
      expect(res.status, raw).toBe(400);
      expect(res.body.message).toMatch(/^Invalid request: (name|\(a field name\)): must not contain NUL/);
    }
    const list = await api("GET", "/api/v1/orders", { apiKey });
    expect(list.body.orders).toHaveLength(0);
  });

  it("a surrogate pair (an emoji) is fine", async () => {
    const { apiKey } = await seedMerchant();
    const res = await api("POST", "/api/v1/order/create/pix", {
      apiKey,
      rawBody: '{"value": 10, "name": "Jo\\u00e3o \\ud83d\\ude00"}',
    });
    expect(res.status).toBe(200);
  });

  it("a path id holding NUL or a lone surrogate answers exactly as an unknown id", async () => {
    const { apiKey } = await seedMerchant();
    const unknown = await api("GET", `/api/v1/order/${UUID}`, { apiKey });
    expect(unknown).toMatchObject({ status: 404, body: { success: false, error: "Order not found" } });
    for (const id of ["a%00b", "%00", "%ED%A0%80", UUID + "%00"]) {
      const res = await api("GET", `/api/v1/order/${id}`, { apiKey });
      expect(res.status, id).toBe(404);
      expect(res.body).toEqual(unknown.body);
    }
    const refund = await api("POST", "/api/v1/order/a%00b/refund", { apiKey, body: {} });
    expect(refund.status).toBe(404);
  });

  it("GET /api/v1/orders: cursors dated year 0, year 275760, Feb 31, or holding huge numbers → 400", async () => {
    const { apiKey } = await seedMerchant();
    const cursors = [
      b64url({ at: "0000-01-01T00:00:00.000Z", id: UUID }),
      b64url({ at: "+275760-09-13T00:00:00.000Z", id: UUID }),
      b64url({ at: "2024-02-31T00:00:00.000Z", id: UUID }),
      b64url({ at: 1e400, id: UUID }),
      b64url({ at: "2024-01-01T00:00:00.000Z", id: 18446744073709551616 }),
      "9".repeat(200),
      "%00",
    ];
    for (const cursor of cursors) {
      const res = await api("GET", `/api/v1/orders?cursor=${cursor}`, { apiKey });
      expect(res.status, cursor).toBe(400);
      expect(Object.keys(specOf(res.body) as object)).toEqual(["message"]);
    }
    for (const limit of ["1e400", "18446744073709551616", "-1", "NaN"]) {
      expect((await api("GET", `/api/v1/orders?limit=${limit}`, { apiKey })).status).toBe(400);
    }
  });
});

describe("dashboard: the order list's query string and the order page's id", () => {
  const wild = fc.oneof(
    fc.constantFrom(
      "2024-02-31",
      "0000-01-01",
      "99999-01-01",
      "2024-13-01",
      "-2024-01-01",
      "2024-02-29",
      "\u0000",
      "a\u0000b",
      "\ud800abc",
      "9".repeat(30),
      "1e400",
      "-1",
      "NaN",
    ),
    fc.string({ unit: "binary", maxLength: 20 }),
    fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
  );

  it("any from, to, q, kind, status, page and limit: the page loads (malformed filters are dropped)", async () => {
    const { merchant, apiKey } = await seedMerchant();
    await api("POST", "/api/v1/order/create/pix", { apiKey, body: { value: 10 } });
    const names = fc.constantFrom("from", "to", "q", "kind", "status", "page", "limit", "\u0000");
    await fc.assert(
      fc.asyncProperty(fc.dictionary(names, wild, { maxKeys: 5 }), async (params) => {
        const result = await listDashboardOrders(merchant.id, dashboardOrdersQuery.parse(params));
        expect(result.page).toBeGreaterThanOrEqual(1);
      }),
      { numRuns: 300, seed: 20261124 },
    );
  });

  it("the cases that were 500s: from=2024-02-31, from=0000-01-01, q=NUL", async () => {
    expect(dashboardOrdersQuery.parse({ from: "2024-02-31", to: "0000-01-01", q: "\u0000" })).toEqual({
      page: 1,
      limit: 20,
    });
    expect(dashboardOrdersQuery.parse({ from: "2024-02-29", q: " abc " })).toMatchObject({
      from: "2024-02-29",
      q: "abc",
    });
  });

  it("an order page for any id is the order or not found, never an error", async () => {
    const { merchant } = await seedMerchant();
    await fc.assert(
      fc.asyncProperty(fc.oneof(wild, fc.uuid().map(String)), async (id) => {
        expect(await getOrderDetail(merchant.id, id)).toBeNull();
      }),
      { numRuns: 100, seed: 20261124 },
    );
  });
});
