import { describe, expect, it } from "vitest";
import { addDays, businessDayOnOrAfter, businessDaysAfter, easterSunday, isBusinessDay, dayOf } from "./business-days";
import { amountDue, dueWindow, smallestAmountDue, type DueTerms } from "./due-amount";

// Hand-computed cases. The payable windows are the document's own examples (CobDataDeVencimento,
// validadeAposVencimento: Exemplos A–G); the amounts use its example charge (cobBody1: 123.45 with a
// 15% fine, 2% a day of interest and 30.00 off until 2020-11-30) and its example payload
// (cobPayload2: 123.45 + 15.00 fine + 2.00 interest = 140.45), worked out by hand below.

const total = (terms: DueTerms, day: string) => {
  const a = amountDue(terms, day);
  return a.payable ? a.totalCentavos : null;
};

describe("the national business-day calendar", () => {
  it("finds Easter like the published tables", () => {
    const table: Record<number, string> = {
      2020: "2020-04-12",
      2021: "2021-04-04",
      2022: "2022-04-17",
      2023: "2023-04-09",
      2024: "2024-03-31",
      2025: "2025-04-20",
      2026: "2026-04-05",
      2027: "2027-03-28",
      2028: "2028-04-16",
      2029: "2029-04-01",
      2030: "2030-04-21",
      2031: "2031-04-13",
      2032: "2032-03-28",
      2033: "2033-04-17",
      2034: "2034-04-09",
      2035: "2035-03-25",
    };
    for (const [year, day] of Object.entries(table)) expect(dayOf(easterSunday(Number(year)))).toBe(day);
  });

  it("closes weekends, national holidays, Carnival, Good Friday and Corpus Christi", () => {
    for (const day of [
      "2020-10-24", // Saturday
      "2020-10-25", // Sunday
      "2020-12-25",
      "2021-01-01",
      "2024-02-12", // Carnival Monday
      "2024-02-13", // Carnival Tuesday
      "2024-03-29", // Good Friday
      "2024-05-30", // Corpus Christi
      "2024-11-20", // national from 2024
      "2025-04-21",
      "2026-09-07", // a Monday
    ])
      expect(isBusinessDay(day), day).toBe(false);
    for (const day of ["2020-10-20", "2020-12-31", "2023-11-20", "2024-02-14", "2021-08-27"])
      expect(isBusinessDay(day), day).toBe(true);
  });

  it("counts business days after a day", () => {
    // 2024-02-09 is a Friday; the 12th and 13th are Carnival.
    expect(businessDaysAfter("2024-02-09", "2024-02-15")).toBe(2);
    expect(businessDaysAfter("2024-02-15", "2024-02-09")).toBe(0);
    expect(businessDayOnOrAfter("2024-02-10")).toBe("2024-02-14");
    expect(addDays("2020-12-31", 1)).toBe("2021-01-01");
  });
});

describe("the days a charge can be paid (the document's Exemplos A–G)", () => {
  // Each: dataDeVencimento, validadeAposVencimento, the last day accepted ("aceito"); the next is "negado".
  const examples: [string, string, number, string][] = [
    ["A", "2020-10-20", 4, "2020-10-26"],
    ["B", "2020-12-25", 0, "2020-12-28"],
    ["C", "2020-12-25", 1, "2020-12-29"],
    ["D", "2020-12-25", 3, "2020-12-31"],
    ["E", "2020-12-25", 4, "2021-01-04"],
    ["F", "2021-08-27", 5, "2021-09-01"],
    ["G", "2021-08-28", 5, "2021-09-06"],
  ];
  for (const [name, dueDate, daysAfterDue, last] of examples) {
    it(`Exemplo ${name}: due ${dueDate}, ${daysAfterDue} days after → payable through ${last}`, () => {
      const terms: DueTerms = { originalCentavos: 10000, dueDate, daysAfterDue };
      expect(dueWindow(terms).lastDay).toBe(last);
      for (let d = dueDate; d <= last; d = addDays(d, 1)) expect(amountDue(terms, d).payable, d).toBe(true);
      expect(amountDue(terms, addDays(last, 1)).payable).toBe(false);
    });
  }

  it("moves the due date itself: Exemplo B's charge is on time on Monday 2020-12-28", () => {
    const terms: DueTerms = {
      originalCentavos: 10000,
      dueDate: "2020-12-25",
      daysAfterDue: 0,
      fine: { modalidade: 1, hundredths: 500 },
    };
    expect(dueWindow(terms).due).toBe("2020-12-28");
    expect(total(terms, "2020-12-28")).toBe(10000);
  });
});

describe("the amount due on each day", () => {
  // cobBody1: 123.45; multa modalidade 2 (percent) 15.00; juros modalidade 2 (percent a calendar day)
  // 2.00; desconto modalidade 1 (a value until the date) 30.00 until 2020-11-30; due 2020-12-31, 30 days after.
  const cobBody1: DueTerms = {
    originalCentavos: 12345,
    dueDate: "2020-12-31",
    daysAfterDue: 30,
    fine: { modalidade: 2, hundredths: 1500 },
    interest: { modalidade: 2, hundredths: 200 },
    discount: { modalidade: 1, dates: [{ date: "2020-11-30", hundredths: 3000 }] },
  };

  it("before the discount date: 123.45 − 30.00 = 93.45", () => {
    expect(amountDue(cobBody1, "2020-11-30")).toMatchObject({ payable: true, late: false, discountCentavos: 3000 });
    expect(total(cobBody1, "2020-11-30")).toBe(9345);
    expect(total(cobBody1, "2020-11-01")).toBe(9345);
  });

  it("after the discount date and on the due date: the original 123.45", () => {
    expect(total(cobBody1, "2020-12-01")).toBe(12345);
    expect(total(cobBody1, "2020-12-31")).toBe(12345);
  });

  it("one day late: fine 15% of 123.45 = 18.5175 → 18.52, interest 2% = 2.469 → 2.47: 144.44", () => {
    expect(amountDue(cobBody1, "2021-01-01")).toMatchObject({
      late: true,
      fineCentavos: 1852,
      interestCentavos: 247,
      totalCentavos: 14444,
    });
  });

  it("five days late: interest 2% × 5 of 123.45 = 12.345 → 12.35 (half up): 154.32", () => {
    expect(amountDue(cobBody1, "2021-01-05")).toMatchObject({ fineCentavos: 1852, interestCentavos: 1235 });
    expect(total(cobBody1, "2021-01-05")).toBe(15432);
  });

  it("the last day (2021-01-30 is a Saturday → Monday 2021-02-01): 32 days of interest = 79.008 → 79.01; then closed", () => {
    expect(dueWindow(cobBody1).lastDay).toBe("2021-02-01");
    expect(amountDue(cobBody1, "2021-02-01")).toMatchObject({ interestCentavos: 7901, totalCentavos: 22098 });
    expect(amountDue(cobBody1, "2021-02-02").payable).toBe(false);
  });

  it("cobPayload2: original 123.45, fine 15.00, interest 2.00 → final 140.45", () => {
    const terms: DueTerms = {
      originalCentavos: 12345,
      dueDate: "2020-12-31",
      daysAfterDue: 30,
      fine: { modalidade: 1, hundredths: 1500 },
      interest: { modalidade: 1, hundredths: 100 },
    };
    // Two calendar days late at R$ 1.00 a day.
    expect(amountDue(terms, "2021-01-02")).toMatchObject({ fineCentavos: 1500, interestCentavos: 200 });
    expect(total(terms, "2021-01-02")).toBe(14045);
  });

  it("interest per month is a 30-day month: 1% a month on 100.00, 5 days = 0.1666… → 0.17, with a 2% fine: 102.17", () => {
    const terms: DueTerms = {
      originalCentavos: 10000,
      dueDate: "2024-06-03",
      daysAfterDue: 60,
      fine: { modalidade: 2, hundredths: 200 },
      interest: { modalidade: 3, hundredths: 100 },
    };
    expect(amountDue(terms, "2024-06-08")).toMatchObject({
      fineCentavos: 200,
      interestCentavos: 17,
      totalCentavos: 10217,
    });
    // 30 days late: exactly 1%.
    expect(amountDue(terms, "2024-07-03")).toMatchObject({ interestCentavos: 100 });
  });

  it("interest per business day skips Carnival: due Friday 2024-02-09, paid Thursday the 15th = 2 business days", () => {
    const terms: DueTerms = {
      originalCentavos: 5000,
      dueDate: "2024-02-09",
      daysAfterDue: 10,
      interest: { modalidade: 5, hundredths: 100 },
    };
    expect(amountDue(terms, "2024-02-15")).toMatchObject({ interestCentavos: 200, totalCentavos: 5200 });
    // 0.5% a business day on 50.00 for 2 days = 0.50.
    expect(amountDue({ ...terms, interest: { modalidade: 6, hundredths: 50 } }, "2024-02-15")).toMatchObject({
      interestCentavos: 50,
    });
  });

  it("discounts for paying early, per calendar or business day", () => {
    const base = { originalCentavos: 10000, dueDate: "2024-02-16", daysAfterDue: 0 };
    // Friday the 9th to Friday the 16th: 7 calendar days, 3 business days (Carnival on the 12th and 13th).
    expect(amountDue({ ...base, discount: { modalidade: 3, hundredths: 10 } }, "2024-02-09")).toMatchObject({
      discountCentavos: 70,
    });
    expect(amountDue({ ...base, discount: { modalidade: 4, hundredths: 10 } }, "2024-02-09")).toMatchObject({
      discountCentavos: 30,
    });
    // 0.25% a calendar day × 7 of 100.00 = 1.75; 0.25% a business day × 3 = 0.75.
    expect(amountDue({ ...base, discount: { modalidade: 5, hundredths: 25 } }, "2024-02-09")).toMatchObject({
      discountCentavos: 175,
    });
    expect(amountDue({ ...base, discount: { modalidade: 6, hundredths: 25 } }, "2024-02-09")).toMatchObject({
      discountCentavos: 75,
    });
    // On the due date nothing is left to discount.
    expect(amountDue({ ...base, discount: { modalidade: 3, hundredths: 10 } }, "2024-02-16")).toMatchObject({
      discountCentavos: 0,
    });
  });

  it("dated discounts: the nearest date still ahead applies, percentages of the original", () => {
    const terms: DueTerms = {
      originalCentavos: 20000,
      dueDate: "2024-07-31",
      daysAfterDue: 0,
      discount: {
        modalidade: 2,
        dates: [
          { date: "2024-07-20", hundredths: 500 },
          { date: "2024-07-10", hundredths: 1000 },
        ],
      },
    };
    expect(total(terms, "2024-07-10")).toBe(18000);
    expect(total(terms, "2024-07-11")).toBe(19000);
    expect(total(terms, "2024-07-20")).toBe(19000);
    expect(total(terms, "2024-07-21")).toBe(20000);
  });

  it("a dated discount until the due date moves with it (2021-08-28 is a Saturday)", () => {
    const terms: DueTerms = {
      originalCentavos: 10000,
      dueDate: "2021-08-28",
      daysAfterDue: 5,
      discount: { modalidade: 1, dates: [{ date: "2021-08-28", hundredths: 1000 }] },
    };
    expect(total(terms, "2021-08-30")).toBe(9000);
    expect(total(terms, "2021-08-31")).toBe(10000);
  });

  it("the abatement always applies; a discount larger than what is left takes the amount to zero, never below", () => {
    const terms: DueTerms = {
      originalCentavos: 1000,
      dueDate: "2024-09-30",
      daysAfterDue: 10,
      abatement: { modalidade: 1, hundredths: 900 },
      discount: { modalidade: 3, hundredths: 50 },
    };
    expect(amountDue(terms, "2024-09-20")).toMatchObject({
      abatementCentavos: 900,
      discountCentavos: 100,
      totalCentavos: 0,
    });
    expect(total(terms, "2024-09-29")).toBe(50);
    expect(total(terms, "2024-09-30")).toBe(100);
    expect(smallestAmountDue(terms, "2024-09-20")).toEqual({ day: "2024-09-20", totalCentavos: 0 });
    expect(smallestAmountDue(terms, "2024-09-29")).toEqual({ day: "2024-09-29", totalCentavos: 50 });
    // 10% abatement of 10.00.
    expect(
      amountDue({ ...terms, abatement: { modalidade: 2, hundredths: 1000 }, discount: null }, "2024-10-01"),
    ).toMatchObject({
      abatementCentavos: 100,
      totalCentavos: 900,
    });
  });
});
