import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";

// `npm start`: one process that owns everything a newcomer needs — configuration, the database
// (embedded PostgreSQL unless DATABASE_URL is set), migrations, the demo merchant, the background
// jobs and the Next.js server. `--dev` runs Next in development mode instead of the built app.
// `--worker` (`npm run worker`) is the other half of a production deployment: the background jobs
// and nothing that listens, and the only process that may hold DEPOSIT_XPRV_FILE, so the key that
// signs every deposit address's sweep is never in a process reachable from the internet. The API
// server refuses to start with it (docs/operations.md "Deploying: API servers and workers").

const dev = process.argv.includes("--dev");
const workerOnly = process.argv.includes("--worker");
if (!dev) (process.env as Record<string, string>).NODE_ENV = "production";

function ensureAuthSecret(dataDir: string) {
  if (process.env.AUTH_SECRET || process.env.PAYMENTS_MODE === "live") return;
  // Sandbox: generated once and kept with the data, so sessions survive restarts.
  const file = path.join(dataDir, "auth-secret");
  fs.mkdirSync(dataDir, { recursive: true });
  if (!fs.existsSync(file)) fs.writeFileSync(file, randomBytes(32).toString("base64url"), { mode: 0o600 });
  process.env.AUTH_SECRET = fs.readFileSync(file, "utf8").trim();
}

async function main() {
  const { env, ConfigError, publicBaseUrl } = await import("@/lib/env");
  const { localLinksWarning } = await import("@/lib/links");
  let e;
  try {
    ensureAuthSecret(process.env.DATA_DIR || ".data");
    e = env();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const refusal = processRefusal(e, workerOnly);
  if (refusal) {
    console.error(`Refusing to start ${workerOnly ? "the worker" : "the API server"}: ${refusal}`);
    process.exit(1);
  }
  const { providers } = await import("@/lib/providers");
  const { metricsToken } = await import("@/lib/ops/endpoints");
  try {
    providers();
    metricsToken();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }

  const { ensureDatabase } = await import("@/db/bootstrap");
  const { closeDb } = await import("@/db");
  const { url, embedded, created } = await ensureDatabase().catch((err: unknown) => {
    // A database that does not exist and cannot be created: one line naming the variable.
    if (!(err instanceof ConfigError)) throw err;
    console.error(err.message);
    process.exit(1);
  });
  console.log(
    `database: ${embedded ? `embedded PostgreSQL (${path.resolve(e.DATA_DIR, "pg")})` : url.replace(/:[^:@/]*@/, ":***@")}${created ? " (created now: it did not exist)" : ""}`,
  );

  const { checkDeployment, DeploymentRefused } = await import("@/lib/deployment/guards");
  try {
    await checkDeployment();
  } catch (err) {
    if (err instanceof DeploymentRefused) {
      console.error(`Refusing to start in ${e.PAYMENTS_MODE} mode: ${err.message}`);
      await closeDb().catch(() => {});
      await embedded?.stop().catch(() => {});
      process.exit(1);
    }
    throw err;
  }

  // Before serving: keys this instance held before it was killed or restarted are free for retries now.
  const { releaseClaimsOfPredecessor } = await import("@/lib/http/idempotency");
  const released = await releaseClaimsOfPredecessor();
  if (released > 0)
    console.log(
      `idempotency: ${released} Idempotency-Key lease${released > 1 ? "s" : ""} of this instance's previous run ended`,
    );

  if (workerOnly) return runWorker(e, closeDb);

  if (e.PAYMENTS_MODE === "sandbox" && e.SEED_DEMO_MERCHANT) {
    const { seedDemoMerchant } = await import("@/lib/merchants/service");
    const demo = await seedDemoMerchant();
    if (demo) {
      console.log("\n  Demo merchant created (shown once, keep it):");
      console.log(`    API key:   ${demo.apiKey}`);
      console.log(`    Dashboard: ${demo.email} / ${demo.password}\n`);
    }
  }

  if (e.PAYMENTS_MODE === "live") {
    const { railStates } = await import("@/lib/providers/rails");
    for (const [rail, off] of Object.entries(railStates()))
      console.log(off ? `  ${rail}: off (${off})` : `  ${rail}: on`);
  }

  const { startWorker, stopWorker } = await import("@/lib/worker");
  if (e.JOBS_ENABLED) await startWorker();

  const { default: next } = await import("next");
  const host = e.HOST;
  const app = next({ dev, dir: process.cwd(), hostname: host, port: e.PORT });
  await app.prepare();
  const { createAppServer } = await import("@/lib/server/http");
  // /api/v1 goes straight to the route table's handlers (the same ones app/api/v1 exports) unless
  // API_FAST_PATH=false; /healthz, /readyz and /metrics are answered before either; the rest is Next's.
  const server = createAppServer({
    next: app.getRequestHandler(),
    fastPath: e.API_FAST_PATH,
    baseUrl: `http://${host}:${e.PORT}`,
    proxyHops: e.TRUST_PROXY_HOPS,
  });
  await new Promise<void>((resolve) => server.listen(e.PORT, host, resolve));
  console.log(
    `ready: ${publicBaseUrl()} (${e.PAYMENTS_MODE} mode, listening on ${host}:${e.PORT}, /api/v1 ${e.API_FAST_PATH ? "fast path" : "through Next"})`,
  );
  const linksWarning = localLinksWarning(e.PUBLIC_BASE_URL, publicBaseUrl());
  if (linksWarning) console.warn(linksWarning);

  // After listening: the PSP calls the URL while it registers it (Efí's test notification).
  if (e.PAYMENTS_MODE === "live" && e.PIX_API_URL && e.PIX_REGISTER_WEBHOOK && e.PIX_WEBHOOK_TOKEN) {
    // The URL holds the token: it is sent to the PSP, never printed.
    const { registerPixWebhooks } = await import("@/lib/providers/pix/api-pix");
    try {
      const keys = await registerPixWebhooks(`${publicBaseUrl()}/api/v1/providers/pix/${e.PIX_WEBHOOK_TOKEN}`);
      console.log(
        `PIX notifications: webhook registered at the PSP for ${keys.length} key${keys.length > 1 ? "s" : ""}`,
      );
    } catch (err) {
      console.error(
        `PIX notifications: registration failed; received payments are still found by reconciliation, payout outcomes by reading them back, but Efí sends no PIX from a key without a webhook: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }

  // Pix Automático: the same URL; the PSP appends /rec and /cobr (PUT /webhookrec, /webhookcobr).
  if (e.PAYMENTS_MODE === "live" && e.PIX_API_URL && e.PIX_REGISTER_WEBHOOK && e.PIX_WEBHOOK_TOKEN) {
    const { providers } = await import("@/lib/providers");
    try {
      const url = `${publicBaseUrl()}/api/v1/providers/pix/${e.PIX_WEBHOOK_TOKEN}`;
      await providers().recurring.configureWebhooks?.({ rec: url, cobr: url });
      console.log("Pix Automático notifications: webhookrec and webhookcobr registered at the PSP");
    } catch (err) {
      console.error(
        `Pix Automático notifications: registration failed; recurrences and charges are still found by the poll: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }

  const { shutdownOnSignals } = await import("@/lib/server/shutdown");
  shutdownOnSignals({
    server,
    timeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    stopWorker: e.JOBS_ENABLED ? stopWorker : undefined,
    close: [
      { name: "Next", run: () => app.close() },
      { name: "the database pool", run: closeDb },
      ...(embedded ? [{ name: "the embedded database", run: () => embedded.stop() }] : []),
    ],
  });
}

/**
 * Why this process must not start, or null. The deposit key belongs to the worker alone; a worker needs
 * the database the API servers use, which an embedded PostgreSQL (this process's own) is not.
 */
function processRefusal(e: { DEPOSIT_XPRV_FILE?: string; DATABASE_URL?: string }, worker: boolean): string | null {
  if (!worker && e.DEPOSIT_XPRV_FILE)
    return "DEPOSIT_XPRV_FILE is set, and the deposit key must never be in a process that serves HTTP: give it to the worker (npm run worker, or npm start -- --worker) and unset it here (docs/operations.md)";
  if (worker && !e.DATABASE_URL)
    return "the worker needs DATABASE_URL, the database the API servers use; without one, npm start runs the jobs itself in one process (docs/operations.md)";
  return null;
}

/** `--worker`: the migrations checked, the jobs started, no HTTP; stops on SIGTERM/SIGINT like the server. */
async function runWorker(
  e: { PAYMENTS_MODE: string; SHUTDOWN_TIMEOUT_MS: number; DEPOSIT_XPRV_FILE?: string },
  closeDb: () => Promise<void>,
) {
  if (e.PAYMENTS_MODE === "live") {
    const { railStates } = await import("@/lib/providers/rails");
    for (const [rail, off] of Object.entries(railStates()))
      console.log(off ? `  ${rail}: off (${off})` : `  ${rail}: on`);
  }
  const { startWorker, stopWorker } = await import("@/lib/worker");
  await startWorker();
  console.log(
    `worker ready: running the background jobs, serving no HTTP (${e.PAYMENTS_MODE} mode${e.DEPOSIT_XPRV_FILE ? ", holding the deposit key: this worker sweeps" : ""})`,
  );
  // The job runner's timers are unref'd: this keeps the process alive until it is stopped.
  const alive = setInterval(() => {}, 60_000);
  const { shutdownOnSignals } = await import("@/lib/server/shutdown");
  shutdownOnSignals({
    timeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    stopWorker,
    close: [
      { name: "the keep-alive timer", run: async () => clearInterval(alive) },
      { name: "the database pool", run: closeDb },
    ],
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
