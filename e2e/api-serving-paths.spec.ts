import { expect, test } from "@playwright/test";
import { createMerchant, ownDatabase, startServer, stopServer } from "./support/server";

// Production serves /api/v1 through its fast path (node:http straight to the API's router); with
// API_FAST_PATH=false the same router is reached through Next's catch-all route. Every route, with
// GET, HEAD, OPTIONS and a method it does not have, with and without an API key, must get the same
// status, headers and body from both.
//
// Left out of the comparison: what belongs to the connection rather than the answer (date,
// connection, keep-alive), the framing (Next streams every Response body, so it sends
// transfer-encoding where the fast path sends content-length; the bodies are compared byte for
// byte), the request id's value (its presence and form are compared), the rate-limit headers' Remaining
// and Reset (each server counts the key in its own memory, and the clock moves between the two
// requests: their presence and form are compared, Limit exactly), and the Vary that Next adds to every
// app route for its own React Server Components requests (API answers are no-store).
const PER_CONNECTION = ["date", "connection", "keep-alive", "content-length", "transfer-encoding", "vary"];

test.setTimeout(180_000);

type Answer = { status: number; headers: Record<string, string>; body: string };

async function ask(base: string, method: string, path: string, key?: string): Promise<Answer> {
  const res = await fetch(base + path, {
    method,
    headers: key ? { authorization: `Bearer ${key}` } : {},
    redirect: "manual",
  });
  const headers = Object.fromEntries([...res.headers].filter(([name]) => !PER_CONNECTION.includes(name)));
  if (headers["x-request-id"])
    headers["x-request-id"] = headers["x-request-id"].replace(/^req_[A-Za-z0-9]{16}$/, "req_…");
  for (const name of ["ratelimit-remaining", "ratelimit-reset"])
    if (headers[name]) headers[name] = headers[name].replace(/^\d+$/, "<n>");
  return { status: res.status, headers, body: (await res.text()).replace(/req_[A-Za-z0-9]{16}/g, "req_…") };
}

test("the fast path and Next's route answer every route alike: GET, HEAD, OPTIONS and a wrong method", async () => {
  const pg = await ownDatabase();
  const fast = await startServer(pg.url, { API_FAST_PATH: "true", PUBLIC_BASE_URL: "http://127.0.0.1:3530" });
  const next = await startServer(pg.url, { API_FAST_PATH: "false", PUBLIC_BASE_URL: "http://127.0.0.1:3530" });
  try {
    const { apiKey } = await createMerchant(fast.url, { companyName: "Two Paths", pixKey: "52998224725" });
    const order = await fetch(`${fast.url}/api/v1/order/create/pix`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ value: 10 }),
    }).then((r) => r.json());
    const doc = (await (await fetch(`${fast.url}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const paths = Object.entries(doc.paths);
    expect(paths.length).toBeGreaterThan(20);

    let compared = 0;
    for (const [template, operations] of paths) {
      const methods = Object.keys(operations).map((m) => m.toUpperCase());
      const wrong = ["PUT", "PATCH", "DELETE", "POST", "GET"].find((m) => !methods.includes(m))!;
      // A real order where the path takes an order id, so lookups answer 200 as well as 404.
      const path = template.replace(/\{[^}]+\}/g, () =>
        template.startsWith("/api/v1/order/") ? order.pixOrder.paymentLinkId : "00000000-0000-4000-8000-000000000000",
      );
      for (const method of ["GET", "HEAD", "OPTIONS", wrong]) {
        for (const key of [apiKey, undefined]) {
          const a = await ask(fast.url, method, path, key);
          const b = await ask(next.url, method, path, key);
          expect(b, `${method} ${path} ${key ? "with" : "without"} a key`).toEqual(a);
          expect(a.headers["x-frame-options"], `${method} ${path}`).toBe("DENY");
          compared++;
        }
      }
    }
    // Paths no route has, and paths Next would rewrite: a trailing slash, an empty segment.
    for (const path of [
      "/api/v1",
      "/api/v1/",
      "/api/v1/nothing/here",
      "/api/v1/account/",
      "/api/v1//account",
      "/api/v1/account?x=1",
    ]) {
      for (const method of ["GET", "POST"]) {
        expect(await ask(next.url, method, path, apiKey), `${method} ${path}`).toEqual(
          await ask(fast.url, method, path, apiKey),
        );
        compared++;
      }
    }
    console.log(`serving paths compared: ${compared} requests on ${paths.length} paths`);
  } finally {
    await stopServer(fast);
    await stopServer(next);
    await pg.stop();
  }
});
