import { jobQueue } from "@/lib/jobs/queue";

/** Moves one withdrawal forward (lib/worker works it with processWithdrawal); retried with backoff until final. */
export const withdrawalQueue = jobQueue<{ id: string }>("withdrawal-process", {
  retryLimit: 200,
  retryDelay: 2,
  retryBackoff: true,
  retryDelayMax: 300,
  expireInSeconds: 120,
});

/** Best effort: the withdrawal is committed, and the sweep processes any whose job was never sent. */
export function enqueueWithdrawal(id: string, delaySeconds = 0): Promise<void> {
  return withdrawalQueue.send({ id }, { startAfterSeconds: delaySeconds, singletonKey: id });
}
