import { describe, expect, it } from "vitest";
import { retryAfterMs } from "./client";

describe("retryAfterMs", () => {
  const now = Date.parse("2026-11-24T15:30:00.000Z");

  it("reads delay-seconds and an HTTP-date (RFC 9110 §10.2.3), a past date as 0", () => {
    expect(retryAfterMs("0", now)).toBe(0);
    expect(retryAfterMs(" 7 ", now)).toBe(7_000);
    expect(retryAfterMs("Tue, 24 Nov 2026 15:30:12 GMT", now)).toBe(12_000);
    expect(retryAfterMs("Tuesday, 24-Nov-26 15:30:05 GMT", now)).toBe(5_000);
    expect(retryAfterMs("Tue, 24 Nov 2026 15:29:00 GMT", now)).toBe(0);
  });

  it("ignores what is neither", () => {
    for (const v of [null, undefined, "", "soon", "1.5", "-3", "3 apples", "2026-11-24T15:31:00Z"])
      expect(retryAfterMs(v, now)).toBeUndefined();
  });
});
