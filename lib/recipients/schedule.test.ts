import { describe, expect, it } from "vitest";
import { dueSlot, isoWeekday, nextSlot, slotAfter, slotOnOrBefore, type PayoutSchedule } from "./schedule";

const at = (iso: string) => new Date(iso);
const schedule = (s: Partial<PayoutSchedule>): PayoutSchedule => ({
  interval: "daily",
  weekday: null,
  monthDay: null,
  minimumCentavos: null,
  since: at("2027-01-01T00:00:00-03:00"),
  ...s,
});

describe("payout schedule slots", () => {
  it("ISO weekdays: 2027-01-04 is a Monday, 2027-01-10 a Sunday", () => {
    expect(isoWeekday("2027-01-04")).toBe(1);
    expect(isoWeekday("2027-01-10")).toBe(7);
  });

  it("weekly: the weekday on or before a day, and the next one after it", () => {
    const friday = { interval: "weekly" as const, weekday: 5, monthDay: null };
    expect(slotOnOrBefore(friday, "2027-01-08")).toBe("2027-01-08");
    expect(slotOnOrBefore(friday, "2027-01-07")).toBe("2027-01-01");
    expect(slotAfter(friday, "2027-01-08")).toBe("2027-01-15");
    expect(slotAfter(friday, "2027-01-07")).toBe("2027-01-08");
  });

  it("monthly: a day past a month's end is its last day, and the 31st again after it", () => {
    const m31 = { interval: "monthly" as const, weekday: null, monthDay: 31 };
    expect(slotOnOrBefore(m31, "2027-03-15")).toBe("2027-02-28");
    expect(slotAfter(m31, "2027-02-28")).toBe("2027-03-31");
    expect(slotAfter(m31, "2028-01-31")).toBe("2028-02-29");
    expect(slotOnOrBefore(m31, "2027-12-31")).toBe("2027-12-31");
    expect(slotAfter(m31, "2027-12-31")).toBe("2028-01-31");
  });

  it("days are São Paulo days: 01:30 UTC on the 9th is still the 8th there", () => {
    const s = schedule({ interval: "weekly", weekday: 6 }); // Saturday 2027-01-09
    expect(dueSlot(s, at("2027-01-09T01:30:00Z"))).toBe("2027-01-02");
    expect(dueSlot(s, at("2027-01-09T03:00:00Z"))).toBe("2027-01-09");
  });

  it("a slot begun before the schedule was set is not due; the next one is", () => {
    const s = schedule({ since: at("2027-01-05T15:00:00-03:00") });
    expect(dueSlot(s, at("2027-01-05T20:00:00-03:00"))).toBeNull();
    expect(nextSlot(s, at("2027-01-05T20:00:00-03:00"))).toBe("2027-01-06");
    expect(dueSlot(s, at("2027-01-06T00:00:00-03:00"))).toBe("2027-01-06");
    // Catch-up: the latest slot stays due until the next begins.
    const monthly = schedule({ interval: "monthly", monthDay: 10, since: at("2027-01-05T15:00:00-03:00") });
    expect(dueSlot(monthly, at("2027-01-09T23:59:00-03:00"))).toBeNull();
    expect(dueSlot(monthly, at("2027-01-20T10:00:00-03:00"))).toBe("2027-01-10");
    expect(nextSlot(monthly, at("2027-01-20T10:00:00-03:00"))).toBe("2027-02-10");
  });
});
