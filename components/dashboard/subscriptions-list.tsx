"use client";

import Link from "next/link";
import { cn } from "@/components/ui/cn";
import { EmptyState } from "@/components/ui/card";
import { ButtonLink } from "@/components/ui/button";
import { formatFullDay, type MessageKey } from "@/lib/i18n";
import { useI18n } from "@/lib/i18n/client";
import type { SubscriptionView } from "@/lib/subscriptions/schemas";
import { SubscriptionStatus } from "./subscription-status";

// The merchant's subscriptions, newest first: on a phone one card each (payer, amount and
// periodicity, next charge, status), from sm up a table; filtered by status with links and by the
// merchant's own reference, paged with the API's cursor.

const FILTERS = ["", "AWAITING_AUTHORISATION", "ACTIVE", "CANCELLED", "COMPLETED"] as const;

export function SubscriptionsList({
  subscriptions,
  status,
  reference,
  nextCursor,
  canCreate,
}: {
  subscriptions: SubscriptionView[];
  status?: string;
  reference?: string;
  nextCursor: string | null;
  canCreate: boolean;
}) {
  const { t, money, locale } = useI18n();
  const amountOf = (s: SubscriptionView) =>
    `${money(Math.round(s.amount.value * 100))}${s.amount.type === "VARIABLE" ? ` (${t("sub.amount.variableShort")})` : ""}`;
  const every = (s: SubscriptionView) => t(`sub.periodicity.${s.periodicity}` as MessageKey);
  const next = (s: SubscriptionView) => (s.nextChargeDate ? formatFullDay(s.nextChargeDate, locale) : "—");
  const query = (extra: Record<string, string | undefined>) => {
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries({ status, reference, ...extra })) if (v) p.set(k, v);
    const s = p.toString();
    return s ? `/dashboard/subscriptions?${s}` : "/dashboard/subscriptions";
  };
  return (
    <div className="space-y-4">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-end sm:justify-between">
        <nav aria-label={t("sub.list.filter")}>
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
                  {f ? t(`sub.list.filter.${f}` as MessageKey) : t("sub.list.all")}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <form action="/dashboard/subscriptions" method="get" className="flex gap-2" role="search">
          {status ? <input type="hidden" name="status" value={status} /> : null}
          <label className="sr-only" htmlFor="sub-reference">
            {t("sub.list.searchLabel")}
          </label>
          <input
            id="sub-reference"
            name="reference"
            defaultValue={reference}
            maxLength={35}
            placeholder={t("sub.list.searchPlaceholder")}
            className="w-full min-w-0 rounded-lg border border-slate-300 px-3 py-2 text-sm sm:w-56"
          />
          <button type="submit" className="rounded-lg border border-slate-300 bg-white px-3 py-2 text-sm font-medium">
            {t("sub.list.search")}
          </button>
        </form>
      </div>
      {subscriptions.length === 0 ? (
        <EmptyState
          title={t("sub.list.empty")}
          body={t("sub.list.emptyBody")}
          action={canCreate ? <ButtonLink href="/dashboard/subscriptions/new">{t("sub.new")}</ButtonLink> : undefined}
        />
      ) : (
        <>
          <ul className="space-y-2 sm:hidden" data-testid="subscriptions-cards">
            {subscriptions.map((s) => (
              <li key={s.id}>
                <Link
                  href={`/dashboard/subscriptions/${s.id}`}
                  className="block rounded-xl border border-slate-200 bg-white p-4 shadow-sm"
                >
                  <div className="flex items-start justify-between gap-3">
                    <p className="min-w-0 break-words font-semibold text-slate-900">{s.payer.name}</p>
                    <p className="shrink-0 text-right font-semibold tabular-nums text-slate-900">
                      {amountOf(s)}
                      <span className="block text-xs font-normal text-slate-600">{every(s)}</span>
                    </p>
                  </div>
                  <p className="mt-1 break-words text-sm text-slate-600">{s.description}</p>
                  <div className="mt-2 flex items-center justify-between gap-3 text-sm text-slate-600">
                    <span>{s.nextChargeDate ? t("sub.list.nextOn", { day: next(s) }) : t("sub.list.noNext")}</span>
                    <SubscriptionStatus status={s.status} />
                  </div>
                </Link>
              </li>
            ))}
          </ul>
          <div className="hidden overflow-x-auto rounded-xl border border-slate-200 bg-white sm:block">
            <table className="min-w-full text-sm" data-testid="subscriptions-table">
              <thead className="bg-slate-50 text-left text-slate-600">
                <tr>
                  <th className="px-4 py-2 font-medium">{t("sub.list.payer")}</th>
                  <th className="px-4 py-2 font-medium">{t("sub.list.reference")}</th>
                  <th className="px-4 py-2 font-medium">{t("sub.list.periodicity")}</th>
                  <th className="px-4 py-2 font-medium">{t("sub.list.next")}</th>
                  <th className="px-4 py-2 text-right font-medium">{t("sub.list.amount")}</th>
                  <th className="px-4 py-2 font-medium">{t("sub.list.status")}</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {subscriptions.map((s) => (
                  <tr key={s.id} className="hover:bg-slate-50">
                    <td className="px-4 py-2">
                      <Link
                        href={`/dashboard/subscriptions/${s.id}`}
                        className="font-medium text-brand-700 hover:underline"
                      >
                        {s.payer.name}
                      </Link>
                      <span className="block text-xs text-slate-600">{s.description}</span>
                    </td>
                    <td className="px-4 py-2 text-slate-700">{s.reference ?? "—"}</td>
                    <td className="px-4 py-2 text-slate-700">{every(s)}</td>
                    <td className="px-4 py-2 text-slate-700">{next(s)}</td>
                    <td className="px-4 py-2 text-right tabular-nums">{amountOf(s)}</td>
                    <td className="px-4 py-2">
                      <SubscriptionStatus status={s.status} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {nextCursor ? (
            <ButtonLink variant="secondary" href={query({ cursor: nextCursor })}>
              {t("sub.list.more")}
            </ButtonLink>
          ) : null}
        </>
      )}
    </div>
  );
}
