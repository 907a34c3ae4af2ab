import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

// "server-only" throws outside React's server build; tests run dashboard server modules as plain Node.
const alias = {
  "@": fileURLToPath(new URL(".", import.meta.url)),
  "server-only": fileURLToPath(new URL("node_modules/server-only/empty.js", import.meta.url)),
};

// Workers for the unit and api projects, which run together. Two suit the 2-core CI machine: each api
// worker has its own database (tests/setup-env.ts) and PostgreSQL does half the work. TEST_WORKERS overrides.
const workers = Number(process.env.TEST_WORKERS) || 2;

// Files that must run alone: they time recoveries, stall or restart servers, or start PostgreSQL clusters
// of their own, and the work of other files beside them would be what they measure. They run after the
// parallel files, one at a time (docs/testing.md).
const serial = [
  "tests/db-failover.test.ts",
  "tests/db-pooler.test.ts",
  "tests/db-pooler-answers.test.ts",
  "tests/db-reconnect.test.ts",
  "tests/db-replica.test.ts",
  "tests/deadlines.test.ts",
  "tests/graceful-shutdown.test.ts",
  "tests/instance-takeover.test.ts",
  "tests/postgres-hosts.test.ts",
  "tests/subscriptions-instances.test.ts",
];

const api = {
  environment: "node",
  globalSetup: ["tests/global-setup.ts"],
  setupFiles: ["tests/setup-env.ts"],
  testTimeout: 30_000,
  hookTimeout: 60_000,
} as const;

// Projects: "unit" needs nothing but Node; "api" drives the real route handlers against a real
// PostgreSQL (embedded unless DATABASE_URL is set), one database per worker; "api-serial" likewise, alone.
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
          maxWorkers: workers,
          // Property tests are CPU-bound: beside the api files on a loaded 2-core machine, vitest's
          // 5 s default fails them for the machine's load, not for their code.
          testTimeout: 30_000,
        },
      },
      {
        resolve: { alias },
        test: {
          ...api,
          name: "api",
          include: ["tests/**/*.test.ts"],
          exclude: serial,
          maxWorkers: workers,
          // The service's production bounds on waiting (5 s for a pool connection or a row lock, 10 s per
          // request) are what tests of many concurrent calls exceed on a loaded machine, beside other
          // files: 503s that say nothing about the code. The serial files test those bounds, with these.
          env: { DB_POOL_WAIT_MS: "60000", DB_LOCK_TIMEOUT_MS: "30000", REQUEST_DEADLINE_MS: "60000" },
        },
      },
      {
        resolve: { alias },
        test: { ...api, name: "api-serial", include: serial, fileParallelism: false },
      },
    ],
  },
});
