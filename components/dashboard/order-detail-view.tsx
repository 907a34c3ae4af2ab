"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useCallback } from "react";
import { Alert, Card, CardTitle, DefinitionList } from "@/components/ui/card";
import { StatusBadge } from "@/components/ui/status-badge";
import { getJson } from "@/lib/browser/fetch-json";
import type { Fact, OrderDetail, TransferLine } from "@/lib/dashboard/order-views";
import { POLL_MS, queryKeys } from "@/lib/browser/query-keys";
import { timelineLine } from "@/lib/dashboard/timeline";
import { formatRate } from "@/lib/i18n";
import { useI18n } from "@/lib/i18n/client";
import { PaymentPanel } from "./payment-panel";
import { RefundsPanel } from "./refunds-panel";
import { SimulatePayment } from "./simulate-payment";
import { UnappliedPanel } from "./unapplied-panel";
import { SplitCard } from "./split-card";

const DOT = { good: "bg-brand-500", bad: "bg-amber-500", neutral: "bg-slate-400" } as const;

function FactValue({ fact }: { fact: Fact }) {
  const { t, money, dateTime, crypto, locale } = useI18n();
  switch (fact.type) {
    case "rate":
      return <>{t("order.rateValue", { asset: fact.asset, rate: formatRate(fact.value, locale) })}</>;
    case "money":
      return <>{money(fact.value)}</>;
    case "date":
      return <>{dateTime(fact.value)}</>;
    case "status":
      return <>{t(`refundStatus.${fact.value as "PENDING" | "COMPLETED" | "FAILED"}`)}</>;
    case "holdInvoice":
      return (
        <span className={fact.value === "SETTLE_FAILING" ? "font-medium text-amber-800" : undefined}>
          {t(`holdInvoice.${fact.value}`)}
        </span>
      );
    case "crypto":
      return (
        <span className="tabular-nums">
          {crypto(fact.value)} {fact.unit}
        </span>
      );
    case "mono":
      return (
        <span translate="no" className="break-all font-mono text-xs">
          {fact.value}
        </span>
      );
    default:
      return <>{fact.value}</>;
  }
}

function TransferItem({ transfer }: { transfer: TransferLine }) {
  const { t, crypto, dateTime } = useI18n();
  const counted = transfer.use === "counted";
  return (
    <li className="flex flex-wrap items-start justify-between gap-2 py-2 text-sm" data-testid="transfer">
      <span className="min-w-0">
        <span className="block tabular-nums font-medium text-slate-900">
          {crypto(transfer.amount)} {transfer.unit} · {transfer.network}
        </span>
        <span translate="no" className="block break-all font-mono text-xs text-slate-600">
          {transfer.txHash}
        </span>
        {transfer.fromAddress ? (
          <span className="block break-all text-xs text-slate-600">
            {t("order.transferFrom", { address: transfer.fromAddress })}
          </span>
        ) : null}
      </span>
      <span className="text-right text-xs">
        <span
          className={counted ? "block text-emerald-700" : "block font-medium text-amber-800"}
          title={transfer.note ?? undefined}
        >
          {t(`transferUse.${transfer.use}`, { counted: `${crypto(transfer.counted)} ${transfer.unit}` })}
        </span>
        {transfer.refundStatus ? (
          <span className="block text-slate-700">
            {t("order.transferRefund", {
              status: t(`refundStatus.${transfer.refundStatus as "PENDING" | "COMPLETED" | "FAILED"}`),
            })}
          </span>
        ) : null}
        <span className="block text-slate-600">{dateTime(transfer.at)}</span>
      </span>
    </li>
  );
}

/** One order, live: polls while it can still change, so status, timeline and deliveries update alone. */
/** `canRefund` / `canSimulate`: what this user's role allows (the actions check again). */
export function OrderDetailView({
  initial,
  canRefund,
  canSimulate,
}: {
  initial: OrderDetail;
  canRefund: boolean;
  canSimulate: boolean;
}) {
  const { t, tp, money, dateTime } = useI18n();
  const client = useQueryClient();
  const { data } = useQuery({
    queryKey: queryKeys.order(initial.id),
    queryFn: () => getJson<OrderDetail>(`/dashboard/api/orders/${initial.id}`),
    initialData: initial,
    // Deliveries keep changing after an order is final (retries), so keep polling, more slowly.
    refetchInterval: (q) => (q.state.data?.final ? POLL_MS * 4 : POLL_MS),
  });
  const refresh = useCallback(
    () => void client.invalidateQueries({ queryKey: queryKeys.order(initial.id) }),
    [client, initial.id],
  );
  return (
    <div className="space-y-6">
      <Card>
        <div className="flex flex-wrap items-start justify-between gap-4">
          <div>
            <p className="text-sm text-slate-600">{t(`kind.${data.kind}`)}</p>
            <p className="mt-1 text-3xl font-bold tabular-nums text-slate-900" data-testid="order-amount">
              {money(data.valueCentavos)}
            </p>
          </div>
          <div aria-live="polite" data-testid="order-status">
            <StatusBadge status={data.status} kind={data.kind} className="text-sm" />
          </div>
        </div>
        <div className="mt-4">
          <DefinitionList
            items={[
              { label: t("order.created"), value: dateTime(data.createdAt) },
              { label: t("order.expires"), value: data.expiresAt ? dateTime(data.expiresAt) : t("order.noExpiry") },
              // A Crypto-PIX payment's paidAt is when the crypto arrived in full, not when its PIX was paid.
              ...(data.paidAt
                ? [
                    {
                      label: t(data.kind === "crypto_pix" ? "order.cryptoReceivedAt" : "order.paidAt"),
                      value: dateTime(data.paidAt),
                    },
                  ]
                : []),
              ...(data.link
                ? [
                    {
                      label: t("order.paymentLink"),
                      value: <span className="break-all font-mono text-xs">{data.link}</span>,
                    },
                  ]
                : []),
            ]}
          />
        </div>
      </Card>

      {data.payment ? (
        <Card aria-labelledby="pay-title">
          <CardTitle id="pay-title">{t("order.pay")}</CardTitle>
          <p className="mb-4 mt-1 text-sm text-slate-600">{t("order.payHint")}</p>
          <PaymentPanel
            {...data.payment}
            link={data.link}
            valueCentavos={data.valueCentavos}
            expiresAt={data.expiresAt}
            onExpire={refresh}
          />
          {data.canSimulate && canSimulate ? (
            <div className="mt-6 border-t border-slate-100 pt-4">
              <SimulatePayment orderId={data.id} />
            </div>
          ) : null}
        </Card>
      ) : data.status === "COMPLETED" ? (
        <Alert tone="success">{t("order.completedTitle")}</Alert>
      ) : data.final ? (
        <Alert tone="info">{t("order.finalTitle")}</Alert>
      ) : null}

      {data.splits.length > 0 ? <SplitCard splits={data.splits} valueCentavos={data.valueCentavos} /> : null}

      {data.unapplied.length > 0 ? (
        <UnappliedPanel orderId={data.id} lines={data.unapplied} canAct={canRefund} />
      ) : null}

      <div className="grid gap-6 lg:grid-cols-2">
        <Card aria-labelledby="details-title">
          <CardTitle id="details-title">{t("common.details")}</CardTitle>
          <div className="mt-2">
            <DefinitionList items={data.facts.map((f) => ({ label: t(f.label), value: <FactValue fact={f} /> }))} />
          </div>
        </Card>

        <Card aria-labelledby="timeline-title">
          <CardTitle id="timeline-title">{t("order.timeline")}</CardTitle>
          <ol className="mt-3 space-y-3 border-l-2 border-slate-200 pl-4">
            <li className="relative">
              <span
                aria-hidden="true"
                className="absolute -left-[1.4rem] top-1 size-3 rounded-full bg-slate-400 ring-4 ring-white"
              />
              <p className="text-sm font-medium text-slate-900">{t("order.created.event")}</p>
              <p className="text-xs text-slate-600">{dateTime(data.createdAt)}</p>
            </li>
            {data.events.map((e) => {
              const line = timelineLine(e);
              return (
                <li key={e.id} className="relative" data-testid="timeline-entry">
                  <span
                    aria-hidden="true"
                    className={`absolute -left-[1.4rem] top-1 size-3 rounded-full ring-4 ring-white ${DOT[line.tone]}`}
                  />
                  <p className="text-sm font-medium text-slate-900">
                    {t(line.key, line.amount === undefined ? undefined : { amount: money(line.amount) })}
                  </p>
                  <p className="text-xs text-slate-600">{dateTime(e.at)}</p>
                </li>
              );
            })}
          </ol>
        </Card>
      </div>

      {data.disputes.length > 0 ? (
        <Card aria-labelledby="disputes-title">
          <CardTitle id="disputes-title">{t("order.disputes.title")}</CardTitle>
          <p className="mt-1 text-sm text-slate-600">{t("order.disputes.body")}</p>
          <Link href="/dashboard/disputes" className="mt-1 inline-block text-sm font-medium text-brand-700 underline">
            {t("order.disputes.infractions")}
          </Link>
          <ul className="mt-3 divide-y divide-slate-100">
            {data.disputes.map((d) => (
              <li
                key={d.id}
                className="flex flex-wrap items-center justify-between gap-2 py-2 text-sm"
                data-testid="dispute"
              >
                <span className="font-medium text-slate-900">
                  {money(d.valueCentavos)} ·{" "}
                  {t(
                    `order.disputes.natureza.${d.natureza as "ORIGINAL" | "RETIRADA" | "MED_FRAUDE" | "MED_OPERACIONAL" | "MED_PIX_AUTOMATICO"}`,
                  )}
                </span>
                <span className="text-xs text-slate-700">
                  {t(d.debited ? "order.disputes.debited" : "order.disputes.pending")} · {dateTime(d.at)}
                </span>
              </li>
            ))}
          </ul>
        </Card>
      ) : null}

      {(data.refundable && canRefund) || data.refunds.length > 0 ? (
        <RefundsPanel order={canRefund ? data : { ...data, refundable: null }} />
      ) : null}

      {data.kind === "onchain" || data.kind === "crypto_pix" ? (
        <Card aria-labelledby="transfers-title">
          <CardTitle id="transfers-title">{t("order.transfers")}</CardTitle>
          {data.transfers.length === 0 ? (
            <p className="mt-2 text-sm text-slate-600">{t("order.transfersEmpty")}</p>
          ) : (
            <ul className="mt-3 divide-y divide-slate-100">
              {data.transfers.map((tr) => (
                <TransferItem key={tr.id} transfer={tr} />
              ))}
            </ul>
          )}
        </Card>
      ) : null}

      <Card aria-labelledby="deliveries-title">
        <CardTitle id="deliveries-title">{t("order.webhooks")}</CardTitle>
        {data.deliveries.length === 0 ? (
          <p className="mt-2 text-sm text-slate-600">
            {t("order.webhooksEmpty")}{" "}
            <Link
              href="/dashboard/developers"
              className="font-semibold text-brand-700 underline-offset-2 hover:underline"
            >
              {t("nav.developers")}
            </Link>
          </p>
        ) : (
          <ul className="mt-3 divide-y divide-slate-100">
            {data.deliveries.map((d) => (
              <li key={d.id} className="flex flex-wrap items-center justify-between gap-2 py-2 text-sm">
                <span className="min-w-0">
                  <span translate="no" className="block font-mono text-xs text-slate-900">
                    {d.eventType}
                  </span>
                  <span className="block truncate text-xs text-slate-600">{d.endpointUrl}</span>
                </span>
                <span className="text-xs text-slate-700">
                  {t(`order.deliveryStatus.${d.status as "pending" | "succeeded" | "failed" | "cancelled"}`)} ·{" "}
                  {tp("order.deliveryAttempts", d.attempts)}
                  {d.lastStatusCode ? ` · HTTP ${d.lastStatusCode}` : ""}
                </span>
              </li>
            ))}
          </ul>
        )}
      </Card>
    </div>
  );
}
