import { InvalidInput } from "@/lib/errors";
import { addDays, daysBetween } from "@/lib/pix/business-days";
import { smallestAmountDue, type DueTerms } from "@/lib/pix/due-amount";
import type { CreateInvoiceInput } from "./schemas";

// The checks of an invoice's terms that need today's date or more than one field: the refusals the
// document lists for PUT /cobv/{txid} ("Violações": a due date before the charge's creation, an
// abatement or a discount as large as the value, a discount dated after the due date), and ours: no
// discount dated in the past, and a charge that asks at least a centavo every day it can be paid.

/** How far ahead a due date may be. */
export const MAX_DAYS_AHEAD = 5 * 366;

/** The terms as stored and computed: an absent term is null. */
export function termsOfInput(input: CreateInvoiceInput): DueTerms {
  const { value, dueDate, daysAfterDue, fine = null, interest = null, abatement = null, discount = null } = input;
  return { originalCentavos: value, dueDate, daysAfterDue, fine, interest, abatement, discount } as DueTerms;
}

/** Throws the first refusal of `terms` made `today` (a São Paulo day). */
export function checkTerms(terms: DueTerms, today: string): void {
  if (daysBetween(today, terms.dueDate) < 0)
    throw new InvalidInput(`dueDate must be today (${today}) or later`, {
      code: "invoice.dueDatePast",
      values: { today },
    });
  if (daysBetween(today, terms.dueDate) > MAX_DAYS_AHEAD)
    throw new InvalidInput(`dueDate must be at most ${MAX_DAYS_AHEAD} days ahead (${addDays(today, MAX_DAYS_AHEAD)})`, {
      code: "invoice.dueDateFar",
      values: { latest: addDays(today, MAX_DAYS_AHEAD) },
    });
  const original = terms.originalCentavos;
  if (terms.abatement?.modalidade === 1 && terms.abatement.hundredths >= original)
    throw new InvalidInput("abatement.value must be less than the invoice's value", {
      code: "invoice.abatementTooLarge",
    });
  const d = terms.discount;
  if (d && "dates" in d) {
    for (const e of d.dates) {
      if (daysBetween(e.date, terms.dueDate) < 0)
        throw new InvalidInput(`discount date ${e.date} is after the due date ${terms.dueDate}`, {
          code: "invoice.discountDate",
          values: { dueDate: terms.dueDate },
        });
      if (daysBetween(today, e.date) < 0)
        throw new InvalidInput(`discount date ${e.date} is before today (${today})`, {
          code: "invoice.discountDatePast",
          values: { today },
        });
      if (d.modalidade === 1 && e.hundredths >= original)
        throw new InvalidInput("each discount value must be less than the invoice's value", {
          code: "invoice.discountTooLarge",
        });
    }
  }
  if (d && (d.modalidade === 3 || d.modalidade === 4) && d.hundredths >= original)
    throw new InvalidInput("discount.value must be less than the invoice's value", {
      code: "invoice.discountTooLarge",
    });
  // A PIX carries at least a centavo: a day whose discounts and abatement leave nothing to pay is refused.
  const smallest = smallestAmountDue(terms, today);
  if (smallest.totalCentavos < 1)
    throw new InvalidInput(
      `abatement and discount leave nothing to pay on ${smallest.day}: every day it can be paid must ask at least R$ 0.01`,
      { code: "invoice.amountTooSmall", values: { day: smallest.day } },
    );
}
