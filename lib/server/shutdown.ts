import type http from "node:http";
import { log } from "@/lib/log";
import { backgroundMailSettled } from "@/lib/mail/background";
import { markDraining } from "@/lib/ops/readiness";

// Graceful shutdown on SIGTERM (an orchestrator replacing the instance) or SIGINT (Ctrl-C): readiness
// fails at once so load balancers stop routing here; the server stops accepting connections while the
// requests in flight finish, and the job runner stops taking jobs while the running ones finish, both
// within SHUTDOWN_TIMEOUT_MS; then what they needed (Next, the pool, the embedded database) is closed
// and the process exits 0. A second signal exits at once.

export type ShutdownPlan = {
  /** The HTTP server to drain; absent for a worker (npm run worker), which serves none. */
  server?: http.Server;
  timeoutMs: number;
  /** Stops the job runner, the webhook dispatcher and the invoice stream, running work given `timeoutMs`. */
  stopWorker?: (timeoutMs: number) => Promise<void>;
  /** Closed after requests and jobs, in order: Next's own resources, the pool, the embedded database. */
  close: { name: string; run: () => Promise<void> }[];
};

/** How often connections whose last request has ended are closed while draining. */
const IDLE_SWEEP_MS = 100;
/** Closing after the deadline (pool, embedded database) gets this long before the process gives up. */
const CLOSE_GRACE_MS = 15_000;

/**
 * Stops accepting connections and resolves once every open one has ended. Idle keep-alive connections
 * are closed at once and the others as soon as their request is answered; at the deadline the rest
 * are cut. Resolves with the number of connections cut.
 */
export function drainServer(server: http.Server, timeoutMs: number): Promise<number> {
  return new Promise((resolve) => {
    let cut = 0;
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    const deadline = setTimeout(() => {
      server.getConnections((_, n) => {
        cut = n;
        if (n > 0)
          log.warn("shutdown deadline reached: closing connections with requests still in flight", {
            connections: n,
            timeoutMs,
          });
        server.closeAllConnections();
      });
    }, timeoutMs);
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(deadline);
      resolve(cut);
    });
    server.closeIdleConnections();
  });
}

export async function shutdown(signal: string, plan: ShutdownPlan): Promise<void> {
  markDraining();
  log.info("shutting down: draining requests and jobs", { signal, timeoutMs: plan.timeoutMs });
  const startedAt = Date.now();
  const stopping = plan
    .stopWorker?.(plan.timeoutMs)
    .catch((err: unknown) => log.error("stopping the job runner failed", { err }));
  await Promise.all([plan.server ? drainServer(plan.server, plan.timeoutMs) : 0, stopping]);
  // Mail the answered requests handed over (lib/mail/background.ts) goes before the pool closes, within what is left of the deadline.
  const left = Math.max(0, plan.timeoutMs - (Date.now() - startedAt));
  await Promise.race([backgroundMailSettled(), new Promise((resolve) => setTimeout(resolve, left).unref())]);
  for (const step of plan.close) {
    await step.run().catch((err: unknown) => log.error(`closing ${step.name} failed`, { err }));
  }
  log.info("shut down", { signal, ms: Date.now() - startedAt });
}

/** Runs `shutdown` on the first SIGTERM or SIGINT and exits 0 when it is done; a second signal exits 1 at once. */
export function shutdownOnSignals(plan: ShutdownPlan): void {
  let started = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (started) {
      log.warn("second signal during shutdown: exiting now", { signal });
      process.exit(1);
    }
    started = true;
    // Should anything hang past the deadline (a pool that never closes), the process still ends.
    setTimeout(() => {
      log.error("shutdown did not finish in time: exiting", { timeoutMs: plan.timeoutMs + CLOSE_GRACE_MS });
      process.exit(1);
    }, plan.timeoutMs + CLOSE_GRACE_MS).unref();
    shutdown(signal, plan).then(
      () => process.exit(0),
      (err: unknown) => {
        log.error("shutdown failed", { err });
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
}
