import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { addDays, businessDaysAfter, daysBetween, isBusinessDay } from "./business-days";
import { amountDue, dueWindow, type DueTerms } from "./due-amount";

// Properties of the amount due, over random terms and days: a whole, non-negative number of
// centavos that is the sum of its parts; the fine is charged once, whatever the delay; interest
// grows with the days late as its modalidade says; discounts apply only on the days they name;
// nothing is payable after the last day. Seeded so a failure reproduces.

const RUNS = { numRuns: 800, seed: 20250614 };

const day = fc.integer({ min: 0, max: 12 * 365 }).map((n) => addDays("2020-01-01", n));
const hundredths = (max: number) => fc.integer({ min: 1, max });

const termsArb: fc.Arbitrary<DueTerms> = fc
  .record({
    originalCentavos: fc.integer({ min: 1, max: 100_000_000 }),
    dueDate: day,
    daysAfterDue: fc.integer({ min: 0, max: 120 }),
    fine: fc.option(
      fc.oneof(
        fc.record({ modalidade: fc.constant(1 as const), hundredths: hundredths(1_000_000) }),
        fc.record({ modalidade: fc.constant(2 as const), hundredths: hundredths(9_999) }),
      ),
    ),
    interest: fc.option(
      fc.record({
        modalidade: fc.constantFrom(1 as const, 2 as const, 3 as const, 5 as const, 6 as const),
        hundredths: hundredths(5_000),
      }),
    ),
    abatementPercent: fc.option(fc.integer({ min: 1, max: 9_999 })),
    discount: fc.option(
      fc.oneof(
        fc.record({
          modalidade: fc.constantFrom(1 as const, 2 as const),
          offsets: fc.uniqueArray(fc.integer({ min: 0, max: 60 }), { minLength: 1, maxLength: 3 }),
          hundredths: fc.array(hundredths(9_999), { minLength: 3, maxLength: 3 }),
        }),
        fc.record({
          modalidade: fc.constantFrom(3 as const, 4 as const, 5 as const, 6 as const),
          offsets: fc.constant([] as number[]),
          hundredths: fc.array(hundredths(2_000), { minLength: 1, maxLength: 1 }),
        }),
      ),
    ),
  })
  .map(({ abatementPercent, discount, ...t }) => ({
    ...t,
    abatement: abatementPercent ? { modalidade: 2 as const, hundredths: abatementPercent } : null,
    discount: !discount
      ? null
      : discount.modalidade === 1 || discount.modalidade === 2
        ? {
            modalidade: discount.modalidade,
            dates: discount.offsets.map((o, i) => ({
              date: addDays(t.dueDate, -o),
              hundredths: discount.hundredths[i],
            })),
          }
        : { modalidade: discount.modalidade, hundredths: discount.hundredths[0] },
  }));

/** A day within 90 days either side of the terms' due date. */
const around = (t: DueTerms) => fc.integer({ min: -90, max: 150 }).map((o) => addDays(t.dueDate, o));
const withDay = termsArb.chain((t) => fc.tuple(fc.constant(t), around(t)));
const withTwoLateDays = termsArb.chain((t) => {
  const { due, lastDay } = dueWindow(t);
  const span = daysBetween(due, lastDay);
  return span < 2
    ? fc.constant(null)
    : fc
        .tuple(fc.integer({ min: 1, max: span }), fc.integer({ min: 1, max: span }))
        .map(([a, b]) => [t, addDays(due, Math.min(a, b)), addDays(due, Math.max(a, b))] as const);
});

describe("amountDue properties", () => {
  it("is a whole, non-negative number of centavos: original + fine + interest − abatement − discount", () => {
    fc.assert(
      fc.property(withDay, ([t, d]) => {
        const a = amountDue(t, d);
        if (!a.payable) return;
        for (const v of [
          a.fineCentavos,
          a.interestCentavos,
          a.abatementCentavos,
          a.discountCentavos,
          a.totalCentavos,
        ]) {
          expect(Number.isSafeInteger(v)).toBe(true);
          expect(v).toBeGreaterThanOrEqual(0);
        }
        expect(a.totalCentavos).toBe(
          Math.max(
            0,
            a.originalCentavos + a.fineCentavos + a.interestCentavos - a.abatementCentavos - a.discountCentavos,
          ),
        );
        // The discount never takes it below zero (it is capped, not the total clamped).
        expect(
          a.originalCentavos + a.fineCentavos + a.interestCentavos - a.abatementCentavos - a.discountCentavos,
        ).toBe(a.totalCentavos);
      }),
      RUNS,
    );
  });

  it("is payable exactly through the last day, which is a business day at least daysAfterDue after the due date", () => {
    fc.assert(
      fc.property(withDay, ([t, d]) => {
        const { due, lastDay } = dueWindow(t);
        expect(isBusinessDay(due) && isBusinessDay(lastDay)).toBe(true);
        expect(daysBetween(due, lastDay)).toBeGreaterThanOrEqual(t.daysAfterDue);
        expect(daysBetween(t.dueDate, due)).toBeGreaterThanOrEqual(0);
        expect(amountDue(t, d).payable).toBe(daysBetween(d, lastDay) >= 0);
      }),
      RUNS,
    );
  });

  it("charges the fine once: the same on every late day, nothing on time", () => {
    fc.assert(
      fc.property(withTwoLateDays, (x) => {
        if (!x) return;
        const [t, early, later] = x;
        const a = amountDue(t, early);
        const b = amountDue(t, later);
        const onTime = amountDue(t, dueWindow(t).due);
        if (!a.payable || !b.payable || !onTime.payable) throw new Error("late days must be payable");
        expect(a.fineCentavos).toBe(b.fineCentavos);
        expect(onTime.fineCentavos).toBe(0);
        // What the fine is, before rounding to the centavo.
        const exact = !t.fine
          ? 0
          : t.fine.modalidade === 1
            ? t.fine.hundredths
            : (t.originalCentavos * t.fine.hundredths) / 10_000;
        expect(Math.abs(a.fineCentavos - exact)).toBeLessThanOrEqual(0.5 + 1e-6);
      }),
      RUNS,
    );
  });

  it("grows interest with the days late as set: per calendar or business day, per day or per 30-day month", () => {
    fc.assert(
      fc.property(withTwoLateDays, (x) => {
        if (!x || !x[0].interest) return;
        const [t, early, later] = x;
        const i = t.interest!;
        const { due } = dueWindow(t);
        for (const d of [early, later]) {
          const a = amountDue(t, d);
          if (!a.payable) throw new Error("late days must be payable");
          const days = i.modalidade === 5 || i.modalidade === 6 ? businessDaysAfter(due, d) : daysBetween(due, d);
          // The exact amount before rounding, in centavos.
          const exact =
            i.modalidade === 1 || i.modalidade === 5
              ? i.hundredths * days
              : (t.originalCentavos * i.hundredths * days) / (10_000 * (i.modalidade === 3 ? 30 : 1));
          expect(Math.abs(a.interestCentavos - exact)).toBeLessThanOrEqual(0.5 + 1e-6);
        }
        const a = amountDue(t, early);
        const b = amountDue(t, later);
        if (a.payable && b.payable) expect(b.interestCentavos).toBeGreaterThanOrEqual(a.interestCentavos);
      }),
      RUNS,
    );
  });

  it("applies discounts only on or before the dates they name, and never after the due date", () => {
    fc.assert(
      fc.property(withDay, ([t, d]) => {
        const a = amountDue(t, d);
        if (!a.payable) return;
        const { due } = dueWindow(t);
        if (daysBetween(due, d) > 0 || !t.discount) expect(a.discountCentavos).toBe(0);
        if (t.discount && (t.discount.modalidade === 1 || t.discount.modalidade === 2)) {
          const until = (date: string) => (date === t.dueDate ? due : date);
          const ahead = t.discount.dates.filter((e) => daysBetween(d, until(e.date)) >= 0);
          if (ahead.length === 0) expect(a.discountCentavos).toBe(0);
        }
        // Per-day discounts reward days before the due date: none on it.
        if (t.discount && t.discount.modalidade > 2 && daysBetween(d, due) <= 0) expect(a.discountCentavos).toBe(0);
      }),
      RUNS,
    );
  });

  it("never asks less on time than early, nor less late than on time", () => {
    fc.assert(
      fc.property(withDay, ([t, d]) => {
        const { due } = dueWindow(t);
        const onTime = amountDue(t, due);
        const a = amountDue(t, d);
        if (!a.payable || !onTime.payable) return;
        if (daysBetween(d, due) > 0) expect(a.totalCentavos).toBeLessThanOrEqual(onTime.totalCentavos);
        if (daysBetween(due, d) > 0) expect(a.totalCentavos).toBeGreaterThanOrEqual(onTime.totalCentavos);
      }),
      RUNS,
    );
  });
});
