// Retry schedule of Standard Webhooks / Svix: immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h,
// 14 h, 20 h and 24 h after each failure, about 3 days in all. Steps are multiples of the first retry
// delay (WEBHOOK_RETRY_BASE_SECONDS, 5 s by default), so tests can shrink the whole schedule at once.
// No jitter: deliveries fail at different moments anyway, and a predictable schedule is one a
// merchant can read in the docs and see in the delivery log.

const STEPS = [0, 1, 60, 360, 1440, 3600, 7200, 10_080, 14_400, 17_280];

/** Attempts before a delivery is given up as failed. */
export const MAX_ATTEMPTS = STEPS.length;

/** Seconds to wait after the `attemptsMade`-th failed attempt; null when none is left. */
export function retryDelaySeconds(attemptsMade: number, baseSeconds: number): number | null {
  if (!Number.isInteger(attemptsMade) || attemptsMade < 1 || attemptsMade >= STEPS.length) return null;
  return STEPS[attemptsMade] * baseSeconds;
}

/** The whole schedule in seconds from the first attempt to the last: ≈ 3.1 days at the default base. */
export function totalRetrySeconds(baseSeconds: number): number {
  return STEPS.reduce((a, b) => a + b, 0) * baseSeconds;
}
