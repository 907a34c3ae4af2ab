import { describe, expect, it } from "vitest";
import { addDays, fillDays, lastDays } from "./days";

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
