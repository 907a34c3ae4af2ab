"use client";

import { useActionState } from "react";
import { ButtonLink } from "@/components/ui/button";
import { Card, CardTitle } from "@/components/ui/card";
import { CopyField } from "@/components/ui/copy-button";
import { FormMessage } from "@/components/ui/field";
import { QrCode } from "@/components/ui/qr-code";
import { StatusBadge } from "@/components/ui/status-badge";
import { SubmitButton } from "@/components/ui/submit-button";
import { setPaymentLinkStatusAction } from "@/lib/dashboard/actions/payment-links";
import { idle, type ActionState } from "@/lib/forms/action-state";
import { useI18n } from "@/lib/i18n/client";
import type { MessageKey } from "@/lib/i18n";
import type { PaymentLinkView, SaleView } from "@/lib/payment-links/schemas";

// A payment link as its merchant runs it: the link to share and its QR for the counter, pause and
// resume, and every order it made at the price it was sold at.

export function PaymentLinkDetail({
  link,
  sales,
  canManage,
}: {
  link: PaymentLinkView;
  sales: SaleView[];
  canManage: boolean;
}) {
  const { t, money, dateTime } = useI18n();
  const [state, action] = useActionState<ActionState<unknown>, FormData>(setPaymentLinkStatusAction, idle);
  const shownState = link.status === "PAUSED" ? "PAUSED" : (link.unavailableReason ?? "ACTIVE");
  return (
    <div className="grid grid-cols-1 gap-4 lg:grid-cols-3">
      <Card className="min-w-0 space-y-4 lg:col-span-2">
        <div className="flex flex-wrap items-center gap-2">
          <span
            className="rounded-full bg-slate-100 px-2.5 py-0.5 text-xs font-semibold text-slate-700"
            data-testid="link-state"
          >
            {t(`plink.state.${shownState}` as MessageKey)}
          </span>
          <span className="text-sm text-slate-600">
            {t("plink.list.counts", { paid: String(link.payments.paid), pending: String(link.payments.pending) })}
          </span>
          <span className="text-sm text-slate-500">{t("plink.detail.version", { version: String(link.version) })}</span>
        </div>
        <p className="text-2xl font-bold tabular-nums text-slate-900">
          {link.price !== null
            ? money(Math.round(link.price * 100))
            : `${t("plink.list.payerChooses")}${link.minAmount !== null ? ` · ≥ ${money(Math.round(link.minAmount * 100))}` : ""}${link.maxAmount !== null ? ` · ≤ ${money(Math.round(link.maxAmount * 100))}` : ""}`}
        </p>
        {link.description ? <p className="whitespace-pre-line text-sm text-slate-700">{link.description}</p> : null}
        <p className="text-sm text-slate-700">
          {link.rails.map((r) => t(`plink.rail.${r}` as MessageKey)).join(" · ")}
        </p>
        {link.maxPayments ? (
          <p className="text-sm text-slate-600">{t("plink.detail.limit", { max: String(link.maxPayments) })}</p>
        ) : null}
        {link.availableUntil ? (
          <p className="text-sm text-slate-600">{t("plink.detail.until", { at: dateTime(link.availableUntil) })}</p>
        ) : null}
        <CopyField label={t("plink.detail.share")} value={link.url} />
        <FormMessage error={state.status === "error" ? state.error : undefined} />
        {canManage ? (
          <div className="flex flex-wrap gap-2">
            <ButtonLink href={link.url} variant="secondary" target="_blank">
              {t("plink.detail.open")}
            </ButtonLink>
            <ButtonLink href={`/dashboard/payment-links/${link.id}/edit`} variant="secondary">
              {t("plink.detail.edit")}
            </ButtonLink>
            <form action={action}>
              <input type="hidden" name="id" value={link.id} />
              <input type="hidden" name="to" value={link.status === "PAUSED" ? "ACTIVE" : "PAUSED"} />
              <SubmitButton
                variant={link.status === "PAUSED" ? "primary" : "secondary"}
                pendingLabel={t(link.status === "PAUSED" ? "plink.detail.resume" : "plink.detail.pause")}
                data-testid="link-toggle"
              >
                {t(link.status === "PAUSED" ? "plink.detail.resume" : "plink.detail.pause")}
              </SubmitButton>
            </form>
          </div>
        ) : null}
      </Card>

      <Card className="flex min-w-0 flex-col items-center gap-3 text-center">
        <CardTitle>{t("plink.detail.qr")}</CardTitle>
        <QrCode value={link.url} label={t("plink.detail.qr")} size={200} />
        <a
          href={link.qrCodeLink}
          download={`link-${link.title}.png`}
          className="text-sm font-medium text-brand-700 underline-offset-2 hover:underline"
        >
          {t("plink.detail.downloadQr")}
        </a>
      </Card>

      <Card className="min-w-0 lg:col-span-3">
        <CardTitle>{t("plink.detail.sales")}</CardTitle>
        {sales.length === 0 ? (
          <p className="mt-2 text-sm text-slate-600">{t("plink.detail.noSales")}</p>
        ) : (
          <div className="mt-3 overflow-x-auto">
            <table className="w-full text-left text-sm" data-testid="link-sales">
              <thead className="text-xs uppercase text-slate-500">
                <tr>
                  <th className="py-2 pr-3">{t("plink.sales.when")}</th>
                  <th className="py-2 pr-3">{t("plink.sales.payer")}</th>
                  <th className="py-2 pr-3">{t("plink.sales.rail")}</th>
                  <th className="py-2 pr-3">{t("plink.sales.quantity")}</th>
                  <th className="py-2 pr-3 text-right">{t("plink.sales.value")}</th>
                  <th className="py-2">{t("plink.sales.status")}</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {sales.map((s) => (
                  <tr key={s.orderId}>
                    <td className="py-2 pr-3 whitespace-nowrap">
                      <a
                        href={`/dashboard/orders/${s.orderId}`}
                        className="text-brand-700 underline-offset-2 hover:underline"
                      >
                        {dateTime(s.createdAt)}
                      </a>
                    </td>
                    <td className="py-2 pr-3">{s.payer.name ?? s.payer.email ?? "—"}</td>
                    <td className="py-2 pr-3">{t(`plink.rail.${s.type}` as MessageKey)}</td>
                    <td className="py-2 pr-3 tabular-nums">{s.quantity}</td>
                    <td className="py-2 pr-3 text-right tabular-nums">{money(Math.round(s.value * 100))}</td>
                    <td className="py-2">
                      <StatusBadge status={s.status} kind={s.type} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Card>
    </div>
  );
}
