"use client";

import { formatFullDay } from "@/lib/i18n";
import { useI18n } from "@/lib/i18n/client";
import type { InvoiceAmountView, PublicInvoice } from "@/lib/invoice-state/schemas";
import { lateTermLines, reliefTermLines } from "@/lib/invoice-state/words";
import type { ReceiptLine } from "./parts";

// An invoice on its payer's page: who it bills, the due date and the last day, what today's amount is
// made of, what it is on the due date and what changes after it. Amounts are the server's (the day's
// amount due, lib/pix/due-amount.ts): the page never computes one.

const cents = (brl: number) => Math.round(brl * 100);

/** An amount part by part: the original, then each discount, abatement, fine and interest that applies. */
export function Breakdown({
  amount,
}: {
  amount: Pick<InvoiceAmountView, "original" | "discount" | "abatement" | "fine" | "interest">;
}) {
  const { t, money } = useI18n();
  const parts: [string, number, "+" | "−"][] = [
    [t("invoice.part.discount"), amount.discount, "−"],
    [t("invoice.part.abatement"), amount.abatement, "−"],
    [t("invoice.part.fine"), amount.fine, "+"],
    [t("invoice.part.interest"), amount.interest, "+"],
  ];
  return (
    <dl className="space-y-1 text-sm" data-testid="invoice-breakdown">
      <div className="flex justify-between gap-4">
        <dt className="text-slate-600">{t("invoice.part.original")}</dt>
        <dd className="tabular-nums text-slate-900">{money(cents(amount.original))}</dd>
      </div>
      {parts
        .filter(([, v]) => v > 0)
        .map(([label, v, sign]) => (
          <div key={label} className="flex justify-between gap-4">
            <dt className="text-slate-600">{label}</dt>
            <dd className={`tabular-nums ${sign === "−" ? "text-brand-700" : "text-amber-800"}`}>
              {sign} {money(cents(v))}
            </dd>
          </div>
        ))}
    </dl>
  );
}

/** Above the code while it can be paid, kept short so the code stays in a phone's first screen: who bills whom, until when. */
export function InvoiceSummary({ invoice, merchant }: { invoice: PublicInvoice; merchant: string }) {
  const { t, locale } = useI18n();
  const day = (d: string) => formatFullDay(d, locale);
  return (
    <section className="space-y-2 rounded-xl border border-slate-200 p-3" data-testid="invoice-summary">
      <p className="text-sm text-slate-700">{t("invoice.pay.billedTo", { merchant, payer: invoice.payerName })}</p>
      {invoice.description ? (
        <p className="text-sm text-slate-700" data-testid="pay-description">
          {t("pay.description")}:{" "}
          <span className="break-words font-semibold text-slate-900">{invoice.description}</span>
        </p>
      ) : null}
      <dl className="grid grid-cols-2 gap-3 text-sm">
        <div>
          <dt className="text-slate-600">{t("invoice.pay.dueDate")}</dt>
          <dd className="font-semibold text-slate-900" data-testid="invoice-due-date">
            {day(invoice.effectiveDueDate)}
          </dd>
        </div>
        <div>
          <dt className="text-slate-600">{t("invoice.pay.lastDay")}</dt>
          <dd className="font-semibold text-slate-900" data-testid="invoice-last-day">
            {day(invoice.lastPayableDay)}
          </dd>
        </div>
      </dl>
      {invoice.amountDue?.late ? (
        <p className="rounded-lg border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900" role="status">
          {t("invoice.pay.lateNow")}
        </p>
      ) : null}
    </section>
  );
}

/** Below the code: today's amount part by part, the due date's, the terms in words and what changes after it. */
export function InvoiceTerms({ invoice }: { invoice: PublicInvoice }) {
  const { t, money, locale } = useI18n();
  const day = (d: string) => formatFullDay(d, locale);
  const today = invoice.amountDue;
  const late = lateTermLines(invoice, locale);
  const relief = reliefTermLines(invoice, locale);
  // The due date's amount is worth a line only when it is not today's (a discount that ends before it).
  const beforeDue =
    today && !today.late && today.day !== invoice.effectiveDueDate && invoice.onDueDate?.value !== today.value;
  return (
    <section className="space-y-3 rounded-xl border border-slate-200 p-4" data-testid="invoice-terms">
      {today ? (
        <div className="rounded-lg bg-slate-50 p-3">
          <p className="mb-2 text-xs font-semibold uppercase tracking-wide text-slate-600">
            {t("invoice.pay.todayBreakdown", { day: day(today.day) })}
          </p>
          <Breakdown amount={today} />
        </div>
      ) : null}
      {beforeDue && invoice.onDueDate ? (
        <p className="text-sm text-slate-700" data-testid="invoice-on-due-date">
          {t("invoice.pay.onDueDate", {
            day: day(invoice.effectiveDueDate),
            amount: money(cents(invoice.onDueDate.value)),
          })}
        </p>
      ) : null}
      {relief.length > 0 || late.length > 0 ? (
        <ul className="list-disc space-y-1 pl-5 text-sm text-slate-700" data-testid="invoice-conditions">
          {[...relief, ...late].map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      ) : null}
      {today && !today.late && invoice.afterDueDate && late.length > 0 ? (
        <p
          className="rounded-lg border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900"
          data-testid="invoice-after-due"
        >
          {t("invoice.pay.afterDue", {
            day: day(invoice.afterDueDate.day),
            amount: money(cents(invoice.afterDueDate.value)),
          })}
        </p>
      ) : null}
    </section>
  );
}

/** The receipt's lines for a paid invoice: what the payment was made of, and the due date it met or missed. */
export function invoiceReceiptLines(
  invoice: PublicInvoice,
  t: ReturnType<typeof useI18n>["t"],
  money: (c: number) => string,
  locale: Parameters<typeof formatFullDay>[1],
): ReceiptLine[] {
  const p = invoice.payment;
  if (!p) return [];
  const lines: ReceiptLine[] = [
    { label: t("invoice.pay.dueDate"), value: formatFullDay(invoice.effectiveDueDate, locale) },
    { label: t("invoice.part.original"), value: money(cents(p.original)), testId: "receipt-original" },
  ];
  if (p.discount > 0)
    lines.push({
      label: t("invoice.part.discount"),
      value: `− ${money(cents(p.discount))}`,
      testId: "receipt-discount",
    });
  if (p.abatement > 0) lines.push({ label: t("invoice.part.abatement"), value: `− ${money(cents(p.abatement))}` });
  if (p.fine > 0)
    lines.push({ label: t("invoice.part.fine"), value: `+ ${money(cents(p.fine))}`, testId: "receipt-fine" });
  if (p.interest > 0)
    lines.push({
      label: t("invoice.part.interest"),
      value: `+ ${money(cents(p.interest))}`,
      testId: "receipt-interest",
    });
  return lines;
}
