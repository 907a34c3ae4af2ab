"use client";

import Link from "next/link";
import { cn } from "@/components/ui/cn";
import { EmptyState } from "@/components/ui/card";
import { ButtonLink } from "@/components/ui/button";
import { formatFullDay } from "@/lib/i18n";
import { useI18n } from "@/lib/i18n/client";
import type { InvoiceView } from "@/lib/invoice-state/schemas";
import { InvoiceStatus } from "./invoice-status";

// The merchant's invoices, newest first: on a phone one card each (payer, amount, due date, status),
// from sm up a table; filtered by status with links, paged with the API's cursor.

const FILTERS = ["", "OPEN", "PAID", "EXPIRED", "CANCELLED"] as const;

export function InvoicesList({
  invoices,
  status,
  nextCursor,
}: {
  invoices: InvoiceView[];
  status?: string;
  nextCursor: string | null;
}) {
  const { t, money, locale } = useI18n();
  const amountOf = (i: InvoiceView) => money(Math.round((i.payment?.value ?? i.amountDue?.value ?? i.value) * 100));
  const query = (extra: Record<string, string | undefined>) => {
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries({ status, ...extra })) if (v) p.set(k, v);
    const s = p.toString();
    return s ? `/dashboard/invoices?${s}` : "/dashboard/invoices";
  };
  return (
    <div className="space-y-4">
      <nav aria-label={t("invoice.list.filter")}>
        <ul className="flex flex-wrap gap-2">
          {FILTERS.map((f) => (
            <li key={f || "all"}>
              <Link
                href={query({ status: f || undefined, cursor: undefined })}
                aria-current={(status ?? "") === f ? "page" : undefined}
                className={cn(
                  "inline-flex rounded-full border px-3 py-1.5 text-sm font-medium",
                  (status ?? "") === f
                    ? "border-brand-700 bg-brand-700 text-white"
                    : "border-slate-300 bg-white text-slate-700 hover:bg-slate-50",
                )}
              >
                {f ? t(`invoice.list.filter.${f}`) : t("invoice.list.all")}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      {invoices.length === 0 ? (
        <EmptyState
          title={t("invoice.list.empty")}
          body={t("invoice.list.emptyBody")}
          action={<ButtonLink href="/dashboard/invoices/new">{t("invoice.new")}</ButtonLink>}
        />
      ) : (
        <>
          <ul className="space-y-2 sm:hidden" data-testid="invoices-cards">
            {invoices.map((i) => (
              <li key={i.id}>
                <Link
                  href={`/dashboard/invoices/${i.id}`}
                  className="block rounded-xl border border-slate-200 bg-white p-4 shadow-sm"
                >
                  <div className="flex items-start justify-between gap-3">
                    <p className="min-w-0 break-words font-semibold text-slate-900">{i.payer.name}</p>
                    <p className="shrink-0 font-semibold tabular-nums text-slate-900">{amountOf(i)}</p>
                  </div>
                  <div className="mt-2 flex items-center justify-between gap-3 text-sm text-slate-600">
                    <span>{t("invoice.detail.due", { day: formatFullDay(i.effectiveDueDate, locale) })}</span>
                    <InvoiceStatus status={i.status} overdue={i.amountDue?.late ?? false} />
                  </div>
                </Link>
              </li>
            ))}
          </ul>
          <div className="hidden overflow-x-auto rounded-xl border border-slate-200 bg-white sm:block">
            <table className="min-w-full text-sm" data-testid="invoices-table">
              <thead className="bg-slate-50 text-left text-slate-600">
                <tr>
                  <th className="px-4 py-2 font-medium">{t("invoice.list.payer")}</th>
                  <th className="px-4 py-2 font-medium">{t("invoice.list.reference")}</th>
                  <th className="px-4 py-2 font-medium">{t("invoice.pay.dueDate")}</th>
                  <th className="px-4 py-2 text-right font-medium">{t("invoice.list.amount")}</th>
                  <th className="px-4 py-2 font-medium">{t("invoice.list.status")}</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {invoices.map((i) => (
                  <tr key={i.id} className="hover:bg-slate-50">
                    <td className="px-4 py-2">
                      <Link href={`/dashboard/invoices/${i.id}`} className="font-medium text-brand-700 hover:underline">
                        {i.payer.name}
                      </Link>
                    </td>
                    <td className="px-4 py-2 text-slate-700">{i.reference ?? "—"}</td>
                    <td className="px-4 py-2 text-slate-700">{formatFullDay(i.effectiveDueDate, locale)}</td>
                    <td className="px-4 py-2 text-right tabular-nums">{amountOf(i)}</td>
                    <td className="px-4 py-2">
                      <InvoiceStatus status={i.status} overdue={i.amountDue?.late ?? false} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {nextCursor ? (
            <ButtonLink variant="secondary" href={query({ cursor: nextCursor })}>
              {t("invoice.list.more")}
            </ButtonLink>
          ) : null}
        </>
      )}
    </div>
  );
}
