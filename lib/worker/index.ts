import type { PgBoss } from "pg-boss";
import { chainWatchJobs } from "@/lib/chain-watcher/jobs";
import type { TransferReceiver } from "@/lib/chain-watcher/receiver";
import { watchNetwork, type WatchPass } from "@/lib/chain-watcher/watcher";
import type { Network } from "@/lib/chain/tokens";
import { cryptoPixReceiver } from "@/lib/crypto-pix/chain-receiver";
import { expireCryptoPixPayments, settleFullyPaidPayments } from "@/lib/crypto-pix/service";
import { env } from "@/lib/env";
import { purgeExpiredIdempotencyKeys } from "@/lib/http/idempotency";
import { purgeOldRateLimitWindows } from "@/lib/http/rate-limit";
import { jobQueue, startJobs, stopJobs, worker } from "@/lib/jobs/queue";
import { runSweepSteps, untilNone, type SweepStep } from "@/lib/jobs/sweep";
import { log } from "@/lib/log";
import { depositReceiver } from "@/lib/onchain/chain-receiver";
import { expireDeposits } from "@/lib/onchain/service";
import { expireOrders } from "@/lib/orders/service";
import { startWebhookDispatcher, stopWebhookDispatcher } from "@/lib/webhooks/dispatcher";
import { withdrawalQueue } from "@/lib/withdrawals/queue";
import { processPendingWithdrawals, processWithdrawal } from "@/lib/withdrawals/service";

// The composition root of background work: which queues exist and who works them, what the sweep
// does, which objects the deposit watcher feeds. Domains declare their queues and steps; only this
// module puts them together, so no domain imports the job runner's wiring, nor it theirs.

const SWEEP_STEPS: SweepStep[] = [
  { name: "orders", run: () => untilNone(() => expireOrders()) },
  { name: "deposits", run: () => untilNone(() => expireDeposits()) },
  { name: "cryptoPix", run: () => untilNone(() => expireCryptoPixPayments()) },
  { name: "settled", run: () => settleFullyPaidPayments() },
  { name: "withdrawals", run: processPendingWithdrawals },
  { name: "idempotencyKeys", run: purgeExpiredIdempotencyKeys },
  { name: "rateLimitWindows", run: () => purgeOldRateLimitWindows().then(() => 0) },
];

const TRANSFER_RECEIVERS: readonly TransferReceiver[] = [depositReceiver, cryptoPixReceiver];

// "stately": at most one sweep queued and one running. ("singleton" only bounds the running one,
// so ticks would queue up without limit behind a sweep slower than EXPIRY_SWEEP_SECONDS.)
const sweepQueue = jobQueue<object>("sweep", { policy: "stately", retryLimit: 0, expireInSeconds: 300 });

/** One sweep, now (tests, the CLI); the job runner runs it on its schedule. */
export function runSweep(): Promise<Record<string, number>> {
  return runSweepSteps(SWEEP_STEPS);
}

/** One deposit-watcher pass over a network. */
export function watchDeposits(network: Network, opts: { maxRanges?: number } = {}): Promise<WatchPass | null> {
  return watchNetwork(network, TRANSFER_RECEIVERS, opts);
}

/** Starts the job runner and the webhook dispatcher; a second call returns the running queue. */
export async function startWorker(): Promise<PgBoss> {
  const chain = chainWatchJobs(TRANSFER_RECEIVERS);
  const boss = await startJobs({
    workers: [
      worker(sweepQueue, { pollingIntervalSeconds: 1 }, async () => {
        const counts = await runSweep();
        if (Object.values(counts).some((n) => n > 0)) log.info("sweep", counts);
      }),
      worker(withdrawalQueue, { pollingIntervalSeconds: 1, batchSize: 5 }, async ({ id }) => {
        // Not final yet (e.g. awaiting confirmations): throwing hands it back for a retry with backoff.
        if (!(await processWithdrawal(id))) throw new Error(`withdrawal ${id} not final yet`);
      }),
      ...chain.workers,
    ],
    recurring: [{ queue: sweepQueue, tickSeconds: env().EXPIRY_SWEEP_SECONDS }, ...chain.recurring],
  });
  await startWebhookDispatcher();
  return boss;
}

export async function stopWorker(): Promise<void> {
  await stopWebhookDispatcher();
  await stopJobs();
}
