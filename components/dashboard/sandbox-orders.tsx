"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { StatusBadge } from "@/components/ui/status-badge";
import type { OrderRow } from "@/lib/dashboard/server/orders";
import { useI18n } from "@/lib/i18n/client";
import { OrderSubtitle, useOrderTitle } from "./order-name";
import { SimulatePayment } from "./simulate-payment";

/** Pending orders with a "simulate payment" button each (sandbox only). */
export function SandboxOrders({ orders }: { orders: OrderRow[] }) {
  const { t, money, dateTime } = useI18n();
  const router = useRouter();
  const title = useOrderTitle();
  if (orders.length === 0) return <p className="text-sm text-slate-600">{t("developers.noPending")}</p>;
  return (
    <ul className="divide-y divide-slate-100">
      {orders.map((o) => (
        <li key={o.id} className="flex flex-wrap items-center justify-between gap-3 py-3">
          <div className="min-w-0">
            <Link
              href={`/dashboard/orders/${o.id}`}
              className="text-sm font-semibold text-brand-700 underline-offset-2 hover:underline"
            >
              {title(o.title)}
            </Link>
            <p className="text-xs text-slate-600">
              <OrderSubtitle order={o} />
            </p>
            <p className="text-xs text-slate-600">
              {money(o.valueCentavos)} · {t(`kind.${o.kind}`)} · {dateTime(o.createdAt)}
            </p>
          </div>
          <div className="flex items-center gap-3">
            <StatusBadge status={o.status} kind={o.kind} />
            {/* The list is server-rendered: refresh it so a paid order drops out. */}
            <SimulatePayment orderId={o.id} compact onDone={() => router.refresh()} />
          </div>
        </li>
      ))}
    </ul>
  );
}
