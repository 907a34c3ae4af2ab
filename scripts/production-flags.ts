import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

// The Node.js flags `npm start` runs the server with, read from package.json's start script, for the
// tools that start the built server themselves (the benchmark, the end-to-end tests): they must run it
// as production does, and the flags are written in one place. `${NAME:-default}` is resolved as the
// shell resolves it for `npm start`, and so is `$(node script.mjs)` (the flags that depend on the Node
// version, scripts/node-version-flags.mjs).
export function productionNodeFlags(env: NodeJS.ProcessEnv = process.env): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.resolve(process.cwd(), "package.json"), "utf8")) as {
    scripts: { start: string };
  };
  return pkg.scripts.start
    .replace(/\$\(node ([^)\s]+)\)/g, (_, script: string) =>
      execFileSync(process.execPath, [script], { encoding: "utf8" }),
    )
    .split(/\s+/)
    .filter((token) => token.startsWith("--"))
    .map((flag) => flag.replace(/\$\{(\w+):-([^}]*)\}/g, (_, name: string, fallback: string) => env[name] || fallback));
}
