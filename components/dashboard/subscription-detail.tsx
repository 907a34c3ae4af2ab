"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useActionState, useEffect } from "react";
import { Card, CardTitle, DefinitionList } from "@/components/ui/card";
import { CopyButton, CopyField } from "@/components/ui/copy-button";
import { buttonClass } from "@/components/ui/button";
import { FormMessage, Input } from "@/components/ui/field";
import { QrCode } from "@/components/ui/qr-code";
import { SubmitButton } from "@/components/ui/submit-button";
import { idle, type ActionState } from "@/lib/forms/action-state";
import {
  cancelSubscriptionAction,
  changeSubscriptionAmountAction,
  simulateAuthorisationAction,
  simulateCycleAction,
} from "@/lib/dashboard/actions/subscriptions";
import type { SubscriptionDetail } from "@/lib/dashboard/server/subscriptions";
import { POLL_MS } from "@/lib/browser/query-keys";
import { formatFullDay, type MessageKey } from "@/lib/i18n";
import { useI18n } from "@/lib/i18n/client";
import { formatTaxId } from "@/lib/pix/keys";
import type { CycleView } from "@/lib/subscriptions/schemas";
import { CycleStatus, SubscriptionStatus } from "./subscription-status";

// One subscription: while the payer has not authorised it, what to send them (the link, the QR, the
// copy-and-paste code) comes first; then its terms, each cycle with its outcome and receipt, and the
// actions its status allows. The page is re-read while something can still change.

const cents = (brl: number) => Math.round(brl * 100);
const LIVE = ["AWAITING_AUTHORISATION", "ACTIVE"];

function useRefreshAfter(state: ActionState<unknown>) {
  const router = useRouter();
  const doneAt = state.status === "success" ? state.at : 0;
  useEffect(() => {
    if (doneAt) router.refresh();
  }, [doneAt, router]);
}

/** Re-reads the server's page while the subscription can still change (the payer, the bank, the sweep). */
function LiveRefresh({ on }: { on: boolean }) {
  const router = useRouter();
  useEffect(() => {
    if (!on) return;
    const timer = setInterval(() => router.refresh(), POLL_MS * 2);
    return () => clearInterval(timer);
  }, [on, router]);
  return null;
}

function SendToPayer({ detail }: { detail: SubscriptionDetail }) {
  const { t } = useI18n();
  const s = detail.subscription;
  return (
    <Card data-testid="subscription-share">
      <CardTitle>{t("sub.share.title")}</CardTitle>
      <p className="mb-4 mt-1 text-sm text-slate-600">
        {t(s.journey === "JORNADA_3" ? "sub.share.hintJ3" : "sub.share.hintJ2")}
      </p>
      <div className="flex flex-col gap-2 sm:flex-row sm:flex-wrap">
        <a
          href={`https://wa.me/?text=${encodeURIComponent(t("sub.share.message", { payer: s.payer.name, link: s.link }))}`}
          target="_blank"
          rel="noopener noreferrer"
          className={buttonClass("primary", "min-h-12 text-base sm:min-h-10 sm:text-sm")}
        >
          {t("invoice.share.whatsapp")}
        </a>
        <CopyButton value={s.link} what={t("sub.share.link")} label={t("sub.share.copyLink")} testId="copy-sub-link" />
        <a
          href={s.link}
          target="_blank"
          rel="noopener noreferrer"
          className={buttonClass("secondary")}
          data-testid="open-sub-link"
        >
          {t("sub.share.open")}
        </a>
      </div>
      <div className="mt-4 grid gap-4 sm:grid-cols-[auto_1fr] sm:items-start">
        <div className="hidden sm:block">
          <QrCode value={s.brcode} label={t("sub.share.qrAlt")} size={160} />
        </div>
        <div className="min-w-0 space-y-3">
          <CopyField label={t("sub.share.link")} value={s.link} button={false} />
          <CopyField label={t("sub.share.code")} value={s.brcode} />
        </div>
      </div>
    </Card>
  );
}

function CancelSubscription({ id }: { id: string }) {
  const { t } = useI18n();
  const [state, action] = useActionState<ActionState<{ id: string }>, FormData>(cancelSubscriptionAction, idle);
  useRefreshAfter(state);
  return (
    <form
      action={action}
      onSubmit={(e) => {
        if (!window.confirm(t("sub.detail.cancelConfirm"))) e.preventDefault();
      }}
      className="space-y-2"
    >
      <input type="hidden" name="id" value={id} />
      <SubmitButton variant="danger" pendingLabel={t("sub.detail.cancelling")}>
        {t("sub.detail.cancel")}
      </SubmitButton>
      <p className="text-xs text-slate-600">{t("sub.detail.cancelHint")}</p>
      <FormMessage error={state.status === "error" ? state.error : undefined} />
    </form>
  );
}

/** A VARIABLE amount follows the merchant (each charge's valor.original); a FIXED one is the payer's authorisation. */
function ChangeAmount({ s }: { s: SubscriptionDetail["subscription"] }) {
  const { t, money } = useI18n();
  const [state, action] = useActionState<ActionState<{ id: string }>, FormData>(changeSubscriptionAmountAction, idle);
  useRefreshAfter(state);
  const errors = state.status === "error" ? state.fieldErrors : undefined;
  return (
    <form action={action} className="space-y-2" data-testid="change-amount" noValidate>
      <input type="hidden" name="id" value={s.id} />
      <Input
        label={t("sub.detail.newAmount")}
        name="value"
        inputMode="decimal"
        autoComplete="off"
        required
        defaultValue={state.status === "error" ? state.values?.value : undefined}
        hint={
          s.amount.minimum !== null
            ? t("sub.detail.newAmountHintMin", { amount: money(cents(s.amount.minimum)) })
            : t("sub.detail.newAmountHint")
        }
        errors={errors?.value}
      />
      <SubmitButton variant="secondary" pendingLabel={t("sub.detail.changingAmount")}>
        {t("sub.detail.changeAmount")}
      </SubmitButton>
      <FormMessage
        error={state.status === "error" && !errors ? state.error : undefined}
        success={state.status === "success" ? t("sub.detail.amountChanged") : undefined}
      />
    </form>
  );
}

function SimulateAuthorisation({ id }: { id: string }) {
  const { t } = useI18n();
  const [state, action] = useActionState<ActionState<{ id: string }>, FormData>(simulateAuthorisationAction, idle);
  useRefreshAfter(state);
  return (
    <form action={action} className="space-y-2" data-testid="simulate-authorisation">
      <input type="hidden" name="id" value={id} />
      <SubmitButton variant="secondary" pendingLabel={t("order.simulating")}>
        {t("sub.detail.simulateAuthorise")}
      </SubmitButton>
      <p className="text-xs text-slate-600">{t("sub.detail.simulateHint")}</p>
      <FormMessage error={state.status === "error" ? state.error : undefined} />
    </form>
  );
}

function SimulateCycle({ id, cycle }: { id: string; cycle: number }) {
  const { t } = useI18n();
  const [state, action] = useActionState<ActionState<{ id: string }>, FormData>(simulateCycleAction, idle);
  useRefreshAfter(state);
  return (
    <form action={action} className="flex flex-wrap items-center gap-2" data-testid={`simulate-cycle-${cycle}`}>
      <input type="hidden" name="id" value={id} />
      <input type="hidden" name="cycle" value={cycle} />
      <SubmitButton variant="secondary" name="outcome" value="paid" pendingLabel={t("order.simulating")}>
        {t("sub.cycle.simulatePaid")}
      </SubmitButton>
      <SubmitButton variant="ghost" name="outcome" value="rejected" pendingLabel={t("order.simulating")}>
        {t("sub.cycle.simulateRejected")}
      </SubmitButton>
      <FormMessage error={state.status === "error" ? state.error : undefined} />
    </form>
  );
}

function CycleName({ c }: { c: CycleView }) {
  const { t } = useI18n();
  return <>{c.kind === "IMMEDIATE" ? t("sub.cycle.immediate") : t("sub.cycle.number", { n: String(c.cycle) })}</>;
}

function Cycles({ detail, canManage }: { detail: SubscriptionDetail; canManage: boolean }) {
  const { t, tp, money, dateTime, locale } = useI18n();
  const s = detail.subscription;
  const cycles = [...s.cycles].reverse();
  return (
    <Card>
      <CardTitle>{t("sub.cycles.title")}</CardTitle>
      {cycles.length === 0 ? (
        <p className="mt-2 text-sm text-slate-600" data-testid="no-cycles">
          {s.status === "AWAITING_AUTHORISATION"
            ? t("sub.cycles.noneYetAwaiting")
            : s.nextChargeDate
              ? t("sub.cycles.noneYet", { day: formatFullDay(s.nextChargeDate, locale) })
              : t("sub.cycles.none")}
        </p>
      ) : (
        <ol className="mt-3 divide-y divide-slate-100" data-testid="cycles">
          {cycles.map((c) => {
            const open = c.kind === "RECURRING" && (c.status === "SCHEDULED" || c.status === "RETRYING");
            return (
              <li key={c.id} className="space-y-2 py-3" data-testid="cycle" data-cycle={c.cycle}>
                <div className="flex flex-wrap items-center justify-between gap-2">
                  <p className="font-semibold text-slate-900">
                    <CycleName c={c} />{" "}
                    <span className="font-normal text-slate-600">
                      ·{" "}
                      {t(c.kind === "IMMEDIATE" ? "sub.cycle.created" : "sub.cycle.due", {
                        day: formatFullDay(c.dueDate, locale),
                      })}
                    </span>
                  </p>
                  <div className="flex items-center gap-3">
                    <span className="font-semibold tabular-nums">{money(cents(c.value))}</span>
                    <CycleStatus status={c.status} immediate={c.kind === "IMMEDIATE"} />
                  </div>
                </div>
                <ul className="space-y-0.5 text-sm text-slate-700">
                  {c.paidAt ? <li>{t("sub.cycle.paidAt", { at: dateTime(c.paidAt) })}</li> : null}
                  {c.retries > 0 ? (
                    <li>
                      {tp("sub.cycle.retries", c.retries, {
                        day: c.retryDate ? formatFullDay(c.retryDate, locale) : "—",
                      })}
                    </li>
                  ) : null}
                  {c.attempts
                    .filter((a) => a.failure)
                    .map((a) => (
                      <li key={a.date + a.type + a.status} className="text-red-800">
                        {t("sub.cycle.attemptFailed", { day: formatFullDay(a.date, locale) })}{" "}
                        <span translate="no" className="text-xs">
                          ({a.failure})
                        </span>
                      </li>
                    ))}
                  {c.failure ? (
                    <li className="text-red-800">
                      {t("sub.cycle.failure")} <span translate="no">{c.failure}</span>
                    </li>
                  ) : null}
                </ul>
                <div className="flex flex-wrap items-center gap-x-4 gap-y-2 text-sm">
                  <Link href={`/dashboard/orders/${c.order.id}`} className="font-medium text-brand-700 underline">
                    {t("sub.cycle.order")}
                  </Link>
                  {c.status === "PAID" ? (
                    <a
                      href={c.kind === "IMMEDIATE" ? `${c.order.link}?receipt=1` : c.order.link}
                      target="_blank"
                      rel="noopener noreferrer"
                      className="font-medium text-brand-700 underline"
                      data-testid="cycle-receipt"
                    >
                      {t("sub.cycle.receipt")}
                    </a>
                  ) : null}
                  {detail.sandbox && canManage && open ? <SimulateCycle id={s.id} cycle={c.cycle} /> : null}
                </div>
              </li>
            );
          })}
        </ol>
      )}
    </Card>
  );
}

export function SubscriptionDetailView({ detail, canManage }: { detail: SubscriptionDetail; canManage: boolean }) {
  const { t, money, dateTime, locale } = useI18n();
  const s = detail.subscription;
  const day = (d: string) => formatFullDay(d, locale);
  const live = LIVE.includes(s.status);
  const awaiting = s.status === "AWAITING_AUTHORISATION";
  return (
    <div className="space-y-4">
      <LiveRefresh on={live} />
      <div className="flex flex-wrap items-center gap-3">
        <SubscriptionStatus status={s.status} />
        <span className="text-sm text-slate-700" data-testid="next-charge">
          {s.nextChargeDate ? t("sub.detail.nextCharge", { day: day(s.nextChargeDate) }) : t("sub.list.noNext")}
        </span>
        {s.cancelledBy ? (
          <span className="text-sm text-slate-700">{t(`sub.cancelledBy.${s.cancelledBy}` as MessageKey)}</span>
        ) : null}
      </div>
      {awaiting ? <SendToPayer detail={detail} /> : null}
      <div className="grid gap-4 lg:grid-cols-2">
        <Card>
          <CardTitle>{t("sub.detail.terms")}</CardTitle>
          <DefinitionList
            items={[
              {
                label: t("sub.form.value"),
                value: (
                  <span data-testid="subscription-amount">
                    {money(cents(s.amount.value))} · {t(`sub.periodicity.${s.periodicity}` as MessageKey)}
                  </span>
                ),
              },
              {
                label: t("sub.form.amountType"),
                value:
                  s.amount.type === "FIXED"
                    ? t("sub.amount.FIXED")
                    : s.amount.minimum !== null
                      ? t("sub.amount.variableMin", { amount: money(cents(s.amount.minimum)) })
                      : t("sub.amount.VARIABLE"),
              },
              { label: t("sub.form.firstDate"), value: day(s.firstDate) },
              { label: t("sub.form.lastDate"), value: s.lastDate ? day(s.lastDate) : t("sub.detail.untilCancelled") },
              { label: t("sub.form.retryPolicy"), value: t(`sub.retry.${s.retryPolicy}` as MessageKey) },
              { label: t("sub.form.journey"), value: t(`sub.journey.${s.journey}` as MessageKey) },
            ]}
          />
        </Card>
        <Card>
          <CardTitle>{t("sub.detail.payer")}</CardTitle>
          <DefinitionList
            items={[
              { label: t("sub.form.payerName"), value: s.payer.name },
              {
                label: t("sub.form.payerDocument"),
                value: <span translate="no">{formatTaxId(s.payer.cpf ?? s.payer.cnpj ?? "")}</span>,
              },
              { label: t("sub.form.description"), value: s.description },
              ...(s.reference ? [{ label: t("sub.form.reference"), value: s.reference }] : []),
              { label: t("sub.detail.created"), value: dateTime(s.createdAt) },
              { label: t("sub.detail.recurrenceId"), value: <span translate="no">{s.recurrenceId}</span> },
            ]}
          />
        </Card>
      </div>
      <Cycles detail={detail} canManage={canManage} />
      {live && canManage ? (
        <Card className="flex flex-col gap-6 sm:flex-row sm:items-start sm:justify-between">
          {detail.sandbox && awaiting ? <SimulateAuthorisation id={s.id} /> : null}
          {s.amount.type === "VARIABLE" ? <ChangeAmount s={s} /> : null}
          <CancelSubscription id={s.id} />
        </Card>
      ) : null}
    </div>
  );
}
