import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "@playwright/test";
import { build } from "esbuild";
import { SDK_VERSION } from "@pixcrypto/sdk";

// The package as it would be published: its types match what the running server documents, and its
// built code runs on fetch alone (Node 20+, edge runtimes), small.

const sdk = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

test("src/generated/api.ts is what openapi-typescript makes of the served OpenAPI document", async ({ baseURL }) => {
  const generator = path.join(sdk, "scripts", "generate-types.mjs");
  // Exits 1, naming the command to run, when the committed file is stale.
  const out = execFileSync(process.execPath, [generator, `${baseURL}/api/v1/openapi.json`, "--check"], {
    encoding: "utf8",
  });
  expect(out).toContain("is up to date");
});

test("the built package needs nothing of Node: bundled for a neutral platform it imports no node: module and uses no Buffer or process", async () => {
  const result = await build({
    entryPoints: [
      path.join(sdk, "dist", "index.js"),
      path.join(sdk, "dist", "sandbox.js"),
      path.join(sdk, "dist", "operator.js"),
    ],
    bundle: true,
    minify: true,
    write: false,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    outdir: "/tmp/sdk-bundle",
    metafile: true,
    logLevel: "silent",
  });
  const main = result.outputFiles.find((f) => f.path.endsWith("index.js"))!;
  const imports = Object.values(result.metafile.outputs).flatMap((o) => o.imports.map((i) => i.path));
  expect(imports.filter((i) => i.startsWith("node:") || !i.startsWith("."))).toEqual([]);
  // Code, not text: standardwebhooks' messages mention Buffer.
  const nodeOnly = /\bBuffer\.(from|alloc|concat|isBuffer)\b|\bprocess\.(env|nextTick|versions)\b|\brequire\(["']/.exec(
    main.text,
  );
  expect(nodeOnly?.[0] ?? null).toBeNull();
  // The whole client with webhook verification (standardwebhooks and its SHA-256), minified.
  const bytes = main.contents.byteLength;
  test.info().annotations.push({ type: "bundle", description: `${bytes} bytes minified` });
  expect(bytes).toBeLessThan(40_000);
});

test("package.json and the User-Agent agree on the version, and exports point at built files", async () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(sdk, "package.json"), "utf8"));
  expect(pkg.version).toBe(SDK_VERSION);
  // Conditions nest (import/require, then types/default): every leaf is a built file.
  const files = (entry: unknown): string[] =>
    typeof entry === "string" ? [entry] : Object.values(entry as Record<string, unknown>).flatMap(files);
  for (const file of files(pkg.exports)) expect(fs.existsSync(path.join(sdk, file)), file).toBe(true);
  expect(Object.keys(pkg.dependencies)).toEqual(["standardwebhooks"]);
});
