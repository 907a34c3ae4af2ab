import { log } from "@/lib/log";

// The periodic pass that keeps states true even when a job or a process was lost: each step
// (expiring what is due, settling what was left half-done, moving PENDING withdrawals forward,
// purging old bookkeeping) is idempotent and skips rows another instance holds. The steps are
// given by the worker's composition root (lib/worker); one that fails is logged and the others run.

export type SweepStep = { readonly name: string; run(): Promise<number> };

/** Runs every step once, in order; returns what each did. */
export async function runSweepSteps(steps: readonly SweepStep[]): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const step of steps) {
    try {
      counts[step.name] = await step.run();
    } catch (err) {
      counts[step.name] = 0;
      log.error("sweep step failed; the next sweep runs it again", { step: step.name, err });
    }
  }
  return counts;
}

/** Repeats a batch until it finds nothing more to do; returns the total. */
export async function untilNone(batch: () => Promise<number>): Promise<number> {
  let total = 0;
  for (let n = -1; n !== 0;) total += n = await batch();
  return total;
}
