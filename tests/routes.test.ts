import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { API_ROUTES, matchRoute } from "@/lib/api/routes";
import { api } from "./helpers";

const APP_API = path.resolve(__dirname, "../app/api/v1");

function routeFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return routeFiles(p);
    return e.name === "route.ts" ? [p] : [];
  });
}

describe("route table", () => {
  it("matches the app/api/v1 route files exactly: every file exports the table's handlers", async () => {
    const fromFiles: string[] = [];
    for (const file of routeFiles(APP_API)) {
      const rel = "/api/v1" + path.dirname(file).slice(APP_API.length).split(path.sep).join("/");
      if (rel.includes("[...slug]")) continue;
      const mod = (await import(file)) as Record<string, unknown>;
      for (const [method, handler] of Object.entries(mod)) {
        const entry = API_ROUTES.find((r) => r.method === method && r.path === rel);
        expect(entry, `${method} ${rel} is not in API_ROUTES`).toBeDefined();
        expect(handler).toBe(entry!.handler);
        fromFiles.push(`${method} ${rel}`);
      }
    }
    expect(fromFiles.sort()).toEqual(API_ROUTES.map((r) => `${r.method} ${r.path}`).sort());
  });

  it("prefers static segments over dynamic ones, like Next", () => {
    const m = matchRoute("POST", "/api/v1/order/create");
    expect(m && "handler" in m && m.handler).toBe(API_ROUTES.find((r) => r.path === "/api/v1/order/create")!.handler);
    const g = matchRoute("GET", "/api/v1/order/abc");
    expect(g && "params" in g && g.params).toEqual({ id: "abc" });
  });

  it("answers an unknown /api/v1 path with a JSON 404", async () => {
    const res = await api("GET", "/api/v1/nope/nothing");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: "Not found: GET /api/v1/nope/nothing" });
    expect(res.headers.get("content-type")).toContain("application/json");
  });
});
