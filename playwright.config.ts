import { defineConfig, devices } from "@playwright/test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePortsSync } from "./e2e/support/ports";
import { productionNodeFlags } from "./scripts/production-flags";

// End-to-end tests drive the built app (`npm run build` first) in Debian's Chromium: Playwright
// cannot download its own browsers here. The server gets a fresh embedded PostgreSQL each run, in a data
// folder of its own, on ports the system picks (E2E_PORT, E2E_PG_PORT, E2E_SMTP_PORT and E2E_DATA_DIR
// choose them instead), so two runs on one machine share neither. Playwright loads this file again in
// each worker: the choice is kept in process.env, which the workers inherit.
if (!process.env.E2E_PORT || !process.env.E2E_PG_PORT || !process.env.E2E_SMTP_PORT) {
  const [app, pg, smtp] = freePortsSync(3);
  process.env.E2E_PORT ||= String(app);
  process.env.E2E_PG_PORT ||= String(pg);
  process.env.E2E_SMTP_PORT ||= String(smtp);
}
if (!process.env.E2E_DATA_DIR) {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), "payments-e2e-"));
  // mkdtemp makes it 0700: as root, embedded PostgreSQL's initdb runs as another user and must get in.
  fs.chmodSync(parent, 0o755);
  process.env.E2E_DATA_DIR = path.join(parent, "data");
}
const PORT = Number(process.env.E2E_PORT);
const DATA_DIR = process.env.E2E_DATA_DIR;
export const E2E_ADMIN_TOKEN = "e2e-admin-token-0123456789abcdefghijklmnopq";
/** The server mails through SMTP here; e2e/security.spec.ts listens on it and reads what arrives. */
export const E2E_SMTP_PORT = Number(process.env.E2E_SMTP_PORT);

export default defineConfig({
  testDir: "./e2e",
  outputDir: "./test-results",
  timeout: 60_000,
  // Playwright's 5 s default for an assertion is an idle machine's figure: a page the build serves at
  // load 20 (its password hashes, its first compile of a route) takes several times that.
  expect: { timeout: 20_000 },
  fullyParallel: false,
  workers: 1,
  reporter: [["list"]],
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    screenshot: "only-on-failure",
    trace: "off",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"],
    },
  },
  projects: [
    { name: "desktop", use: { ...devices["Desktop Chrome"], channel: undefined } },
    // The SDK's own tests (sdk/test) and the example shop: API calls against the same server, no browser.
    { name: "sdk", testDir: "./sdk/test" },
  ],
  webServer: {
    command: `rm -rf ${DATA_DIR} && node ${productionNodeFlags().join(" ")} dist/server/start.cjs`,
    url: `http://127.0.0.1:${PORT}/`,
    timeout: 120_000,
    reuseExistingServer: false,
    stdout: "ignore",
    stderr: "pipe",
    env: {
      PORT: String(PORT),
      HOST: "127.0.0.1",
      PUBLIC_BASE_URL: `http://127.0.0.1:${PORT}`,
      DATA_DIR,
      DATABASE_URL: "",
      EMBEDDED_PG_PORT: process.env.E2E_PG_PORT,
      PAYMENTS_MODE: "sandbox",
      ADMIN_TOKEN: E2E_ADMIN_TOKEN,
      SEED_DEMO_MERCHANT: "false",
      SANDBOX_SETTLE_SECONDS: "1",
      EXPIRY_SWEEP_SECONDS: "2",
      // Short enough for e2e/dashboard.spec.ts to watch a Lightning invoice expire; newcomer.spec.ts
      // pays its invoice within milliseconds of creating it.
      EXPIRY_LIGHTNING_SECONDS: "8",
      LOG_LEVEL: "warn",
      SMTP_URL: `smtp://127.0.0.1:${E2E_SMTP_PORT}`,
    },
  },
});
