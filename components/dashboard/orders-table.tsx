"use client";

import Link from "next/link";
import { StatusBadge } from "@/components/ui/status-badge";
import type { OrderRow } from "@/lib/dashboard/server/orders";
import { useI18n } from "@/lib/i18n/client";

function shortId(row: OrderRow) {
  return row.paymentLinkId ?? row.id.slice(0, 8);
}

/** Orders as a table on wide screens and as stacked rows on phones; each links to its page. */
export function OrdersTable({ orders, caption }: { orders: OrderRow[]; caption: string }) {
  const { t, money, dateTime } = useI18n();
  return (
    <>
      <ul className="divide-y divide-slate-100 md:hidden" aria-label={caption}>
        {orders.map((o) => (
          <li key={o.id}>
            <Link
              href={`/dashboard/orders/${o.id}`}
              className="flex items-center justify-between gap-3 py-3 focus-visible:outline-2 focus-visible:outline-brand-700"
              data-testid="order-row"
              data-order-id={o.id}
            >
              <span className="min-w-0">
                <span className="block text-sm font-semibold text-slate-900">
                  {money(o.valueCentavos)} · {t(`kind.${o.kind}`)}
                </span>
                <span className="block truncate text-xs text-slate-600">
                  {dateTime(o.createdAt)} · <span className="font-mono">{shortId(o)}</span>
                </span>
              </span>
              <StatusBadge status={o.status} kind={o.kind} />
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
              {t("orders.colKind")}
            </th>
            <th scope="col" className="py-2 pr-4 font-semibold">
              {t("orders.colId")}
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
              <td className="whitespace-nowrap py-2.5 pr-4 text-slate-700">{dateTime(o.createdAt)}</td>
              <td className="whitespace-nowrap py-2.5 pr-4">{t(`kind.${o.kind}`)}</td>
              <td className="py-2.5 pr-4">
                <Link href={`/dashboard/orders/${o.id}`} className="font-mono text-xs font-semibold text-brand-700 underline-offset-2 hover:underline">
                  {shortId(o)}
                </Link>
              </td>
              <td className="whitespace-nowrap py-2.5 pr-4 text-right font-medium tabular-nums">{money(o.valueCentavos)}</td>
              <td className="py-2.5">
                <StatusBadge status={o.status} kind={o.kind} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
