"use client";

import Link from "next/link";
import { Card, CardTitle } from "@/components/ui/card";
import type { SplitLine } from "@/lib/dashboard/order-views";
import { useI18n } from "@/lib/i18n/client";
import { Brl, Pill } from "./recipient-bits";

// The order's split on its page (only the merchant's: the payer's checkout and receipt show none):
// each part's recipient, amount and state, and what the merchant keeps of the order's value.

export function SplitCard({ splits, valueCentavos }: { splits: SplitLine[]; valueCentavos: number }) {
  const { t, money, locale } = useI18n();
  const parts = splits.reduce((a, s) => a + Math.round(s.value * 100), 0);
  return (
    <Card aria-labelledby="split-title" data-testid="order-split">
      <CardTitle id="split-title">{t("order.split.title")}</CardTitle>
      <ul className="mt-2 divide-y divide-slate-100">
        {splits.map((s) => (
          <li
            key={s.recipientId}
            className="flex flex-wrap items-center justify-between gap-2 py-2"
            data-testid="split-line"
          >
            <div className="min-w-0">
              <Link
                href={`/dashboard/recipients/${s.recipientId}`}
                className="break-words font-medium text-brand-700 hover:underline"
              >
                {s.recipientName}
              </Link>
              <p className="text-xs text-slate-600">
                {s.percentage !== undefined
                  ? t("order.split.percentage", { p: s.percentage.toLocaleString(locale) })
                  : null}
                {s.refundedValue > 0
                  ? ` ${t("order.split.refunded", { value: money(Math.round(s.refundedValue * 100)) })}`
                  : null}
              </p>
            </div>
            <div className="flex items-center gap-3">
              <Brl value={s.value} className="font-semibold text-slate-900" />
              <Pill status={s.status} label={`order.split.${s.status}`} />
            </div>
          </li>
        ))}
        <li className="flex items-center justify-between gap-2 py-2 text-sm" data-testid="split-merchant">
          <span className="text-slate-700">{t("order.split.merchant")}</span>
          <span className="font-semibold tabular-nums text-slate-900">{money(valueCentavos - parts)}</span>
        </li>
      </ul>
    </Card>
  );
}
