"use client";

import { CopyField } from "@/components/ui/copy-button";
import { Countdown } from "@/components/ui/countdown";
import { QrCode } from "@/components/ui/qr-code";
import type { MessageKey } from "@/lib/i18n";
import { useI18n } from "@/lib/i18n/client";

/** What a payer needs: the QR, the code to copy, the payment link and the time left. */
export function PaymentPanel({
  qrContent,
  code,
  codeLabel,
  link,
  valueCentavos,
  expiresAt,
  onExpire,
}: {
  qrContent: string;
  code: string;
  codeLabel: MessageKey;
  link: string | null;
  valueCentavos: number;
  expiresAt: string | null;
  onExpire?: () => void;
}) {
  const { t, money } = useI18n();
  return (
    <div className="flex flex-col gap-6 sm:flex-row sm:items-start">
      <div className="flex flex-col items-center gap-2">
        <QrCode value={qrContent} label={t("order.qrAlt", { amount: money(valueCentavos) })} />
        {expiresAt ? (
          <Countdown expiresAt={expiresAt} onExpire={onExpire} />
        ) : (
          <span className="text-sm text-slate-600">{t("order.noExpiry")}</span>
        )}
      </div>
      <div className="min-w-0 flex-1 space-y-4">
        <CopyField label={t(codeLabel)} value={code} />
        {link && codeLabel !== "order.paymentLink" ? <CopyField label={t("order.paymentLink")} value={link} /> : null}
        {link ? (
          <a
            href={link}
            target="_blank"
            rel="noreferrer"
            className="inline-flex text-sm font-semibold text-brand-700 underline-offset-2 hover:underline"
            data-testid="payment-link"
          >
            {t("order.openLink")} ↗
          </a>
        ) : null}
      </div>
    </div>
  );
}
