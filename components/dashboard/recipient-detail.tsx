"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useActionState, useEffect } from "react";
import { StepUpField } from "@/components/security/step-up";
import { Alert, Card, CardTitle } from "@/components/ui/card";
import { FormMessage, Input } from "@/components/ui/field";
import { SubmitButton } from "@/components/ui/submit-button";
import { payRecipientAction } from "@/lib/dashboard/actions/recipients";
import type { RecipientDetail } from "@/lib/dashboard/server/recipients";
import { idle, type ActionState } from "@/lib/forms/action-state";
import { formatDay, isMessageKey } from "@/lib/i18n";
import { useI18n } from "@/lib/i18n/client";
import { useOrderTitle } from "./order-name";
import { Brl, KeyHeld, Pill } from "./recipient-bits";

// One recipient: its balance (apart from the merchant's own), "Pagar recebedor" (a PIX of its balance
// to its key: refused, with the reason shown, while the key is held or the recipient is disabled),
// its statement (split credits, refunds' take-backs, payouts) and its latest payouts.

type Answer = ActionState<{ id: string }>;

function PayoutForm({ detail, canPay }: { detail: RecipientDetail; canPay: boolean }) {
  const { t, money, dateTime } = useI18n();
  const router = useRouter();
  const { recipient } = detail;
  const [state, action] = useActionState<Answer, FormData>(payRecipientAction, idle);
  const doneAt = state.status === "success" ? state.at : 0;
  useEffect(() => {
    if (doneAt) router.refresh();
  }, [doneAt, router]);
  const balance = Math.round(recipient.balance * 100);
  // Why it cannot be paid now, said before anyone tries (the service refuses these alike).
  const blocked = recipient.pixKeyUsableAt
    ? t("recipients.payout.held", { until: dateTime(recipient.pixKeyUsableAt) })
    : recipient.status !== "ACTIVE"
      ? t("recipients.payout.disabled")
      : balance <= 0
        ? t("recipients.payout.noBalance")
        : null;
  return (
    <Card aria-labelledby="payout-title">
      <CardTitle id="payout-title">{t("recipients.payout.title")}</CardTitle>
      <p className="mb-4 mt-1 text-sm text-slate-600">{t("recipients.payout.hint", { key: recipient.pixKey })}</p>
      {blocked ? (
        <Alert tone={recipient.pixKeyUsableAt ? "warning" : "info"}>
          <p data-testid="payout-blocked">{blocked}</p>
        </Alert>
      ) : null}
      {canPay && !blocked ? (
        <form action={action} className="space-y-4" noValidate data-testid="payout-form">
          <input type="hidden" name="id" value={recipient.id} />
          <Input
            label={t("recipients.payout.value")}
            name="value"
            inputMode="decimal"
            optional
            hint={t("recipients.payout.valueHint", { balance: money(balance) })}
            defaultValue={state.status === "error" ? state.values?.value : undefined}
            errors={state.status === "error" ? state.fieldErrors?.value : undefined}
          />
          <StepUpField errors={state.status === "error" ? state.fieldErrors?.otp : undefined} />
          <FormMessage
            error={state.status === "error" ? state.error : undefined}
            success={state.status === "success" ? t("recipients.payout.done") : undefined}
          />
          <SubmitButton className="w-full sm:w-auto" pendingLabel={t("recipients.payout.submitting")}>
            {t("recipients.payout.submit")}
          </SubmitButton>
        </form>
      ) : state.status === "success" ? (
        <FormMessage success={t("recipients.payout.done")} />
      ) : null}
    </Card>
  );
}

function entryLabel(kind: string) {
  const key = `recipients.entry.${kind}`;
  return isMessageKey(key) ? key : "recipients.entry.other";
}

/**
 * What the entry is about, in the reader's language: the order its part came from or was taken back
 * for ("Pedido sale-1001 · Maria Souza", a link), or the schedule's payday. The API's English
 * `description` is not shown: it stays the same whatever the language.
 */
function EntryDetail({ detail, id }: { detail: RecipientDetail; id: string }) {
  const { t, locale } = useI18n();
  const title = useOrderTitle();
  const source = detail.sources[id];
  if (source?.order?.title)
    return (
      <Link
        href={`/dashboard/orders/${source.order.id}`}
        className="text-xs font-medium text-brand-700 underline-offset-2 hover:underline"
        data-testid="entry-order"
      >
        {title(source.order.title)}
        {source.order.customer ? ` · ${source.order.customer}` : null}
      </Link>
    );
  if (source?.slot)
    return <span className="text-xs">{t("recipients.entry.slot", { day: formatDay(source.slot, locale) })}</span>;
  return null;
}

function Statement({ detail }: { detail: RecipientDetail }) {
  const { t, dateTime } = useI18n();
  const entries = detail.statement.entries;
  return (
    <Card aria-labelledby="statement-title">
      <CardTitle id="statement-title">{t("recipients.detail.statement")}</CardTitle>
      {entries.length === 0 ? (
        <p className="mt-2 text-sm text-slate-600">{t("recipients.detail.noEntries")}</p>
      ) : (
        <>
          <ul className="mt-3 divide-y divide-slate-100 md:hidden" data-testid="statement-cards">
            {entries.map((e) => (
              <li key={e.id} className="py-3" data-testid="statement-entry" data-kind={e.kind}>
                <div className="flex items-start justify-between gap-3">
                  <p className="min-w-0 text-sm font-medium text-slate-900">{t(entryLabel(e.kind))}</p>
                  <Brl value={e.amount} className="shrink-0 text-sm font-semibold" />
                </div>
                <div className="mt-1 flex items-start justify-between gap-3 text-xs text-slate-600">
                  <span>{dateTime(e.createdAt)}</span>
                  <span className="shrink-0">
                    {t("recipients.detail.balanceAfter")}: <Brl value={e.balanceAfter} />
                  </span>
                </div>
                <p className="mt-1 break-words text-xs text-slate-600" data-testid="entry-detail">
                  <EntryDetail detail={detail} id={e.id} />
                </p>
              </li>
            ))}
          </ul>
          <div className="mt-3 hidden overflow-x-auto md:block">
            <table className="min-w-full text-sm" data-testid="statement-table">
              <thead className="text-left text-slate-600">
                <tr>
                  <th className="py-2 pr-4 font-medium">{t("recipients.detail.when")}</th>
                  <th className="py-2 pr-4 font-medium">{t("recipients.detail.what")}</th>
                  <th className="py-2 pr-4 text-right font-medium">{t("recipients.detail.amount")}</th>
                  <th className="py-2 text-right font-medium">{t("recipients.detail.balanceAfter")}</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {entries.map((e) => (
                  <tr key={e.id} data-testid="statement-entry" data-kind={e.kind}>
                    <td className="whitespace-nowrap py-2 pr-4 text-slate-700">{dateTime(e.createdAt)}</td>
                    <td className="py-2 pr-4">
                      <p className="font-medium text-slate-900">{t(entryLabel(e.kind))}</p>
                      <p className="text-xs text-slate-600" data-testid="entry-detail">
                        <EntryDetail detail={detail} id={e.id} />
                      </p>
                    </td>
                    <td className="whitespace-nowrap py-2 pr-4 text-right font-semibold">
                      <Brl value={e.amount} />
                    </td>
                    <td className="whitespace-nowrap py-2 text-right text-slate-700">
                      <Brl value={e.balanceAfter} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </Card>
  );
}

/** "Every week · Friday · from R$ 50,00 · Next: 05/12/2026", or "Only when I pay". */
function ScheduleText({ detail }: { detail: RecipientDetail }) {
  const { t, money, locale } = useI18n();
  const s = detail.recipient.payoutSchedule;
  if (!s) return <>{t("recipients.schedule.none")}</>;
  const parts = [
    t(`recipients.schedule.${s.interval}`),
    ...(s.weekday ? [t(`recipients.weekday.${s.weekday}`)] : []),
    ...(s.monthDay ? [String(s.monthDay)] : []),
    ...(s.minimumValue !== null
      ? [t("recipients.schedule.minimum", { value: money(Math.round(s.minimumValue * 100)) })]
      : []),
    t("recipients.schedule.next", { day: formatDay(s.nextSlot, locale) }),
  ];
  return <>{parts.join(" · ")}</>;
}

function Payouts({ detail }: { detail: RecipientDetail }) {
  const { t, dateTime } = useI18n();
  if (detail.payouts.length === 0) return null;
  return (
    <Card aria-labelledby="payouts-title">
      <CardTitle id="payouts-title">{t("recipients.payouts.title")}</CardTitle>
      <ul className="mt-2 divide-y divide-slate-100">
        {detail.payouts.map((p) => (
          <li key={p.id} className="flex flex-wrap items-center justify-between gap-2 py-2" data-testid="payout-row">
            <div className="min-w-0">
              <Brl value={p.value} className="font-semibold text-slate-900" />
              <p className="break-all text-xs text-slate-600">
                {dateTime(p.createdAt)} · <span className="font-mono">{p.pixKey}</span>
                {p.scheduleSlot ? ` · ${t("recipients.payouts.automatic")}` : null}
              </p>
              {p.failureReason ? <p className="text-xs text-red-700">{p.failureReason}</p> : null}
            </div>
            <Pill status={p.status} label={`recipients.payouts.${p.status}`} />
          </li>
        ))}
      </ul>
    </Card>
  );
}

/** Paydays of the schedule that paid nothing, each with its reason, as the job recorded them. */
function Skips({ detail }: { detail: RecipientDetail }) {
  const { t, money, locale } = useI18n();
  if (detail.skips.length === 0) return null;
  return (
    <Card aria-labelledby="skips-title">
      <CardTitle id="skips-title">{t("recipients.skips.title")}</CardTitle>
      <p className="mt-1 text-sm text-slate-600">{t("recipients.skips.hint")}</p>
      <ul className="mt-2 divide-y divide-slate-100">
        {detail.skips.map((s) => (
          <li
            key={`${s.scheduleSlot} ${s.reason}`}
            className="py-2 text-sm text-slate-800"
            data-testid="payout-skip"
            data-reason={s.reason}
          >
            {t(`recipients.skips.${s.reason}`, {
              day: formatDay(s.scheduleSlot, locale),
              balance: money(Math.round(s.balance * 100)),
              minimum: s.minimumValue === null ? "" : money(Math.round(s.minimumValue * 100)),
            })}
          </li>
        ))}
      </ul>
    </Card>
  );
}

export function RecipientDetailView({ detail, canPay }: { detail: RecipientDetail; canPay: boolean }) {
  const { t } = useI18n();
  const { recipient } = detail;
  return (
    <div className="space-y-6">
      <Card>
        <div className="flex flex-wrap items-start justify-between gap-4">
          <div>
            <p className="text-sm text-slate-600">{t("recipients.detail.balance")}</p>
            <p className="mt-1 text-3xl font-bold text-slate-900" data-testid="recipient-balance">
              <Brl value={detail.statement.balance} />
            </p>
            <p className="mt-1 max-w-md text-xs text-slate-600">{t("recipients.detail.balanceHint")}</p>
          </div>
          <Pill status={recipient.status} label={`recipients.status.${recipient.status}`} />
        </div>
        <dl className="mt-4 grid gap-3 text-sm sm:grid-cols-2">
          <div>
            <dt className="text-slate-600">{t("recipients.col.document")}</dt>
            <dd className="font-mono text-slate-900">{recipient.document}</dd>
          </div>
          <div>
            <dt className="text-slate-600">{t("recipients.col.pixKey")}</dt>
            <dd className="min-w-0 break-all font-mono text-slate-900" data-testid="recipient-key">
              {recipient.pixKey}
            </dd>
            <dd className="mt-0.5">
              {recipient.pixKeyUsableAt ? (
                <KeyHeld until={recipient.pixKeyUsableAt} />
              ) : (
                <span className="text-xs text-slate-600">{t("recipients.detail.keyUsable")}</span>
              )}
            </dd>
          </div>
          <div>
            <dt className="text-slate-600">{t("recipients.form.schedule")}</dt>
            <dd className="text-slate-900" data-testid="recipient-schedule">
              <ScheduleText detail={detail} />
            </dd>
          </div>
          {recipient.email ? (
            <div>
              <dt className="text-slate-600">{t("recipients.form.email")}</dt>
              <dd className="break-all text-slate-900">{recipient.email}</dd>
            </div>
          ) : null}
          {recipient.reference ? (
            <div>
              <dt className="text-slate-600">{t("recipients.form.reference")}</dt>
              <dd className="break-all text-slate-900">{recipient.reference}</dd>
            </div>
          ) : null}
        </dl>
      </Card>
      <PayoutForm detail={detail} canPay={canPay} />
      <Statement detail={detail} />
      <Payouts detail={detail} />
      <Skips detail={detail} />
    </div>
  );
}
