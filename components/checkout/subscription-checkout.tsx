"use client";

import { useRouter } from "next/navigation";
import { useEffect } from "react";
import { CopyButton, CopyField } from "@/components/ui/copy-button";
import { QrCode } from "@/components/ui/qr-code";
import { POLL_MS } from "@/lib/browser/query-keys";
import type { PublicSubscription } from "@/lib/checkout/subscription";
import { formatFullDay, type MessageKey } from "@/lib/i18n";
import { useI18n } from "@/lib/i18n/client";
import { CheckoutFrame } from "./parts";

// The payer's page of a subscription by Pix Automático: while it waits for them, the code to
// authorise it in their bank app (on a phone the copy-and-paste code first, from sm up the QR
// first), what is charged and when, and how to cancel at the bank; afterwards what it became, and a
// receipt per paid cycle. The page is re-read while the payer's bank can still change it.

const cents = (brl: number) => Math.round(brl * 100);

function Section({ title, children, testId }: { title: string; children: React.ReactNode; testId?: string }) {
  return (
    <section className="space-y-2" data-testid={testId}>
      <h2 className="text-sm font-semibold uppercase tracking-wide text-slate-700">{title}</h2>
      {children}
    </section>
  );
}

export function SubscriptionCheckout({ sub }: { sub: PublicSubscription }) {
  const { t, money, dateTime, locale } = useI18n();
  const router = useRouter();
  const live = sub.status === "AWAITING_AUTHORISATION" || sub.status === "ACTIVE";
  useEffect(() => {
    if (!live) return;
    const timer = setInterval(() => router.refresh(), sub.status === "AWAITING_AUTHORISATION" ? POLL_MS : POLL_MS * 4);
    return () => clearInterval(timer);
  }, [live, sub.status, router]);
  const day = (d: string) => formatFullDay(d, locale);
  const amount = money(cents(sub.amount.value));
  const every = t(`sub.periodicity.${sub.periodicity}` as MessageKey).toLowerCase();
  const awaiting = sub.status === "AWAITING_AUTHORISATION";
  const j3 = sub.journey === "JORNADA_3";
  return (
    <CheckoutFrame
      status={sub.status}
      testId="subscription-checkout"
      title={t("subpay.title", { merchant: sub.merchantName })}
      amount={amount}
      amountLabel={t(sub.amount.type === "FIXED" ? "subpay.amountFixed" : "subpay.amountVariable", { every })}
      method={t("subpay.method")}
    >
      <div className="space-y-6">
        <p className="text-center text-sm text-slate-700" data-testid="subpay-description">
          {t("subpay.for", { description: sub.description, payer: sub.payerName })}
        </p>
        {awaiting && sub.brcode ? (
          <Section title={t("subpay.authoriseTitle")} testId="subpay-authorise">
            <p className="text-sm text-slate-700">
              {j3 ? t("subpay.authoriseJ3", { amount }) : t("subpay.authoriseJ2")}
            </p>
            {/* A phone cannot scan its own screen: there the copy button leads; from sm up the QR does. */}
            <div className="flex flex-col gap-4">
              <div className="order-1 space-y-1 text-center sm:order-2">
                <CopyButton
                  value={sub.brcode}
                  what={t("order.brcode")}
                  label={t("subpay.copy")}
                  variant="primary"
                  testId="subpay-copy"
                  className="min-h-12 w-full text-base"
                />
                <p className="text-xs text-slate-600">{t("subpay.copyHint")}</p>
              </div>
              <div className="order-2 flex flex-col items-center gap-2 sm:order-1" data-testid="subpay-qr">
                <QrCode value={sub.brcode} label={t("subpay.qrAlt")} size={240} />
                <p className="text-xs text-slate-600">{t("subpay.qrHint")}</p>
              </div>
              {sub.recipientName ? (
                <p
                  className="order-3 rounded-lg border border-slate-200 px-3 py-2 text-xs text-slate-700"
                  data-testid="subpay-recipient-note"
                >
                  {t("pay.recipientNote", { recipient: sub.recipientName, merchant: sub.merchantName })}
                </p>
              ) : null}
              <div className="order-4">
                <CopyField label={t("order.brcode")} value={sub.brcode} button={false} />
              </div>
            </div>
            <p
              role="status"
              className="rounded-lg border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900"
              data-testid="subpay-waiting"
            >
              {t("subpay.waiting")}
            </p>
          </Section>
        ) : (
          <p
            role="status"
            data-testid="subpay-state"
            className={
              sub.status === "ACTIVE" || sub.status === "COMPLETED"
                ? "rounded-lg border border-brand-100 bg-brand-50 px-3 py-2 text-sm font-medium text-brand-900"
                : "rounded-lg border border-slate-200 bg-slate-50 px-3 py-2 text-sm font-medium text-slate-800"
            }
          >
            {sub.status === "CANCELLED"
              ? t(sub.cancelledBy === "payer" ? "subpay.state.CANCELLED.payer" : "subpay.state.CANCELLED.merchant")
              : t(`subpay.state.${sub.status}` as MessageKey)}
          </p>
        )}
        <Section title={t(live ? "subpay.whatTitle" : "subpay.termsTitle")} testId="subpay-terms">
          <ul className="list-disc space-y-1 pl-5 text-sm text-slate-700">
            {j3 ? <li>{t("subpay.what.now", { amount })}</li> : null}
            <li>
              {sub.amount.type === "FIXED"
                ? t("subpay.what.fixed", { amount, every, first: day(sub.firstDate) })
                : t("subpay.what.variable", { amount, every, first: day(sub.firstDate) })}
            </li>
            {sub.amount.type === "VARIABLE" ? (
              <li>
                {sub.amount.minimum !== null
                  ? t("subpay.what.capMin", { minimum: money(cents(sub.amount.minimum)) })
                  : t("subpay.what.cap")}
              </li>
            ) : null}
            <li>
              {sub.lastDate ? t("subpay.what.until", { day: day(sub.lastDate) }) : t("subpay.what.untilCancelled")}
            </li>
            <li>{t(sub.retryPolicy === "PERMITE_3R_7D" ? "subpay.what.retries" : "subpay.what.noRetries")}</li>
          </ul>
          {sub.upcoming.length > 0 ? (
            <p className="text-sm text-slate-700" data-testid="subpay-upcoming">
              {t("subpay.upcoming", { days: sub.upcoming.map(day).join(", ") })}
            </p>
          ) : null}
        </Section>
        {live ? (
          <Section title={t("subpay.cancelTitle")} testId="subpay-cancel">
            <p className="text-sm text-slate-700">{t("subpay.cancelBody", { merchant: sub.merchantName })}</p>
          </Section>
        ) : null}
        {sub.paid.length > 0 ? (
          <Section title={t("subpay.receiptsTitle")} testId="subpay-receipts">
            <ul className="divide-y divide-slate-100 rounded-xl border border-slate-200">
              {sub.paid.map((c) => (
                <li key={c.cycle} className="flex flex-wrap items-center justify-between gap-2 px-3 py-2 text-sm">
                  <span>
                    <span className="font-medium text-slate-900">{money(cents(c.value))}</span>{" "}
                    <span className="text-slate-600">
                      · {c.paidAt ? t("subpay.paidAt", { at: dateTime(c.paidAt) }) : day(c.dueDate)}
                    </span>
                  </span>
                  <a href={c.receipt} className="font-semibold text-brand-700 underline" data-testid="subpay-receipt">
                    {t("subpay.receipt")}
                  </a>
                </li>
              ))}
            </ul>
          </Section>
        ) : null}
      </div>
    </CheckoutFrame>
  );
}
