import { PgBoss } from "pg-boss";
import { databaseUrl } from "@/db";
import { registerChainWatchers } from "@/lib/chain/watch-jobs";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { processSlot } from "@/lib/singleton";
import { startWebhookDispatcher, stopWebhookDispatcher } from "@/lib/webhooks/dispatcher";
import { processWithdrawal } from "@/lib/withdrawals/service";
import { runSweep } from "./sweep";

// Background work runs on pg-boss, a job queue inside the same PostgreSQL: jobs survive restarts,
// each is taken by one worker across all instances, and failures retry with backoff.

export const QUEUES = { sweep: "sweep", withdrawal: "withdrawal-process" } as const;

type State = { boss: PgBoss; timer: NodeJS.Timeout | null };
// One per process: the server's own copy of lib/ starts the queue, route handlers in Next's bundle
// enqueue into it.
const running = processSlot<State>("jobs");

export async function startJobs(): Promise<PgBoss> {
  if (running.value) return running.value.boss;
  const boss = new PgBoss({ connectionString: databaseUrl(), schema: "pgboss", max: 4 });
  boss.on("error", (err: unknown) => {
    // 57P01: the database is shutting down with us (Ctrl-C reaches the embedded server too).
    if ((err as { code?: string }).code === "57P01") return;
    log.error("job queue error", { err });
  });
  await boss.start();
  // "stately": at most one sweep queued and one running. ("singleton" only bounds the running one,
  // so ticks would queue up without limit behind a sweep slower than EXPIRY_SWEEP_SECONDS.)
  await boss.createQueue(QUEUES.sweep, { policy: "stately", retryLimit: 0, expireInSeconds: 300 });
  await boss.createQueue(QUEUES.withdrawal, { retryLimit: 200, retryDelay: 2, retryBackoff: true, retryDelayMax: 300, expireInSeconds: 120 });

  await boss.work(QUEUES.sweep, { pollingIntervalSeconds: 1 }, async () => {
    const counts = await runSweep();
    if (Object.values(counts).some((n) => n > 0)) log.info("sweep", counts);
  });
  await boss.work<{ id: string }>(QUEUES.withdrawal, { pollingIntervalSeconds: 1, batchSize: 5 }, async (jobs) => {
    for (const job of jobs) {
      // Not final yet (e.g. awaiting confirmations): throwing hands it back for a retry with backoff.
      if (!(await processWithdrawal(job.data.id))) throw new Error(`withdrawal ${job.data.id} not final yet`);
    }
  });
  // A durable once-a-minute schedule (one instance runs it), plus a faster local tick; the queue's
  // stately policy keeps sweeps from running concurrently or piling up.
  await boss.schedule(QUEUES.sweep, "* * * * *");
  await registerChainWatchers(boss);
  const every = env().EXPIRY_SWEEP_SECONDS * 1000;
  const timer = setInterval(() => {
    boss.send(QUEUES.sweep, {}, { singletonKey: "tick" }).catch((err: unknown) => log.warn("sweep enqueue failed", { err }));
  }, every);
  timer.unref();
  await startWebhookDispatcher();
  running.value = { boss, timer };
  return boss;
}

export async function stopJobs(): Promise<void> {
  const state = running.value;
  running.value = undefined;
  if (!state) return;
  if (state.timer) clearInterval(state.timer);
  await stopWebhookDispatcher();
  await state.boss.stop({ graceful: true, timeout: 10_000 });
}

/**
 * Asks a worker to move a withdrawal forward. Best effort by design: the request that created the
 * withdrawal has already committed, and the sweep picks up anything whose job was never enqueued.
 */
export async function enqueueWithdrawal(id: string, delaySeconds = 0): Promise<void> {
  const state = running.value;
  if (!state) return;
  try {
    await state.boss.send(QUEUES.withdrawal, { id }, { startAfter: delaySeconds, singletonKey: id });
  } catch (err) {
    log.warn("withdrawal enqueue failed; the sweep will process it", { withdrawalId: id, err });
  }
}
