import {
  addDays,
  businessDayOnOrAfter,
  businessDaysAfter,
  daysBetween,
  dayNumber,
  dayOf,
  type Day,
} from "./business-days";

// The amount a charge with a due date (API Pix `cobv`) asks on each day, in integer centavos, as
// docs/api.md#invoices explains: the due date and every field that refers to it move to the next
// business day when it falls on a weekend or holiday; the charge can be paid up to
// `daysAfterDue` calendar days after that (the last day itself moving to the next business day);
// the value paid is original + fine + interest − abatement − discount, each part a whole number of
// centavos (the document writes each with two decimals and says the value is their sum), never
// below zero. Percentages are of the original value. Each part is rounded once, half up.
//
// Amounts in terms are the document's `valorPerc` in hundredths: centavos for a value,
// hundredths of a percent for a percentage (2.50% is 250).

export type FineTerms = { modalidade: 1 | 2; hundredths: number };
/** 1 value per calendar day, 2 % per calendar day, 3 % per month (of 30 calendar days), 5 value per business day, 6 % per business day. */
export type InterestTerms = { modalidade: 1 | 2 | 3 | 5 | 6; hundredths: number };
export type AbatementTerms = { modalidade: 1 | 2; hundredths: number };
export type DatedDiscount = { date: Day; hundredths: number };
/** 1/2 a value/percentage until each date; 3/5 a value/percentage per calendar day before the due date; 4/6 per business day. */
export type DiscountTerms =
  { modalidade: 1 | 2; dates: DatedDiscount[] } | { modalidade: 3 | 4 | 5 | 6; hundredths: number };

export type DueTerms = {
  originalCentavos: number;
  dueDate: Day;
  daysAfterDue: number;
  fine?: FineTerms | null;
  interest?: InterestTerms | null;
  abatement?: AbatementTerms | null;
  discount?: DiscountTerms | null;
};

export type DayAmount =
  | { day: Day; payable: false }
  | {
      day: Day;
      payable: true;
      /** Paid after the (business-day) due date: fine and interest apply. */
      late: boolean;
      originalCentavos: number;
      fineCentavos: number;
      interestCentavos: number;
      abatementCentavos: number;
      discountCentavos: number;
      totalCentavos: number;
    };

/** The due date as it counts (moved to the next business day) and the last day the charge can be paid. */
export function dueWindow(terms: Pick<DueTerms, "dueDate" | "daysAfterDue">): { due: Day; lastDay: Day } {
  const due = businessDayOnOrAfter(terms.dueDate);
  return { due, lastDay: businessDayOnOrAfter(addDays(due, terms.daysAfterDue)) };
}

/** `hundredths` hundredths of a percent of `base`, `times` times, over `divisor`: rounded half up, in centavos. */
function percentOf(base: number, hundredths: number, times = 1, divisor = 1): number {
  const num = BigInt(base) * BigInt(hundredths) * BigInt(times);
  const den = 10_000n * BigInt(divisor);
  return Number((2n * num + den) / (2n * den));
}

/** A fine's or an abatement's amount: modalidade 1 a value, 2 a percentage of the original. */
function valueOrPercent(t: DueTerms, term: FineTerms | AbatementTerms | null | undefined): number {
  if (!term) return 0;
  return term.modalidade === 2 ? percentOf(t.originalCentavos, term.hundredths) : term.hundredths;
}

function interestOf(t: DueTerms, due: Day, day: Day): number {
  const i = t.interest;
  if (!i) return 0;
  const calendar = daysBetween(due, day);
  switch (i.modalidade) {
    case 1:
      return i.hundredths * calendar;
    case 2:
      return percentOf(t.originalCentavos, i.hundredths, calendar);
    case 3:
      return percentOf(t.originalCentavos, i.hundredths, calendar, 30);
    case 5:
      return i.hundredths * businessDaysAfter(due, day);
    case 6:
      return percentOf(t.originalCentavos, i.hundredths, businessDaysAfter(due, day));
  }
}

/** The discount on `day` (on or before the due date), before it is capped so the total stays ≥ 0. */
function discountOf(t: DueTerms, due: Day, day: Day): number {
  const d = t.discount;
  if (!d) return 0;
  if ("dates" in d) {
    // A date that is the due date itself moves with it; the others are taken as written.
    const until = (date: Day) => (date === t.dueDate ? due : date);
    const applicable = d.dates
      .filter((e) => dayNumber(until(e.date)) >= dayNumber(day))
      .sort((a, b) => dayNumber(until(a.date)) - dayNumber(until(b.date)))[0];
    if (!applicable) return 0;
    return d.modalidade === 2 ? percentOf(t.originalCentavos, applicable.hundredths) : applicable.hundredths;
  }
  const early = d.modalidade === 3 || d.modalidade === 5 ? daysBetween(day, due) : businessDaysAfter(day, due);
  if (early <= 0) return 0;
  return d.modalidade === 3 || d.modalidade === 4
    ? d.hundredths * early
    : percentOf(t.originalCentavos, d.hundredths, early);
}

/** What paying on `day` (a São Paulo calendar day) takes; not payable after the last day. */
export function amountDue(terms: DueTerms, day: Day): DayAmount {
  const { due, lastDay } = dueWindow(terms);
  if (dayNumber(day) > dayNumber(lastDay)) return { day, payable: false };
  const late = dayNumber(day) > dayNumber(due);
  const fine = late ? valueOrPercent(terms, terms.fine) : 0;
  const interest = late ? interestOf(terms, due, day) : 0;
  const abatement = valueOrPercent(terms, terms.abatement);
  const owed = terms.originalCentavos + fine + interest - abatement;
  // Never below zero: a discount larger than what is owed takes it to zero, not past it.
  const discount = late ? 0 : Math.min(discountOf(terms, due, day), Math.max(0, owed));
  return {
    day,
    payable: true,
    late,
    originalCentavos: terms.originalCentavos,
    fineCentavos: fine,
    interestCentavos: interest,
    abatementCentavos: abatement,
    discountCentavos: discount,
    totalCentavos: Math.max(0, owed - discount),
  };
}

/**
 * The smallest amount due on any day from `from` on: a charge must ask at least a centavo on every
 * day it can be paid. Only days up to the due date can ask less than the original less the
 * abatement (after it there is no discount, and fine and interest only add), so only those are read.
 */
export function smallestAmountDue(terms: DueTerms, from: Day): { day: Day; totalCentavos: number } {
  const { due } = dueWindow(terms);
  let smallest = { day: from, totalCentavos: Number.POSITIVE_INFINITY };
  for (let n = dayNumber(from), end = Math.max(dayNumber(from), dayNumber(due)); n <= end; n++) {
    const a = amountDue(terms, dayOf(n));
    if (a.payable && a.totalCentavos < smallest.totalCentavos)
      smallest = { day: a.day, totalCentavos: a.totalCentavos };
  }
  return Number.isFinite(smallest.totalCentavos) ? smallest : { day: from, totalCentavos: 0 };
}
