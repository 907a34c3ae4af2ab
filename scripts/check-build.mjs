import fs from "node:fs";

// `npm start` serves the built app: Next's build and the server bundle (dist/server/start.cjs, the
// custom server and lib/ compiled once by esbuild instead of transpiled at every start by tsx).
const missing = [".next/BUILD_ID", "dist/server/start.cjs"].filter((f) => !fs.existsSync(f));
if (missing.length) {
  console.error(
    `No build found (${missing.join(", ")} missing): run \`npm run build\` first, or \`npm run dev\` for development.`,
  );
  process.exit(1);
}
