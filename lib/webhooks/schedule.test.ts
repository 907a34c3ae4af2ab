import { describe, expect, it } from "vitest";
import { MAX_ATTEMPTS, retryDelaySeconds, totalRetrySeconds } from "./schedule";

describe("retry schedule", () => {
  it("is Standard Webhooks' schedule at the default 5 s base: about 3 days over 10 attempts", () => {
    const delays = Array.from({ length: MAX_ATTEMPTS }, (_, i) => retryDelaySeconds(i + 1, 5));
    expect(delays).toEqual([5, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 86_400, null]);
    expect(totalRetrySeconds(5) / 86_400).toBeCloseTo(3.15, 2);
  });

  it("scales with the base, and has nothing before the first attempt", () => {
    expect(retryDelaySeconds(1, 0.01)).toBeCloseTo(0.01);
    expect(retryDelaySeconds(2, 0.01)).toBeCloseTo(0.6);
    expect(retryDelaySeconds(0, 5)).toBeNull();
  });
});
