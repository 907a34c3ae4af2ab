import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

// "server-only" throws outside React's server build; tests run dashboard server modules as plain Node.
const alias = {
  "@": fileURLToPath(new URL(".", import.meta.url)),
  "server-only": fileURLToPath(new URL("node_modules/server-only/empty.js", import.meta.url)),
};

// Two projects: "unit" needs nothing but Node; "api" drives the real route handlers
// against a real PostgreSQL (embedded unless DATABASE_URL is set), started once per run.
export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: ["lib/**/*.test.ts", "db/**/*.test.ts", "scripts/**/*.test.ts", "examples/packed-shop/*.test.ts"],
          environment: "node",
        },
      },
      {
        resolve: { alias },
        test: {
          name: "api",
          include: ["tests/**/*.test.ts"],
          environment: "node",
          globalSetup: ["tests/global-setup.ts"],
          setupFiles: ["tests/setup-env.ts"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
