import { counter, gauge, METRIC_PREFIX } from "@/lib/metrics/registry";
import type { Network } from "@/lib/chain/tokens";

// Recorded by the instance that ran the pass (one job per network, taken by one instance at a time):
// each instance reports its own last pass, and the pass time says which report is the fresh one.

const behind = gauge({
  name: `${METRIC_PREFIX}chain_watcher_blocks_behind_head`,
  help: "Blocks between the node's head and the last block whose transfers were all applied, after this instance's last pass (at least the network's confirmations minus one)",
  labelNames: ["network"] as const,
});

const lastPass = gauge({
  name: `${METRIC_PREFIX}chain_watcher_last_pass_timestamp_seconds`,
  help: "When this instance last completed a deposit-watcher pass on the network (Unix time)",
  labelNames: ["network"] as const,
});

const failures = counter({
  name: `${METRIC_PREFIX}chain_watcher_pass_failures_total`,
  help: "Deposit-watcher passes that failed (node unreachable, reorg deeper than the confirmations); the next pass reads the same range again",
  labelNames: ["network"] as const,
});

export function observePass(network: Network, head: bigint, cursor: bigint): void {
  behind.labels(network).set(Number(head - cursor));
  lastPass.labels(network).set(Date.now() / 1000);
}

export function observePassFailure(network: Network): void {
  failures.labels(network).inc();
}
