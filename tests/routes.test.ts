import { describe, expect, it } from "vitest";
import * as nextRoute from "@/app/api/v1/[[...slug]]/route";
import { API_ENDPOINTS, apiRouter } from "@/lib/api/endpoints";
import { serveApiRequest } from "@/lib/api/serve";
import { defineEndpoint } from "@/lib/http/endpoint";
import { messageBody } from "@/lib/http/error-body";
import { createRouter } from "@/lib/http/router";
import { SECURITY_HEADERS } from "@/lib/http/security-headers";
import { createExchangeOrderEndpoint, getOrderEndpoint } from "@/lib/orders/endpoints";
import { anyone } from "@/lib/identity/api-keys/callers";
import { api, BASE, seedMerchant, specOf } from "./helpers";

describe("the /api/v1 router", () => {
  it("is what Next's catch-all route serves, for every method", () => {
    expect(Object.keys(nextRoute).sort()).toEqual(["DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT"]);
    for (const handler of Object.values(nextRoute)) expect(handler).toBe(serveApiRequest);
  });

  it("prefers static segments over parameters", () => {
    const m = apiRouter.match("POST", "/api/v1/order/create");
    expect(m && "endpoint" in m && m.endpoint).toBe(createExchangeOrderEndpoint);
    const g = apiRouter.match("GET", "/api/v1/order/abc%20d");
    expect(g && "endpoint" in g && g.endpoint).toBe(getOrderEndpoint);
    expect(g && "params" in g && g.params).toEqual({ id: "abc d" });
  });

  it("refuses two declarations of one method and path", () => {
    const e = (path: string) =>
      defineEndpoint({
        method: "GET",
        path,
        caller: anyone,
        errorBody: messageBody,
        response: { status: 204, description: "" },
        docs: { summary: "", description: "", tag: "Meta" },
        handle: async () => new Response(null, { status: 204 }),
      });
    expect(() => createRouter([e("/api/v1/x"), e("/api/v1/x")])).toThrow(
      /Two endpoints are declared as GET \/api\/v1\/x/,
    );
    expect(API_ENDPOINTS.length).toBeGreaterThan(25);
  });

  it("answers an unknown path with a JSON 404, a request id and the security headers", async () => {
    const res = await api("GET", "/api/v1/nope/nothing");
    expect(res.status).toBe(404);
    expect(specOf(res.body)).toEqual({ message: "Not found: GET /api/v1/nope/nothing" });
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(res.headers.get(name)).toBe(value);
  });

  it("answers a wrong method with a JSON 405 naming every method the path has", async () => {
    const res = await api("DELETE", "/api/v1/account");
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    expect(specOf(res.body)).toEqual({ message: "Method DELETE not allowed on /api/v1/account" });
    const webhooks = await api("PUT", "/api/v1/webhooks");
    expect(webhooks.headers.get("allow")).toBe("POST, GET, HEAD, OPTIONS");
  });

  it("answers OPTIONS with 204 and Allow, and HEAD with GET's status and headers", async () => {
    const options = await apiRouter.handle(new Request(`${BASE}/api/v1/order/abc`, { method: "OPTIONS" }));
    expect(options.status).toBe(204);
    expect(options.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    expect(options.headers.get("x-frame-options")).toBe("DENY");
    const { apiKey } = await seedMerchant();
    const headers = { authorization: `Bearer ${apiKey}` };
    const get = await apiRouter.handle(new Request(`${BASE}/api/v1/account`, { headers }));
    const head = await apiRouter.handle(new Request(`${BASE}/api/v1/account`, { method: "HEAD", headers }));
    expect(head.status).toBe(200);
    const names = (r: Response) => [...r.headers.keys()].sort();
    expect(names(head)).toEqual(names(get));
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(get.headers.get(name)).toBe(value);
  });
});

describe("routing every declared endpoint", () => {
  it("finds each endpoint by its own path, with every parameter named", () => {
    for (const e of API_ENDPOINTS) {
      const names = [...e.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const path = e.path.replace(/\{([^}]+)\}/g, (_, name: string) => `v-${name}`);
      const m = apiRouter.match(e.method, path);
      expect(m && "endpoint" in m && m.endpoint, `${e.method} ${e.path}`).toBe(e);
      expect(m && "params" in m && m.params).toEqual(Object.fromEntries(names.map((n) => [n, `v-${n}`])));
      expect(apiRouter.match(e.method, `${path}/`), `${e.method} ${e.path}/`).toBeNull();
    }
  });
});
