"use client";

import Link from "next/link";
import { StatusBadge } from "@/components/ui/status-badge";
import type { OrderRow } from "@/lib/dashboard/server/orders";
import { useI18n } from "@/lib/i18n/client";
import { OrderSubtitle, useOrderTitle } from "./order-name";

/** Orders as a table on wide screens and as stacked rows on phones; each named as the merchant knows it and linking to its page. */
export function OrdersTable({ orders, caption }: { orders: OrderRow[]; caption: string }) {
  const { t, money, dateTime } = useI18n();
  const title = useOrderTitle();
  return (
    <>
      <ul className="divide-y divide-slate-100 md:hidden" aria-label={caption}>
        {orders.map((o) => (
          <li key={o.id}>
            <Link
              href={`/dashboard/orders/${o.id}`}
              className="flex items-start justify-between gap-3 py-3 focus-visible:outline-2 focus-visible:outline-brand-700"
              data-testid="order-row"
              data-order-id={o.id}
            >
              <span className="min-w-0">
                <span className="block truncate text-sm font-semibold text-slate-900" data-testid="order-title">
                  {title(o.title)}
                </span>
                <span className="block truncate text-xs text-slate-600">
                  <OrderSubtitle order={o} />
                </span>
                <span className="block truncate text-xs text-slate-600">
                  {t(`kind.${o.kind}`)} · {dateTime(o.createdAt)}
                </span>
              </span>
              <span className="flex shrink-0 flex-col items-end gap-1">
                <span className="text-sm font-semibold tabular-nums text-slate-900">{money(o.valueCentavos)}</span>
                <StatusBadge status={o.status} kind={o.kind} />
              </span>
            </Link>
          </li>
        ))}
      </ul>
      <table className="hidden w-full text-left text-sm md:table">
        <caption className="sr-only">{caption}</caption>
        <thead className="border-b border-slate-200 text-xs uppercase tracking-wide text-slate-600">
          <tr>
            <th scope="col" className="py-2 pr-4 font-semibold">
              {t("orders.colDate")}
            </th>
            <th scope="col" className="py-2 pr-4 font-semibold">
              {t("orders.colId")}
            </th>
            <th scope="col" className="py-2 pr-4 font-semibold">
              {t("orders.colKind")}
            </th>
            <th scope="col" className="py-2 pr-4 text-right font-semibold">
              {t("orders.colAmount")}
            </th>
            <th scope="col" className="py-2 font-semibold">
              {t("orders.colStatus")}
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {orders.map((o) => (
            <tr key={o.id} className="hover:bg-slate-50" data-testid="order-row" data-order-id={o.id}>
              <td className="whitespace-nowrap py-2.5 pr-4 align-top text-slate-700">{dateTime(o.createdAt)}</td>
              <td className="max-w-xs py-2.5 pr-4 align-top">
                <Link
                  href={`/dashboard/orders/${o.id}`}
                  className="block truncate font-semibold text-brand-700 underline-offset-2 hover:underline"
                  data-testid="order-title"
                >
                  {title(o.title)}
                </Link>
                <span className="block truncate text-xs text-slate-600">
                  <OrderSubtitle order={o} />
                </span>
              </td>
              <td className="whitespace-nowrap py-2.5 pr-4 align-top">{t(`kind.${o.kind}`)}</td>
              <td className="whitespace-nowrap py-2.5 pr-4 text-right align-top font-medium tabular-nums">
                {money(o.valueCentavos)}
              </td>
              <td className="py-2.5 align-top">
                <StatusBadge status={o.status} kind={o.kind} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
