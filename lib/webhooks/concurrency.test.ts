import { describe, expect, it } from "vitest";
import { EndpointConcurrency, FAST_ANSWER_MS, INITIAL_PER_ENDPOINT, MAX_PER_ENDPOINT } from "./concurrency";

describe("EndpointConcurrency", () => {
  it("grows a saturated endpoint that answers fast, one slot per answer, up to the maximum", () => {
    const c = new EndpointConcurrency();
    expect(c.limit("a")).toBe(INITIAL_PER_ENDPOINT);
    for (let i = 0; i < 100; i++) c.record("a", { ok: true, durationMs: 10, busy: c.limit("a") });
    expect(c.limit("a")).toBe(MAX_PER_ENDPOINT);
    expect(c.limit("b")).toBe(INITIAL_PER_ENDPOINT);
    // Kept between bursts, so the next claim gives it what it earned.
    expect([...c.learned()]).toEqual([["a", MAX_PER_ENDPOINT]]);
  });

  it("does not grow an endpoint that is not using its slots, or answers slowly", () => {
    const c = new EndpointConcurrency();
    c.record("a", { ok: true, durationMs: 10, busy: 1 });
    c.record("a", { ok: true, durationMs: FAST_ANSWER_MS, busy: INITIAL_PER_ENDPOINT });
    expect(c.limit("a")).toBe(INITIAL_PER_ENDPOINT);
  });

  it("halves on a failure, never below one", () => {
    const c = new EndpointConcurrency();
    for (let i = 0; i < 12; i++) c.record("a", { ok: true, durationMs: 5, busy: c.limit("a") });
    expect(c.limit("a")).toBe(16);
    c.record("a", { ok: false, durationMs: 5, busy: 16 });
    expect(c.limit("a")).toBe(8);
    for (let i = 0; i < 10; i++) c.record("a", { ok: false, durationMs: 5, busy: 1 });
    expect(c.limit("a")).toBe(1);
  });
});
