"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { ButtonLink } from "@/components/ui/button";
import { Card, CardTitle, EmptyState } from "@/components/ui/card";
import { getJson } from "@/lib/browser/fetch-json";
import type { Overview } from "@/lib/dashboard/server/overview";
import { POLL_MS, queryKeys } from "@/lib/browser/query-keys";
import { useI18n } from "@/lib/i18n/client";
import { OrdersTable } from "./orders-table";
import { ReceivedChart } from "./received-chart";

function Stat({
  label,
  value,
  hint,
  testId,
}: {
  label: string;
  value: string;
  hint?: React.ReactNode;
  testId?: string;
}) {
  return (
    <Card className="!p-4 sm:!p-5">
      <p className="text-sm text-slate-600">{label}</p>
      <p className="mt-1 text-2xl font-bold tabular-nums text-slate-900" data-testid={testId}>
        {value}
      </p>
      {hint ? <p className="mt-1 text-xs text-slate-600">{hint}</p> : null}
    </Card>
  );
}

/** The overview, kept current by polling: balance, today's volume, 30 days and the latest orders. */
export function OverviewLive({ initial }: { initial: Overview }) {
  const { t, tp, money, dateTime } = useI18n();
  const { data } = useQuery({
    queryKey: queryKeys.overview(),
    queryFn: () => getJson<Overview>("/dashboard/api/overview"),
    initialData: initial,
    refetchInterval: POLL_MS,
  });
  const month = data.days.reduce((s, d) => s + d.centavos, 0);
  return (
    <div className="space-y-6">
      <div className="grid gap-4 sm:grid-cols-3">
        <Stat
          label={t("overview.balance")}
          value={money(data.balanceCentavos)}
          hint={
            <>
              {data.balanceCentavos < 0 ? (
                <span className="block font-semibold text-red-700" data-testid="balance-negative">
                  {t("balance.negative")}
                </span>
              ) : null}
              {data.held.length > 0 ? (
                <span className="block text-amber-800" data-testid="balance-held">
                  {t("balance.held", { amount: money(data.held.reduce((a, h) => a + h.valueCentavos, 0)) })}{" "}
                  {data.held.map((h) => (
                    <Link
                      key={`${h.orderId}-${h.deadline}`}
                      href={`/dashboard/orders/${h.orderId}`}
                      className="block font-semibold underline underline-offset-2"
                    >
                      {t("balance.heldItem", { amount: money(h.valueCentavos), deadline: dateTime(h.deadline) })}
                    </Link>
                  ))}
                </span>
              ) : null}
              {t("overview.balanceHint")}{" "}
              <Link
                href="/dashboard/statement"
                className="font-semibold text-brand-700 underline underline-offset-2"
                data-testid="balance-statement-link"
              >
                {t("overview.balanceLink")}
              </Link>
            </>
          }
          testId="balance"
        />
        <Stat
          label={t("overview.today")}
          value={money(data.today.centavos)}
          hint={tp("overview.todayCount", data.today.count)}
          testId="today"
        />
        <Stat label={t("overview.month")} value={money(month)} />
      </div>
      {data.subscriptions.active > 0 || data.subscriptions.failedCycles > 0 ? (
        <div className="grid gap-4 sm:grid-cols-2" data-testid="overview-subscriptions">
          <Stat
            label={t("overview.mrr")}
            value={money(data.subscriptions.mrrCentavos)}
            hint={
              <>
                {tp("overview.mrrCount", data.subscriptions.active)}{" "}
                <Link
                  href="/dashboard/subscriptions?status=ACTIVE"
                  className="font-semibold text-brand-700 underline underline-offset-2"
                >
                  {t("overview.mrrLink")}
                </Link>
              </>
            }
            testId="mrr"
          />
          <Stat
            label={t("overview.failedCycles")}
            value={String(data.subscriptions.failedCycles)}
            hint={t("overview.failedCyclesHint")}
            testId="failed-cycles"
          />
        </div>
      ) : null}
      <Card>
        <ReceivedChart days={data.days} />
      </Card>
      <Card>
        <div className="mb-3 flex items-center justify-between gap-2">
          <CardTitle>{t("overview.latest")}</CardTitle>
          <Link
            href="/dashboard/orders"
            className="text-sm font-semibold text-brand-700 underline-offset-2 hover:underline"
          >
            {t("overview.seeAll")}
          </Link>
        </div>
        {data.latest.length === 0 ? (
          <EmptyState
            title={t("overview.emptyTitle")}
            body={t("overview.emptyBody")}
            action={<ButtonLink href="/dashboard/orders/new">{t("orders.create")}</ButtonLink>}
          />
        ) : (
          <OrdersTable orders={data.latest} caption={t("overview.latest")} />
        )}
      </Card>
    </div>
  );
}
