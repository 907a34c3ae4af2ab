// The CommonJS copy of the package: dist/*.js (ESM, from tsc) rewritten as require()/module.exports into
// dist/cjs, with the same declarations beside them and a package.json that makes that folder CommonJS, so
// `require("@pixcrypto/sdk")` works in a project `npm init -y` made. One copy per file (no bundling), so
// classes such as ApiError are one class however the entry points are mixed. esbuild comes from the
// repository root, like the SDK's other build tools.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { transform } from "esbuild";

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "dist");
const cjs = path.join(dist, "cjs");

async function copy(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const from = path.join(dir, entry.name);
    if (from === cjs) continue;
    const to = path.join(cjs, path.relative(dist, from));
    if (entry.isDirectory()) {
      fs.mkdirSync(to, { recursive: true });
      await copy(from);
    } else if (entry.name.endsWith(".d.ts")) {
      fs.copyFileSync(from, to);
    } else if (entry.name.endsWith(".js")) {
      const { code } = await transform(fs.readFileSync(from, "utf8"), {
        format: "cjs",
        target: "es2022",
        loader: "js",
      });
      fs.writeFileSync(to, code);
    }
  }
}

fs.mkdirSync(cjs, { recursive: true });
await copy(dist);
fs.writeFileSync(path.join(cjs, "package.json"), JSON.stringify({ type: "commonjs" }, null, 2) + "\n");
console.log("wrote dist/cjs (CommonJS)");
