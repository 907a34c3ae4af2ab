import { describe, expect, it } from "vitest";
import { wallClockIso, wallClockMs } from "./wall-clock";

describe("wall clock", () => {
  it("reads the same clock as Date", () => {
    const before = Date.now();
    const ms = wallClockMs();
    const iso = wallClockIso();
    const after = Date.now();
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(after);
    expect(Date.parse(iso)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(iso)).toBeLessThanOrEqual(after);
    expect(iso).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });
});
