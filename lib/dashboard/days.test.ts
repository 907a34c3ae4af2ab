import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { addDays, fillDays, isCalendarDay, lastDays } from "./days";

describe("calendar days", () => {
  it("crosses month and year ends", () => {
    expect(addDays("2026-03-01", -1)).toBe("2026-02-28");
    expect(addDays("2024-03-01", -1)).toBe("2024-02-29");
    expect(addDays("2025-12-31", 1)).toBe("2026-01-01");
  });

  it("lists the last 30 days oldest first, ending today", () => {
    const days = lastDays("2026-01-10", 30);
    expect(days).toHaveLength(30);
    expect(days[0]).toBe("2025-12-12");
    expect(days[29]).toBe("2026-01-10");
  });

  it("fills missing days with zero", () => {
    const filled = fillDays(["2026-01-01", "2026-01-02"], new Map([["2026-01-02", { centavos: 500, count: 2 }]]));
    expect(filled).toEqual([
      { day: "2026-01-01", centavos: 0, count: 0 },
      { day: "2026-01-02", centavos: 500, count: 2 },
    ]);
  });
});

describe("isCalendarDay", () => {
  it.each([
    "2024-02-31",
    "2023-02-29",
    "2024-04-31",
    "2024-13-01",
    "2024-00-10",
    "0000-01-01",
    "99999-01-01",
    "2024-1-1",
    "2024-01-01T00:00",
    " 2024-01-01",
    "",
  ])("refuses %j", (s) => {
    expect(isCalendarDay(s)).toBe(false);
  });

  it("accepts every real day from year 1 to 9999, as PostgreSQL's date does", () => {
    expect(isCalendarDay("2024-02-29")).toBe(true);
    const days = fc.date({
      min: new Date("0001-01-01T00:00:00Z"),
      max: new Date("9999-12-31T23:59:59Z"),
      noInvalidDate: true,
    });
    fc.assert(fc.property(days, (d) => isCalendarDay(d.toISOString().slice(0, 10))));
  });
});
