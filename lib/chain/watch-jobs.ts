import type { PgBoss } from "pg-boss";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import type { Network } from "@/lib/providers/chain/tokens";
import { liveNetworks } from "./config";
import { watchNetwork } from "./watcher";

const queueFor = (network: Network) => `chain-watch-${network}`;

/**
 * One recurring watcher job per network with an RPC URL. A queue per network, so a slow node holds
 * back only its own network; "stately" keeps one pass running and at most one waiting, across every
 * instance. A durable once-a-minute schedule keeps it going if every local tick is lost; the tick,
 * every CHAIN_POLL_SECONDS, is what sets detection latency.
 */
export async function registerChainWatchers(boss: PgBoss): Promise<void> {
  const networks = liveNetworks();
  if (networks.length === 0) return;
  for (const network of networks) {
    const queue = queueFor(network);
    await boss.createQueue(queue, { policy: "stately", retryLimit: 0, expireInSeconds: 300 });
    await boss.work(queue, { pollingIntervalSeconds: 0.5 }, async () => {
      try {
        const pass = await watchNetwork(network);
        if (pass && pass.applied > 0) log.info("chain watcher applied transfers", pass);
      } catch (err) {
        // Nothing was skipped: the cursor stayed where it was and the next tick reads the range again.
        log.warn("chain watcher pass failed", { network, err });
        throw err;
      }
    });
    await boss.schedule(queue, "* * * * *");
  }
  const timer = setInterval(() => {
    for (const network of networks) {
      boss.send(queueFor(network), {}, { singletonKey: "tick" }).catch((err: unknown) => log.warn("chain watcher enqueue failed", { network, err }));
    }
  }, env().CHAIN_POLL_SECONDS * 1000);
  timer.unref();
  boss.once("stopped", () => clearInterval(timer));
}
