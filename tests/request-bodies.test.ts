import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiRouter, openApiJson } from "@/lib/api/endpoints";
import { dispatchApi, isApiPath } from "@/lib/api/serve";
import { resetEnvForTests } from "@/lib/env";
import { api, BASE, seedMerchant } from "./helpers";

// Request bodies at the door (docs/api.md#error-bodies): a Content-Type that is present and not JSON is a
// 415 in the endpoint's own error body (an absent one is read as JSON); bytes that are not UTF-8 are a
// 400; and reading the body counts against the request deadline, so a body shorter than its
// Content-Length is answered 408 within REQUEST_DEADLINE_MS. Driven through the router both serving
// paths use, and through the production fast path over node:http with a raw socket.

const DEADLINE_MS = 2000;
let server: http.Server;
let port: number;
let apiKey: string;

beforeAll(async () => {
  process.env.REQUEST_DEADLINE_MS = String(DEADLINE_MS);
  resetEnvForTests();
  ({ apiKey } = await seedMerchant({ balanceCentavos: 10_000_00 }));
  server = http.createServer((req, res) => {
    if (isApiPath(req.url ?? "/")) void dispatchApi(req, res, "http://127.0.0.1");
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  delete process.env.REQUEST_DEADLINE_MS;
  resetEnvForTests();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

/** A request through the router with exactly these headers (no Content-Type unless given). */
async function send(path: string, body: string | Uint8Array | ReadableStream<Uint8Array>, contentType?: string) {
  const headers = new Headers({ authorization: `Bearer ${apiKey}` });
  if (contentType !== undefined) headers.set("content-type", contentType);
  const res = await apiRouter.handle(
    new Request(BASE + path, {
      method: "POST",
      headers,
      body: body as BodyInit,
      ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
    }),
  );
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

/** Raw bytes over a socket to the fast path: the answer's status line, headers and body, and how long it took. */
function rawRequest(head: string, bodyPart: Buffer | string): Promise<{ ms: number; text: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = net.connect(port, "127.0.0.1", () => {
      socket.write(head);
      socket.write(bodyPart);
    });
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => (text += d));
    socket.on("end", () => resolve({ ms: performance.now() - started, text }));
    socket.on("error", reject);
    socket.setTimeout(30_000, () => {
      socket.destroy();
      reject(new Error(`no answer in 30 s; got ${JSON.stringify(text)}`));
    });
  });
}

const bodyOf = (text: string) => JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4)) as Record<string, unknown>;

describe("Content-Type", () => {
  it.each([
    [
      "/api/v1/onchain/withdraw/initiate",
      { toAddress: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", value: 10, network: "polygon" },
      "text/plain",
      (m: string) => ({ message: m, error: m, code: "unsupported_media_type" }),
    ],
    [
      "/api/v1/order/pix-out",
      { value: 10_00, pixKey: "maria@example.com" },
      "application/xml",
      (m: string) => ({ message: m, error: { details: m }, code: "unsupported_media_type" }),
    ],
    [
      "/api/v1/order/create",
      { value: 10 },
      "application/x-www-form-urlencoded",
      (m: string) => ({ success: false, error: m, code: "unsupported_media_type" }),
    ],
    [
      "/api/v1/order/create/pix",
      { value: 10 },
      "application/json; charset=iso-8859-1",
      (m: string) => ({ message: m, code: "unsupported_media_type" }),
    ],
  ])(
    "POST %s with a JSON body sent as %s → 415 in its own error body, nothing made",
    async (path, body, type, shape) => {
      const before = await api("GET", "/api/v1/withdrawals", { apiKey });
      const res = await send(path, JSON.stringify(body), type as string);
      expect(res.status).toBe(415);
      const message = (res.body.message ?? res.body.error) as string;
      expect(message).toMatch(/^Unsupported Content-Type/);
      expect(res.body).toEqual(shape(message));
      const after = await api("GET", "/api/v1/withdrawals", { apiKey });
      expect(after.body.withdrawals).toHaveLength(before.body.withdrawals.length);
    },
  );

  it.each([
    ["absent", undefined],
    ["application/json", "application/json"],
    ["application/json; charset=utf-8", "application/json; charset=utf-8"],
    ["APPLICATION/JSON;charset=UTF-8", "APPLICATION/JSON;charset=UTF-8"],
    ["a +json type", "application/vnd.merchant+json"],
  ])("a Content-Type %s is read as JSON", async (_label, type) => {
    const res = await send("/api/v1/order/create", new TextEncoder().encode('{"value": 10}'), type);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });

  it("the document lists 415 and 408 with their codes on every endpoint that reads a JSON body", () => {
    const doc = JSON.parse(openApiJson()) as {
      paths: Record<
        string,
        Record<string, { requestBody?: unknown; responses: Record<string, Record<string, unknown>> }>
      >;
    };
    let checked = 0;
    for (const ops of Object.values(doc.paths))
      for (const op of Object.values(ops)) {
        if (!op.requestBody) continue;
        checked++;
        expect((op.responses["415"]["x-error-codes"] as { code: string }[]).map((c) => c.code)).toEqual([
          "unsupported_media_type",
        ]);
        expect((op.responses["408"]["x-error-codes"] as { code: string }[]).map((c) => c.code)).toEqual([
          "request_timeout",
        ]);
        expect((op.responses["400"]["x-error-codes"] as { code: string }[]).map((c) => c.code)).toContain(
          "invalid_utf8",
        );
      }
    expect(checked).toBeGreaterThan(15);
  });
});

describe("UTF-8", () => {
  const invalid = Buffer.concat([
    Buffer.from('{"value": 10, "name": "Jo'),
    Buffer.from([0xe3, 0x6f]),
    Buffer.from('"}'),
  ]);

  it("POST /api/v1/order/create/pix with bytes that are not UTF-8 → 400 invalid_utf8, not stored as U+FFFD", async () => {
    const res = await send("/api/v1/order/create/pix", new Uint8Array(invalid), "application/json");
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: "Request body is not valid UTF-8", code: "invalid_utf8" });
    const ok = await send(
      "/api/v1/order/create/pix",
      new TextEncoder().encode('{"value": 10, "name": "João"}'),
      "application/json",
    );
    expect(ok.status).toBe(200);
  });

  it("the same over the fast path", async () => {
    const head =
      `POST /api/v1/order/create HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${apiKey}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${invalid.length}\r\nConnection: close\r\n\r\n`;
    const { text } = await rawRequest(head, invalid);
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    expect(bodyOf(text)).toEqual({ success: false, error: "Request body is not valid UTF-8", code: "invalid_utf8" });
  });
});

describe("reading the body counts against the request deadline", () => {
  it("fast path: a body shorter than its Content-Length is answered 408 in the endpoint's shape within the deadline", async () => {
    const head =
      `POST /api/v1/order/create HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${apiKey}\r\n` +
      `Content-Type: application/json\r\nContent-Length: 100\r\n\r\n`;
    const { ms, text } = await rawRequest(head, '{"value":');
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(text.toLowerCase()).toContain("connection: close");
    expect(bodyOf(text)).toEqual({
      success: false,
      error: expect.stringContaining("did not arrive in full"),
      code: "request_timeout",
    });
    // Answered at the deadline, not after Node's own 60 s+ timeouts (slack for a loaded machine).
    expect(ms).toBeGreaterThanOrEqual(DEADLINE_MS - 100);
    expect(ms).toBeLessThan(DEADLINE_MS + 5000);
  }, 30_000);

  it("Web Request path: a body stream that stalls is answered 408 within the deadline (pix-out's shape)", async () => {
    const stalled = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('{"value": 1'));
      },
    });
    const started = performance.now();
    const res = await send("/api/v1/order/pix-out", stalled, "application/json");
    const ms = performance.now() - started;
    expect(res.status).toBe(408);
    expect(res.body).toEqual({
      message: expect.stringContaining("did not arrive in full"),
      error: { details: expect.any(String) },
      code: "request_timeout",
    });
    expect(ms).toBeLessThan(DEADLINE_MS + 5000);
  }, 30_000);

  it("a body that arrives in full is served as usual over the fast path", async () => {
    const body = '{"value": 10}';
    const head =
      `POST /api/v1/order/create HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${apiKey}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
    const { text } = await rawRequest(head, body);
    expect(text).toMatch(/^HTTP\/1\.1 201 /);
  });
});
