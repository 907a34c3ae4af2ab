"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useActionState, useEffect, useState } from "react";
import { Card, CardTitle, DefinitionList } from "@/components/ui/card";
import { CopyButton, CopyField } from "@/components/ui/copy-button";
import { buttonClass } from "@/components/ui/button";
import { FormMessage, Input } from "@/components/ui/field";
import { QrCode } from "@/components/ui/qr-code";
import { SubmitButton } from "@/components/ui/submit-button";
import { idle, type ActionState } from "@/lib/forms/action-state";
import { cancelInvoiceAction, simulateInvoicePaymentAction } from "@/lib/dashboard/actions/invoices";
import type { InvoiceDetail } from "@/lib/dashboard/server/invoices";
import { formatFullDay } from "@/lib/i18n";
import { useI18n } from "@/lib/i18n/client";
import type { InvoiceAmountView } from "@/lib/invoice-state/schemas";
import { lateTermLines, reliefTermLines } from "@/lib/invoice-state/words";
import { formatTaxId } from "@/lib/pix/keys";
import { Breakdown } from "@/components/checkout/invoice-terms";
import { InvoiceStatus } from "./invoice-status";

// One invoice: sharing it comes first (the merchant made it to send it), then what it asks today and
// how it was paid, the terms in words, the payer, and the actions its status allows.

const cents = (brl: number) => Math.round(brl * 100);

/** Sending the payer's page: WhatsApp, the phone's own share sheet where there is one, the link and its QR. */
function SharePanel({ detail, merchant }: { detail: InvoiceDetail; merchant: string }) {
  const { t, money, locale } = useI18n();
  const { invoice } = detail;
  const [canShare, setCanShare] = useState(false);
  useEffect(() => setCanShare(typeof navigator !== "undefined" && typeof navigator.share === "function"), []);
  if (!invoice.link) return null;
  const text = t("invoice.share.message", {
    payer: invoice.payer.name,
    merchant,
    amount: money(cents(invoice.amountDue?.value ?? invoice.value)),
    due: formatFullDay(invoice.effectiveDueDate, locale),
    link: invoice.link,
  });
  return (
    <Card data-testid="invoice-share">
      <CardTitle>{t("invoice.share.title")}</CardTitle>
      <p className="mb-4 mt-1 text-sm text-slate-600">{t("invoice.share.hint")}</p>
      <div className="flex flex-col gap-2 sm:flex-row sm:flex-wrap">
        <a
          href={`https://wa.me/?text=${encodeURIComponent(text)}`}
          target="_blank"
          rel="noopener noreferrer"
          className={buttonClass("primary", "min-h-12 text-base sm:min-h-10 sm:text-sm")}
          data-testid="share-whatsapp"
        >
          {t("invoice.share.whatsapp")}
        </a>
        {canShare ? (
          <button
            type="button"
            className={buttonClass("secondary")}
            onClick={() =>
              void navigator.share({ title: t("invoice.share.title"), text, url: invoice.link! }).catch(() => {})
            }
          >
            {t("invoice.share.native")}
          </button>
        ) : null}
        <CopyButton
          value={invoice.link}
          what={t("invoice.share.link")}
          label={t("invoice.share.copyLink")}
          testId="copy-invoice-link"
        />
      </div>
      <div className="mt-4 grid gap-4 sm:grid-cols-[auto_1fr] sm:items-start">
        <div className="hidden sm:block">
          <QrCode value={invoice.link} label={t("invoice.share.qrAlt")} size={144} />
        </div>
        <CopyField label={t("invoice.share.link")} value={invoice.link} button={false} />
      </div>
    </Card>
  );
}

type Parts = Pick<InvoiceAmountView, "value" | "original" | "discount" | "abatement" | "fine" | "interest">;

function Amount({ title, amount }: { title: string; amount: Parts }) {
  const { money } = useI18n();
  return (
    <div className="space-y-2">
      <p className="text-sm text-slate-600">{title}</p>
      <p className="text-2xl font-bold tabular-nums text-slate-900" data-testid="invoice-amount">
        {money(cents(amount.value))}
      </p>
      <Breakdown amount={amount} />
    </div>
  );
}

function CancelInvoice({ id }: { id: string }) {
  const { t } = useI18n();
  const router = useRouter();
  const [state, action] = useActionState<ActionState<{ id: string }>, FormData>(cancelInvoiceAction, idle);
  const doneAt = state.status === "success" ? state.at : 0;
  useEffect(() => {
    if (doneAt) router.refresh();
  }, [doneAt, router]);
  return (
    <form
      action={action}
      onSubmit={(e) => {
        if (!window.confirm(t("invoice.detail.cancelConfirm"))) e.preventDefault();
      }}
      className="space-y-2"
    >
      <input type="hidden" name="id" value={id} />
      <SubmitButton variant="danger" pendingLabel={t("invoice.detail.cancelling")}>
        {t("invoice.detail.cancel")}
      </SubmitButton>
      <FormMessage error={state.status === "error" ? state.error : undefined} />
    </form>
  );
}

function SimulateInvoicePayment({ id, today }: { id: string; today: string }) {
  const { t } = useI18n();
  const router = useRouter();
  const [state, action] = useActionState<ActionState<{ id: string }>, FormData>(simulateInvoicePaymentAction, idle);
  const doneAt = state.status === "success" ? state.at : 0;
  useEffect(() => {
    if (doneAt) router.refresh();
  }, [doneAt, router]);
  return (
    <form action={action} className="space-y-2" data-testid="simulate-invoice-payment">
      <input type="hidden" name="id" value={id} />
      <Input label={t("invoice.detail.simulateDate")} name="date" type="date" defaultValue={today} />
      <SubmitButton variant="secondary" pendingLabel={t("order.simulating")}>
        {t("invoice.detail.simulate")}
      </SubmitButton>
      <p className="text-xs text-slate-600">{t("invoice.detail.simulateHint")}</p>
      <FormMessage error={state.status === "error" ? state.error : undefined} />
    </form>
  );
}

export function InvoiceDetailView({
  detail,
  merchant,
  canManage,
  today,
}: {
  detail: InvoiceDetail;
  merchant: string;
  canManage: boolean;
  today: string;
}) {
  const { t, money, dateTime, locale } = useI18n();
  const { invoice, shown } = detail;
  const day = (d: string) => formatFullDay(d, locale);
  const conditions = [...reliefTermLines(invoice, locale), ...lateTermLines(invoice, locale)];
  const open = invoice.status === "OPEN";
  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center gap-3">
        <InvoiceStatus status={invoice.status} overdue={invoice.amountDue?.late ?? false} />
        <span className="text-sm text-slate-700">
          {t("invoice.detail.due", { day: day(invoice.effectiveDueDate) })} ·{" "}
          {t("invoice.detail.until", { day: day(invoice.lastPayableDay) })}
        </span>
      </div>
      {open ? <SharePanel detail={detail} merchant={merchant} /> : null}
      <div className="grid gap-4 lg:grid-cols-2">
        <Card>
          {invoice.payment ? (
            <Amount title={t("invoice.detail.paid", { day: day(invoice.payment.day) })} amount={invoice.payment} />
          ) : invoice.amountDue ? (
            <Amount title={t("invoice.detail.today")} amount={invoice.amountDue} />
          ) : (
            <Amount
              title={t("invoice.detail.original")}
              amount={{
                value: invoice.value,
                original: invoice.value,
                fine: 0,
                interest: 0,
                abatement: 0,
                discount: 0,
              }}
            />
          )}
          {open &&
          shown.onDueDate &&
          invoice.amountDue &&
          !invoice.amountDue.late &&
          shown.onDueDate.value !== invoice.amountDue.value ? (
            <p className="mt-3 text-sm text-slate-700">
              {t("invoice.pay.onDueDate", {
                day: day(invoice.effectiveDueDate),
                amount: money(cents(shown.onDueDate.value)),
              })}
            </p>
          ) : null}
          {conditions.length > 0 ? (
            <ul className="mt-3 list-disc space-y-1 pl-5 text-sm text-slate-700" data-testid="invoice-conditions">
              {conditions.map((line) => (
                <li key={line}>{line}</li>
              ))}
            </ul>
          ) : null}
        </Card>
        <Card>
          <CardTitle>{t("invoice.detail.payer")}</CardTitle>
          <DefinitionList
            items={[
              { label: t("invoice.form.payerName"), value: invoice.payer.name },
              {
                label: t("invoice.form.payerDocument"),
                value: formatTaxId(invoice.payer.cpf ?? invoice.payer.cnpj ?? ""),
              },
              ...(invoice.payer.email
                ? [
                    {
                      label: t("invoice.form.payerEmail"),
                      value: invoice.mailedAt
                        ? `${invoice.payer.email} · ${t("invoice.detail.mailed", { at: dateTime(invoice.mailedAt) })}`
                        : invoice.payer.email,
                    },
                  ]
                : []),
              ...(invoice.description ? [{ label: t("invoice.form.description"), value: invoice.description }] : []),
              ...(invoice.reference ? [{ label: t("invoice.form.reference"), value: invoice.reference }] : []),
              { label: t("invoice.detail.created"), value: dateTime(invoice.createdAt) },
              ...(invoice.order
                ? [
                    {
                      label: t("invoice.detail.order"),
                      value: (
                        <Link
                          href={`/dashboard/orders/${invoice.order.id}`}
                          className="font-medium text-brand-700 underline"
                        >
                          {t("invoice.detail.orderLink")}
                        </Link>
                      ),
                    },
                  ]
                : []),
            ]}
          />
        </Card>
      </div>
      {invoice.problem ? (
        <Card>
          <CardTitle>{t("invoice.detail.refused")}</CardTitle>
          <p className="mt-1 text-sm text-slate-700">{invoice.problem.title}</p>
          <ul className="mt-2 list-disc pl-5 text-sm text-slate-700">
            {invoice.problem.violations.map((v) => (
              <li key={v.property + v.reason}>
                <span className="font-mono text-xs">{v.property}</span>: {v.reason}
              </li>
            ))}
          </ul>
        </Card>
      ) : null}
      {open && invoice.brcode ? (
        <Card>
          <CopyField label={t("order.brcode")} value={invoice.brcode} />
        </Card>
      ) : null}
      {open && canManage ? (
        <Card className="flex flex-col gap-6 sm:flex-row sm:items-start sm:justify-between">
          {detail.sandbox ? <SimulateInvoicePayment id={invoice.id} today={today} /> : null}
          <CancelInvoice id={invoice.id} />
        </Card>
      ) : null}
    </div>
  );
}
