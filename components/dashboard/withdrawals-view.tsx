"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useActionState, useEffect, useState } from "react";
import { FormMessage } from "@/components/ui/field";
import { SubmitButton } from "@/components/ui/submit-button";
import { cancelWithdrawalAction } from "@/lib/dashboard/actions/withdrawals";
import { idle, type ActionState } from "@/lib/forms/action-state";
import { Card, CardTitle, EmptyState } from "@/components/ui/card";
import { cn } from "@/components/ui/cn";
import { StatusBadge } from "@/components/ui/status-badge";
import { getJson } from "@/lib/browser/fetch-json";
import { POLL_MS, queryKeys } from "@/lib/browser/query-keys";
import type { WithdrawalQuotes, WithdrawalState } from "@/lib/dashboard/server/withdrawals";
import { networkName } from "@/lib/chain/network-names";
import { useI18n } from "@/lib/i18n/client";
import { FailureReason } from "./failure-reason";
import { OnchainForm, PixOutForm } from "./withdrawal-forms";

export function WithdrawalsView({
  initial,
  quotes,
  canWithdraw,
}: {
  initial: WithdrawalState;
  quotes: WithdrawalQuotes;
  canWithdraw: boolean;
}) {
  const { t, money, dateTime, crypto } = useI18n();
  const [tab, setTab] = useState<"pix" | "onchain">(quotes.kinds[0] ?? "pix");
  const { data } = useQuery({
    queryKey: queryKeys.withdrawals(),
    queryFn: () => getJson<WithdrawalState>("/dashboard/api/withdrawals"),
    initialData: initial,
    refetchInterval: POLL_MS,
  });
  const limits = {
    balanceCentavos: data.balanceCentavos,
    perTransaction: data.limits.perTransaction,
    remainingToday: data.limits.remainingToday,
  };
  return (
    <div className="space-y-6">
      <div className="grid gap-6 lg:grid-cols-[1fr_20rem]">
        <Card aria-labelledby="withdraw-title">
          <h2 id="withdraw-title" className="sr-only">
            {tab === "pix" ? t("withdrawals.newPix") : t("withdrawals.newOnchain")}
          </h2>
          <div
            className="mb-5 inline-flex rounded-lg border border-slate-300 p-0.5"
            role="group"
            aria-label={t("withdrawals.title")}
          >
            {quotes.kinds.map((k) => (
              <button
                key={k}
                type="button"
                aria-pressed={tab === k}
                onClick={() => setTab(k)}
                className={cn(
                  "rounded-md px-4 py-1.5 text-sm font-semibold focus-visible:outline-2 focus-visible:outline-brand-700",
                  tab === k ? "bg-slate-900 text-white" : "text-slate-700 hover:bg-slate-100",
                )}
              >
                {k === "pix" ? t("withdrawals.newPix") : t("withdrawals.newOnchain")}
              </button>
            ))}
          </div>
          {quotes.kinds.length === 0 ? (
            <p className="text-sm text-slate-600">{t("withdrawals.noRails")}</p>
          ) : !canWithdraw ? (
            <p className="text-sm text-slate-600" data-testid="withdraw-not-allowed">
              {t("security.notAllowed")}
            </p>
          ) : tab === "pix" ? (
            <PixOutForm quotes={quotes} limits={limits} />
          ) : (
            <OnchainForm quotes={quotes} limits={limits} />
          )}
        </Card>
        <Card aria-labelledby="limits-title">
          <CardTitle id="limits-title">{t("withdrawals.limits")}</CardTitle>
          <dl className="mt-3 space-y-3 text-sm">
            <div>
              <dt className="text-slate-600">{t("withdrawals.balance")}</dt>
              <dd
                className={`text-xl font-bold tabular-nums ${data.balanceCentavos < 0 ? "text-red-700" : "text-slate-900"}`}
                data-testid="withdraw-balance"
              >
                {money(data.balanceCentavos)}
              </dd>
              {data.balanceCentavos < 0 ? (
                <dd className="mt-1 text-xs font-semibold text-red-700">{t("balance.negative")}</dd>
              ) : null}
            </div>
            <div className="flex justify-between gap-2">
              <dt className="text-slate-600">{t("withdrawals.perTransaction")}</dt>
              <dd className="font-medium tabular-nums">{money(data.limits.perTransaction)}</dd>
            </div>
            <div className="flex justify-between gap-2">
              <dt className="text-slate-600">{t("withdrawals.daily")}</dt>
              <dd className="font-medium tabular-nums">{money(data.limits.daily)}</dd>
            </div>
            <div className="flex justify-between gap-2">
              <dt className="text-slate-600">{t("withdrawals.usedToday")}</dt>
              <dd className="font-medium tabular-nums">{money(data.limits.usedToday)}</dd>
            </div>
            <div className="flex justify-between gap-2 border-t border-slate-100 pt-3">
              <dt className="font-medium text-slate-800">{t("withdrawals.remainingToday")}</dt>
              <dd className="font-bold tabular-nums text-slate-900">{money(data.limits.remainingToday)}</dd>
            </div>
          </dl>
        </Card>
      </div>

      <Card aria-labelledby="history-title">
        <CardTitle id="history-title">{t("withdrawals.history")}</CardTitle>
        {data.history.length === 0 ? (
          <div className="mt-3">
            <EmptyState title={t("withdrawals.historyEmpty")} />
          </div>
        ) : (
          <>
            <ul className="mt-3 divide-y divide-slate-100 md:hidden" aria-labelledby="history-title">
              {data.history.map((w) => (
                <li key={w.id} className="py-3" data-testid="withdrawal-row">
                  <div className="flex items-center justify-between gap-3">
                    <span className="text-sm font-semibold text-slate-900">
                      {money(w.debitCentavos)} ·{" "}
                      {w.kind === "pix_out" ? t("kind.pix_out") : t("kind.onchain_withdrawal")}
                    </span>
                    <StatusBadge status={w.status} />
                  </div>
                  <p className="truncate font-mono text-xs text-slate-700">{w.destination}</p>
                  <p className="text-xs text-slate-600">
                    {dateTime(w.createdAt)}
                    {w.feesCentavos > 0 ? ` · ${t("withdrawals.colFees")}: ${money(w.feesCentavos)}` : ""}
                  </p>
                  <WithdrawalReasons withdrawal={w} canCancel={canWithdraw} />
                </li>
              ))}
            </ul>
            <div
              className="mt-3 hidden overflow-x-auto md:block"
              tabIndex={0}
              role="region"
              aria-labelledby="history-title"
            >
              <table className="w-full min-w-[40rem] text-left text-sm" data-testid="withdrawal-history">
                <caption className="sr-only">{t("withdrawals.history")}</caption>
                <thead className="border-b border-slate-200 text-xs uppercase tracking-wide text-slate-600">
                  <tr>
                    <th scope="col" className="py-2 pr-3 font-semibold">
                      {t("withdrawals.colDate")}
                    </th>
                    <th scope="col" className="py-2 pr-3 font-semibold">
                      {t("withdrawals.colType")}
                    </th>
                    <th scope="col" className="py-2 pr-3 font-semibold">
                      {t("withdrawals.colDestination")}
                    </th>
                    <th scope="col" className="py-2 pr-3 text-right font-semibold">
                      {t("withdrawals.colValue")}
                    </th>
                    <th scope="col" className="py-2 pr-3 text-right font-semibold">
                      {t("withdrawals.colFees")}
                    </th>
                    <th scope="col" className="py-2 pr-3 text-right font-semibold">
                      {t("withdrawals.colTotal")}
                    </th>
                    <th scope="col" className="py-2 font-semibold">
                      {t("withdrawals.colStatus")}
                    </th>
                  </tr>
                </thead>
                <tbody className="divide-y divide-slate-100">
                  {data.history.map((w) => (
                    <tr key={w.id} data-testid="withdrawal-row">
                      <td className="whitespace-nowrap py-2.5 pr-3 text-slate-700">{dateTime(w.createdAt)}</td>
                      <td className="whitespace-nowrap py-2.5 pr-3">
                        {w.kind === "pix_out" ? t("kind.pix_out") : t("kind.onchain_withdrawal")}
                      </td>
                      <td className="max-w-[14rem] py-2.5 pr-3">
                        <span className="block truncate font-mono text-xs" title={w.destination}>
                          {w.destination}
                        </span>
                        {w.tokenAmount && w.token ? (
                          <span className="block text-xs text-slate-600">
                            {crypto(w.tokenAmount)} {w.token} · {w.network ? networkName(w.network) : null}
                          </span>
                        ) : null}
                        <WithdrawalReasons withdrawal={w} canCancel={canWithdraw} />
                      </td>
                      <td className="whitespace-nowrap py-2.5 pr-3 text-right tabular-nums">
                        {money(w.valueCentavos)}
                      </td>
                      <td className="whitespace-nowrap py-2.5 pr-3 text-right tabular-nums">{money(w.feesCentavos)}</td>
                      <td className="whitespace-nowrap py-2.5 pr-3 text-right font-medium tabular-nums">
                        {money(w.debitCentavos)}
                      </td>
                      <td className="py-2.5">
                        <StatusBadge status={w.status} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        )}
      </Card>
    </div>
  );
}

/** Why a withdrawal failed, or what it waits for, in the reader's words: the same under a phone card and in a table row. */
function WithdrawalReasons({
  withdrawal: w,
  canCancel,
}: {
  withdrawal: Pick<WithdrawalState["history"][number], "id" | "failureReason" | "waitingReason" | "waitingUntil">;
  canCancel: boolean;
}) {
  return (
    <>
      {w.failureReason ? (
        <FailureReason reason={w.failureReason} frame="withdrawals.failure" className="text-xs text-red-700" />
      ) : null}
      {w.waitingUntil ? (
        <WaitingForDestination id={w.id} until={w.waitingUntil} canCancel={canCancel} />
      ) : w.waitingReason ? (
        <FailureReason
          reason={w.waitingReason}
          frame="withdrawals.waiting"
          unknown="failure.waitingUnknown"
          className="text-xs text-amber-800"
        />
      ) : null}
    </>
  );
}

/** A withdrawal to a new destination: what releases it, and the button that cancels it (no code: it stops money leaving). */
function WaitingForDestination({ id, until, canCancel }: { id: string; until: string; canCancel: boolean }) {
  const { t, dateTime } = useI18n();
  const client = useQueryClient();
  const [state, action] = useActionState<ActionState<{ id: string }>, FormData>(cancelWithdrawalAction, idle);
  const at = state.status === "success" ? state.at : 0;
  useEffect(() => {
    if (at !== 0) void client.invalidateQueries({ queryKey: queryKeys.withdrawals() });
  }, [at, client]);
  return (
    <form action={action} className="mt-1 space-y-1" data-testid="withdrawal-waiting">
      <input type="hidden" name="id" value={id} />
      <p className="text-xs text-amber-800">{t("withdrawals.waitingDestination", { until: dateTime(until) })}</p>
      <FormMessage error={state.status === "error" ? state.error : undefined} />
      {canCancel ? (
        <SubmitButton variant="secondary" className="px-2 py-1 text-xs" pendingLabel={t("withdrawals.confirming")}>
          {t("withdrawals.cancel")}
        </SubmitButton>
      ) : null}
    </form>
  );
}
