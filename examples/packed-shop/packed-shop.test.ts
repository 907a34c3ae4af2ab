import { execFileSync, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The SDK as a shop gets it: packed to a tarball, installed into a new `npm init -y` project outside the
// repository (a real copy, no symlink into this checkout), where the example shop's own tests run, the
// quickstarts' scripts run as written, and the packed README's links resolve inside the package.

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..", "..");
const sdkDir = path.join(root, "sdk");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
let work: string;
let shop: string;
let installed: string;

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", env: { ...process.env, ...env }, timeout: 240_000 });
  return { status: r.status, out: `${r.stdout ?? ""}${r.stderr ?? ""}` };
}

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "packed-shop-"));
  shop = path.join(work, "shop");
  fs.mkdirSync(shop);
  const built = run(npm, ["run", "build"], sdkDir);
  expect(built.status, built.out).toBe(0);
  const packed = JSON.parse(
    execFileSync(npm, ["pack", sdkDir, "--pack-destination", work, "--json"], { encoding: "utf8", cwd: work }),
  );
  const tarball = path.join(work, packed[0].filename);
  for (const f of ["receiver.js", "payout.js", "receiver.test.js"])
    fs.copyFileSync(path.join(here, f), path.join(shop, f));
  expect(run(npm, ["init", "-y"], shop).status).toBe(0);
  const install = run(npm, ["install", tarball, "--prefer-offline", "--no-audit", "--no-fund"], shop);
  expect(install.status, install.out).toBe(0);
  installed = path.join(shop, "node_modules", "@pixcrypto", "sdk");
}, 300_000);

afterAll(() => {
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

describe("the packed SDK in a new project", () => {
  it("is a copy of the package, with its LICENSE and README, in a CommonJS project outside the repository", () => {
    expect(path.relative(root, shop).startsWith("..")).toBe(true);
    expect(fs.lstatSync(installed).isSymbolicLink()).toBe(false);
    expect(JSON.parse(fs.readFileSync(path.join(shop, "package.json"), "utf8")).type ?? "commonjs").toBe("commonjs");
    expect(fs.readFileSync(path.join(installed, "LICENSE"), "utf8")).toMatch(/^MIT License/);
    expect(fs.existsSync(path.join(installed, "README.md"))).toBe(true);
  });

  it("the example shop's tests pass there: sale id and metadata from signed test deliveries, a payout refusal by code", () => {
    const r = run(process.execPath, ["--test", "receiver.test.js"], shop);
    expect(r.status, r.out).toBe(0);
    expect(r.out).toMatch(/# pass 5/);
    expect(r.out).toMatch(/# fail 0/);
  });

  it("loads through require() and import alike, every entry point", () => {
    const cjs = run(
      process.execPath,
      [
        "-e",
        `const a = require("@pixcrypto/sdk"); const s = require("@pixcrypto/sdk/sandbox");
         const w = require("@pixcrypto/sdk/webhooks"); const o = require("@pixcrypto/sdk/operator");
         console.log(typeof a.PixCrypto, typeof s.sandbox, typeof w.createTestWebhook, typeof o.PixCryptoOperator, typeof a.generateTestHeaders)`,
      ],
      shop,
    );
    expect(cjs.out.trim()).toBe("function function function function function");
    const esm = run(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import { PixCrypto, ApiError, createTestWebhook } from "@pixcrypto/sdk"; import { sandbox } from "@pixcrypto/sdk/sandbox";
         console.log(typeof PixCrypto, typeof ApiError, typeof createTestWebhook, typeof sandbox)`,
      ],
      shop,
    );
    expect(esm.out.trim()).toBe("function function function function");
  });

  it("its README links only to files in the package and to its own headings", () => {
    const readme = fs.readFileSync(path.join(installed, "README.md"), "utf8");
    const headings = new Set(
      [...readme.matchAll(/^#+ (.+)$/gm)].map((m) =>
        m[1]
          .toLowerCase()
          .replace(/[^\p{L}\p{N} -]/gu, "")
          .replace(/ /g, "-"),
      ),
    );
    const links = [...readme.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]);
    expect(links.length).toBeGreaterThan(0);
    for (const link of links) {
      if (/^https?:\/\//.test(link)) continue;
      if (link.startsWith("#")) expect(headings, link).toContain(link.slice(1));
      else expect(fs.existsSync(path.join(installed, link.split("#")[0])), link).toBe(true);
    }
  });

  it("npm publish --dry-run is clean: nothing corrected, nothing missing", () => {
    const r = run(npm, ["publish", "--dry-run", "--ignore-scripts"], sdkDir);
    expect(r.status, r.out).toBe(0);
    // The one warning a dry run always prints is that no one is logged in.
    const warnings = r.out.split("\n").filter((l) => /npm warn/i.test(l) && !/requires you to be logged in/.test(l));
    expect(warnings).toEqual([]);
    expect(r.out).toMatch(/LICENSE/);
    expect(r.out).toMatch(/dist\/cjs\/index\.js/);
  });
});

/** The scripts of a quickstart whose first line names their file: `// quickstart.js …`. */
function scriptsOf(doc: string): Map<string, string> {
  const text = fs.readFileSync(path.join(root, "docs", doc), "utf8");
  const out = new Map<string, string>();
  for (const m of text.matchAll(/```js\n(\/\/ (\S+\.m?js)[^\n]*\n[^]*?)```/g)) out.set(m[2], m[1]);
  return out;
}

/** A stand-in for the API answering the three calls the quickstart makes, as a sandbox server would. */
async function fakeApi(): Promise<{ url: string; close: () => void; seen: string[] }> {
  const seen: string[] = [];
  const order = (status: string, body: { orderId?: string; metadata?: Record<string, string> }) => ({
    id: "5b0e1c3e-7f4a-4b8e-9d51-2a6c1f0e9b11",
    paymentLinkId: "Xk3pQ7vLm2Rt9sWz4yBn6c",
    type: "pix",
    value: 49.9,
    status,
    createdAt: "2026-12-01T11:58:40.120Z",
    brcode: "000201",
    link: "http://x/pay/Xk3pQ7vLm2Rt9sWz4yBn6c",
    reference: { orderId: body.orderId },
    metadata: body.metadata ?? {},
  });
  let created: { orderId?: string; metadata?: Record<string, string> } = {};
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      seen.push(`${req.method} ${req.url}`);
      const json = (status: number, body: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      };
      if (req.method === "POST" && req.url === "/api/v1/order/create/pix") {
        created = JSON.parse(raw);
        const o = order("PENDING", created);
        return json(200, {
          message: "PIX order created successfully",
          pixOrder: { _id: o.id, paymentLinkId: o.paymentLinkId, value: o.value, status: o.status, ...o },
          qrCode: "000201",
        });
      }
      if (req.method === "POST" && req.url?.startsWith("/api/v1/sandbox/orders/"))
        return json(200, { order: order("COMPLETED", created) });
      if (req.method === "GET" && req.url?.startsWith("/api/v1/order/"))
        return json(200, { message: "Order retrieved successfully", order: order("COMPLETED", created), refunds: [] });
      json(404, { message: "not found" });
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => server.close(),
    seen,
  };
}

describe.each(["quickstart.en.md", "quickstart.pt-BR.md"])("docs/%s in that project", (doc) => {
  it("its CommonJS and ES module scripts parse as written (no top-level await in CommonJS)", () => {
    const scripts = scriptsOf(doc);
    expect([...scripts.keys()].sort()).toEqual(["quickstart.js", "quickstart.mjs", "receiver.js"]);
    for (const [file, code] of scripts) {
      fs.writeFileSync(path.join(shop, file), code);
      const r = run(process.execPath, ["--check", file], shop);
      expect(r.status, `${file}: ${r.out}`).toBe(0);
    }
  });

  it("quickstart.js runs: the order is made, paid in the sandbox and read back with its reference and metadata", async () => {
    const api = await fakeApi();
    try {
      fs.writeFileSync(path.join(shop, "quickstart.js"), scriptsOf(doc).get("quickstart.js")!);
      const r = await runAsync(process.execPath, ["quickstart.js"], {
        cwd: shop,
        env: { ...process.env, PIXCRYPTO_API_KEY: `sk_test_${"a".repeat(32)}`, PIXCRYPTO_BASE_URL: api.url },
      });
      expect(r.status, r.out).toBe(0);
      expect(r.out).toMatch(/COMPLETED (sale|venda)-1001 c-88231/);
      expect(api.seen.map((s) => s.split(" ")[0])).toEqual(["POST", "POST", "GET"]);
    } finally {
      api.close();
    }
  });
});

/** Runs a child without blocking the event loop (the fake API answers from this process). */
function runAsync(
  cmd: string,
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ status: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { ...opts, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (c) => (out += c));
    child.stderr.on("data", (c) => (out += c));
    const timer = setTimeout(() => child.kill(), 60_000);
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ status, out });
    });
  });
}
