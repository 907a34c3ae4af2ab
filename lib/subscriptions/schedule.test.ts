import { describe, expect, it } from "vitest";
import { dueDateOf, sendWindow } from "./schedule";

describe("dueDateOf", () => {
  it("counts months from the first date, clamped to shorter months", () => {
    expect([1, 2, 3, 4].map((n) => dueDateOf("2027-01-31", "MENSAL", n))).toEqual([
      "2027-01-31",
      "2027-02-28",
      "2027-03-31",
      "2027-04-30",
    ]);
  });
  it("weeks, quarters, halves and years", () => {
    expect(dueDateOf("2027-01-05", "SEMANAL", 3)).toBe("2027-01-19");
    expect(dueDateOf("2027-11-30", "TRIMESTRAL", 2)).toBe("2028-02-29");
    expect(dueDateOf("2027-08-15", "SEMESTRAL", 2)).toBe("2028-02-15");
    expect(dueDateOf("2028-02-29", "ANUAL", 2)).toBe("2029-02-28");
  });
});

describe("sendWindow", () => {
  it("opens 10 days and closes 2 days before the due date", () => {
    expect(sendWindow("2027-03-01")).toEqual({ opens: "2027-02-19", closes: "2027-02-27" });
  });
});
