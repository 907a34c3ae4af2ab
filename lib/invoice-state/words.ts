import { formatFullDay, formatMoney, translate, type Locale, type MessageKey } from "@/lib/i18n";
import type { InvoiceView } from "./schemas";

// An invoice's terms in words, for the payer's page, the mail with its link and the dashboard: what a
// fine, interest, abatement and discount come to, in the reader's language. Pure: client and server.

type Terms = Pick<InvoiceView, "fine" | "interest" | "abatement" | "discount">;

const reais = (v: number, l: Locale) => formatMoney(Math.round(v * 100), l);
const percent = (p: number, l: Locale) => `${new Intl.NumberFormat(l, { maximumFractionDigits: 2 }).format(p)}%`;
const amountOf = (t: { value?: number; percent?: number }, l: Locale) =>
  t.value !== undefined ? reais(t.value, l) : percent(t.percent!, l);

const INTEREST: Record<number, MessageKey> = {
  1: "invoice.terms.interest1",
  2: "invoice.terms.interest2",
  3: "invoice.terms.interest3",
  5: "invoice.terms.interest5",
  6: "invoice.terms.interest6",
};
const PER_DAY_DISCOUNT: Record<number, MessageKey> = {
  3: "invoice.terms.discountPerDay",
  4: "invoice.terms.discountPerBusinessDay",
  5: "invoice.terms.discountPerDay",
  6: "invoice.terms.discountPerBusinessDay",
};

/** What paying late adds (fine, interest), one sentence each; [] when nothing. */
export function lateTermLines(terms: Terms, locale: Locale): string[] {
  const lines: string[] = [];
  if (terms.fine) lines.push(translate(locale, "invoice.terms.fine", { amount: amountOf(terms.fine, locale) }));
  if (terms.interest)
    lines.push(translate(locale, INTEREST[terms.interest.modalidade], { amount: amountOf(terms.interest, locale) }));
  return lines;
}

/** What paying early or at all takes off (discounts, abatement), one sentence each. */
export function reliefTermLines(terms: Terms, locale: Locale): string[] {
  const lines: string[] = [];
  const d = terms.discount;
  if (d && "dates" in d)
    for (const e of d.dates)
      lines.push(
        translate(locale, "invoice.terms.discountUntil", {
          amount: amountOf(e, locale),
          date: formatFullDay(e.date, locale),
        }),
      );
  else if (d) lines.push(translate(locale, PER_DAY_DISCOUNT[d.modalidade], { amount: amountOf(d, locale) }));
  if (terms.abatement)
    lines.push(translate(locale, "invoice.terms.abatement", { amount: amountOf(terms.abatement, locale) }));
  return lines;
}
