import { histogram, METRIC_PREFIX } from "@/lib/metrics/registry";
import type { AttemptOutcome } from "./deliver";

// What the dispatcher measures as it goes. The backlog (deliveries waiting) is read from the table
// when /metrics is scraped (lib/ops/collectors.ts), since every instance shares it.

const attempts = histogram({
  name: `${METRIC_PREFIX}webhook_attempt_duration_seconds`,
  help: "Webhook delivery attempts by outcome (succeeded, retry, failed, gone, cancelled): the HTTP call and the write of its result",
  labelNames: ["outcome"] as const,
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
});

const latency = histogram({
  name: `${METRIC_PREFIX}webhook_delivery_latency_seconds`,
  help: "From an event's creation to its successful delivery to an endpoint, retries included (redeliveries asked for by hand are left out)",
  // From the LISTEN-driven first attempt (milliseconds) to the end of the retry schedule (about 3 days).
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 6 * 3600, 24 * 3600, 3 * 24 * 3600],
});

export function observeAttempt(
  outcome: AttemptOutcome,
  seconds: number,
  event: { createdAt: Date },
  redelivery: boolean,
): void {
  attempts.labels(outcome).observe(seconds);
  if (outcome === "succeeded" && !redelivery)
    latency.observe(Math.max(0, (Date.now() - event.createdAt.getTime()) / 1000));
}
