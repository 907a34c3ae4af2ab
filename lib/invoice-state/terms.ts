import type { Invoice } from "@/db/schema";
import { saoPauloDay } from "@/lib/day-range";
import { centavosToBrl } from "@/lib/money";
import { amountDue, type DayAmount, type DiscountTerms, type DueTerms } from "@/lib/pix/due-amount";
import type { InvoiceAmountView, InvoiceView } from "./schemas";

// An invoice's terms as the amount due reads them (lib/pix/due-amount.ts: hundredths, centavos) and as
// the API writes them (BRL values and percentages, with the document's modalidade numbers).

/** The terms the amount due is computed from. */
export function termsOf(i: Invoice): DueTerms {
  return {
    originalCentavos: i.originalCentavos,
    dueDate: i.dueDate,
    daysAfterDue: i.daysAfterDue,
    fine: i.fine,
    interest: i.interest,
    abatement: i.abatement,
    discount: i.discount,
  };
}

/** What paying at an instant takes: the São Paulo day it falls on decides. */
export function amountDueAt(i: Invoice, at: Date): DayAmount {
  return amountDue(termsOf(i), saoPauloDay(at));
}

// A value's hundredths are centavos; a percentage's are hundredths of a percent: either way /100.
const asNumber = (hundredths: number) => centavosToBrl(hundredths);
const VALUE_MODES = new Set([1, 3, 4, 5]);

function term<M extends number>(modalidade: M, hundredths: number, valueModes = new Set([1])) {
  return valueModes.has(modalidade)
    ? { modalidade, value: asNumber(hundredths) }
    : { modalidade, percent: asNumber(hundredths) };
}

function discountTerm(d: DiscountTerms): NonNullable<InvoiceView["discount"]> {
  if ("dates" in d)
    return d.modalidade === 1
      ? { modalidade: 1, dates: d.dates.map((e) => ({ date: e.date, value: asNumber(e.hundredths) })) }
      : { modalidade: 2, dates: d.dates.map((e) => ({ date: e.date, percent: asNumber(e.hundredths) })) };
  return term(d.modalidade, d.hundredths, VALUE_MODES) as NonNullable<InvoiceView["discount"]>;
}

/** The terms as the API shows them. */
export function termViews(i: Invoice): Pick<InvoiceView, "fine" | "interest" | "abatement" | "discount"> {
  return {
    fine: i.fine ? (term(i.fine.modalidade, i.fine.hundredths) as InvoiceView["fine"]) : null,
    interest: i.interest
      ? (term(i.interest.modalidade, i.interest.hundredths, new Set([1, 5])) as InvoiceView["interest"])
      : null,
    abatement: i.abatement ? (term(i.abatement.modalidade, i.abatement.hundredths) as InvoiceView["abatement"]) : null,
    discount: i.discount ? discountTerm(i.discount) : null,
  };
}

/** A day's amount as the API shows it; null when that day it cannot be paid. */
export function amountView(a: DayAmount): InvoiceAmountView | null {
  if (!a.payable) return null;
  return {
    day: a.day,
    value: centavosToBrl(a.totalCentavos),
    original: centavosToBrl(a.originalCentavos),
    fine: centavosToBrl(a.fineCentavos),
    interest: centavosToBrl(a.interestCentavos),
    abatement: centavosToBrl(a.abatementCentavos),
    discount: centavosToBrl(a.discountCentavos),
    late: a.late,
  };
}
