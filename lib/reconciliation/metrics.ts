import { counter, METRIC_PREFIX } from "@/lib/metrics/registry";

// Recorded by the instance that ran the reconciliation (docs/operations.md "Reconciliation").

const failures = counter({
  name: `${METRIC_PREFIX}reconciliation_run_failures_total`,
  help: "Reconciliation runs that stopped before the end of their day, by provider source and reason (unreadable_answer: the provider answered in a shape we cannot read, an operator is alerted; error: it did not answer); the next run resumes at its page",
  labelNames: ["source", "reason"] as const,
});

export function observeRunFailure(source: string, reason: "unreadable_answer" | "error"): void {
  failures.labels(source, reason).inc();
}
