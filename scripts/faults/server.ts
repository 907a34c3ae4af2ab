// The API server the fault suite (scripts/faults/run.ts) puts under load and kills: what scripts/start.ts
// serves on /api/v1 (the route table's handlers on the production node:http server, the job runner,
// the Idempotency-Key leases of this instance's previous run ended before serving), without Next, so it
// runs with no `npm run build` and restarts in a second. The suite bundles it with esbuild, as
// build:server bundles scripts/start.ts. Prints "ready <port>" once it accepts connections.
import { closeDb } from "@/db";
import { env, publicBaseUrl } from "@/lib/env";
import { releaseClaimsOfPredecessor } from "@/lib/http/idempotency";
import { createAppServer } from "@/lib/server/http";
import { shutdownOnSignals } from "@/lib/server/shutdown";
import { startWorker, stopWorker } from "@/lib/worker";

async function main() {
  const e = env();
  // As scripts/start.ts does before serving: the suite's SIGKILL fault requires the killed run's keys
  // to be retried successfully within seconds of this start, not after their leases.
  const released = await releaseClaimsOfPredecessor();
  if (e.JOBS_ENABLED) await startWorker();
  const server = createAppServer({
    next: async (_req, res) => void res.writeHead(404).end(),
    fastPath: true,
    baseUrl: publicBaseUrl(),
    proxyHops: 0,
  });
  await new Promise<void>((resolve) => server.listen(e.PORT, e.HOST, resolve));
  shutdownOnSignals({
    server,
    timeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    stopWorker: e.JOBS_ENABLED ? stopWorker : undefined,
    close: [{ name: "the database pool", run: closeDb }],
  });
  process.stdout.write(`ready ${e.PORT} released=${released}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
