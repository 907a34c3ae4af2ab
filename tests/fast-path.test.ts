import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dispatchApi, isApiPath } from "@/lib/api/serve";
import { api, seedMerchant } from "./helpers";

// The production server sends /api/v1 straight to the route table over node:http. These requests go
// through that bridge for real and must answer exactly as the handlers do when called directly.

let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    // As scripts/start.ts does: the fast path owns /api/v1, anything else would go to Next.
    if (isApiPath(req.url ?? "/")) void dispatchApi(req, res, "http://127.0.0.1");
    else res.writeHead(418).end("not api");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

async function overHttp(
  method: string,
  path: string,
  opts: { apiKey?: string; body?: string; headers?: Record<string, string> } = {},
) {
  const res = await fetch(base + path, {
    method,
    headers: {
      ...(opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {}),
      ...(opts.body ? { "content-type": "application/json" } : {}),
      ...opts.headers,
    },
    body: opts.body,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

describe("the /api/v1 fast path over node:http", () => {
  it("answers like the handler for success and error cases, with the same shapes", async () => {
    const { apiKey } = await seedMerchant();
    const cases: [string, string, string | undefined][] = [
      ["POST", "/api/v1/order/create", '{"value": 0}'],
      ["POST", "/api/v1/order/create/pix", "{oops"],
      ["POST", "/api/v1/onchain/deposit", '{"value": 10, "asset": "USDT", "network": "tron"}'],
      ["GET", "/api/v1/order/does-not-exist", undefined],
      ["GET", "/api/v1/onchain/order/does-not-exist", undefined],
      ["GET", "/api/v1/nothing/here", undefined],
    ];
    for (const [method, path, body] of cases) {
      const viaHttp = await overHttp(method, path, { apiKey, body });
      const direct = await api(method, path, { apiKey, rawBody: body });
      expect({ path, status: viaHttp.status, body: viaHttp.body }).toEqual({
        path,
        status: direct.status,
        body: direct.body,
      });
    }
    const created = await overHttp("POST", "/api/v1/order/create/lightning", { apiKey, body: '{"value": 5}' });
    expect(created.status).toBe(201);
    const lookup = await overHttp("GET", `/api/v1/order/${created.body.order.id}`, { apiKey });
    expect(lookup.body.order.invoice).toBe(created.body.order.invoice);
    expect(lookup.headers.get("x-request-id")).toMatch(/^req_/);
  });

  it("accepts the Bearer: header form, refuses a missing key with 401, and a >64 KiB body with 413", async () => {
    const { apiKey } = await seedMerchant();
    expect((await overHttp("GET", "/api/v1/account", { headers: { bearer: apiKey } })).status).toBe(200);
    expect((await overHttp("GET", "/api/v1/account")).status).toBe(401);
    const big = JSON.stringify({ value: 1, name: "x".repeat(70_000) });
    const res = await overHttp("POST", "/api/v1/order/create/pix", { apiKey, body: big });
    expect(res.status).toBe(413);
    expect(res.body.message).toContain("larger than");
  });

  it("answers a wrong method with a JSON 405 and an Allow header; leaves other paths to Next", async () => {
    const res = await overHttp("DELETE", "/api/v1/account");
    expect(res.status).toBe(405);
    // HEAD and OPTIONS exist wherever GET does (the router answers them), so Allow names them.
    expect(res.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
    expect(res.body.message).toContain("not allowed");
    const page = await fetch(base + "/dashboard");
    expect(page.status).toBe(418);
  });

  it("answers HEAD with GET's status and headers and no body, and OPTIONS with 204 and Allow", async () => {
    const { apiKey } = await seedMerchant();
    const headers = { authorization: `Bearer ${apiKey}` };
    const get = await fetch(base + "/api/v1/account", { headers });
    const head = await fetch(base + "/api/v1/account", { method: "HEAD", headers });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    expect(head.headers.get("content-length")).toBe(get.headers.get("content-length"));
    expect(head.headers.get("content-type")).toBe(get.headers.get("content-type"));
    const options = await fetch(base + "/api/v1/webhooks", { method: "OPTIONS" });
    expect(options.status).toBe(204);
    expect(options.headers.get("allow")).toBe("POST, GET, HEAD, OPTIONS");
  });

  it("serves the QR PNG with its bytes intact", async () => {
    const { apiKey } = await seedMerchant();
    const created = await overHttp("POST", "/api/v1/order/create", { apiKey, body: '{"value": 3}' });
    const png = await fetch(new URL(new URL(created.body.order.qrCodeLink).pathname, base));
    const bytes = Buffer.from(await png.arrayBuffer());
    expect(png.headers.get("content-type")).toBe("image/png");
    expect(bytes.subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
    expect(Number(png.headers.get("content-length"))).toBe(bytes.length);
  });
});
