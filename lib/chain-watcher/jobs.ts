import { liveNetworks } from "@/lib/chain/config";
import type { Network } from "@/lib/chain/tokens";
import { env } from "@/lib/env";
import { jobQueue, worker, type JobPlan } from "@/lib/jobs/queue";
import { log } from "@/lib/log";
import type { TransferReceiver } from "./receiver";
import { observePassFailure } from "./metrics";
import { watchNetwork } from "./watcher";

/**
 * One recurring watcher job per network with a node. A queue per network, so a slow node holds back
 * only its own network; "stately" keeps one pass running and at most one waiting, across every
 * instance. A durable once-a-minute schedule keeps it going if every local tick is lost; the tick,
 * every CHAIN_POLL_SECONDS, is what sets detection latency.
 */
export function chainWatchJobs(receivers: readonly TransferReceiver[]): JobPlan {
  const plan: JobPlan = { workers: [], recurring: [] };
  for (const network of liveNetworks()) {
    const queue = jobQueue<object>(`chain-watch-${network}`, {
      policy: "stately",
      retryLimit: 0,
      expireInSeconds: 300,
    });
    plan.workers.push(worker(queue, { pollingIntervalSeconds: 0.5 }, () => pass(network, receivers)));
    plan.recurring.push({ queue, tickSeconds: env().CHAIN_POLL_SECONDS });
  }
  return plan;
}

async function pass(network: Network, receivers: readonly TransferReceiver[]): Promise<void> {
  try {
    const done = await watchNetwork(network, receivers);
    if (done && done.applied > 0) log.info("chain watcher applied transfers", done);
  } catch (err) {
    // Nothing was skipped: the cursor stayed where it was and the next tick reads the range again.
    log.warn("chain watcher pass failed", { network, err });
    observePassFailure(network);
    throw err;
  }
}
