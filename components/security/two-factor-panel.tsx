"use client";

import { useActionState } from "react";
import { Alert } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { FormMessage, Input } from "@/components/ui/field";
import { QrCode } from "@/components/ui/qr-code";
import { SubmitButton } from "@/components/ui/submit-button";
import { idle, type ActionState } from "@/lib/forms/action-state";
import { beginTotpAction, confirmTotpAction, disableTotpAction } from "@/lib/dashboard/actions/security";
import { useI18n } from "@/lib/i18n/client";

function CodeInput({ label, errors }: { label: string; errors?: string[] }) {
  return <Input label={label} name="code" autoComplete="one-time-code" required maxLength={32} errors={errors} data-testid="totp-code" />;
}

/** Enrol (secret as QR and text, then a code), show the recovery codes once, or turn 2FA off. */
export function TwoFactorPanel({ enabled, recoveryCodesLeft }: { enabled: boolean; recoveryCodesLeft: number }) {
  const { t } = useI18n();
  const [begun, begin] = useActionState<ActionState<{ secret: string; uri: string }>, FormData>(beginTotpAction, idle);
  const [confirmed, confirm] = useActionState<ActionState<{ codes: string[] }>, FormData>(confirmTotpAction, idle);
  const [disabled, disable] = useActionState<ActionState<null>, FormData>(disableTotpAction, idle);

  if (confirmed.status === "success") {
    return (
      <Alert tone="success">
        <p className="font-semibold">{t("security.enabled")}</p>
        <p className="mb-2 mt-1">{t("security.recoveryHint")}</p>
        <ul className="grid grid-cols-2 gap-1 font-mono text-sm" data-testid="recovery-codes">
          {confirmed.data.codes.map((c) => (
            <li key={c}>{c}</li>
          ))}
        </ul>
        <div className="mt-3">
          <CopyButton value={confirmed.data.codes.join("\n")} what={t("security.recoveryTitle")} />
        </div>
      </Alert>
    );
  }

  if (enabled) {
    return (
      <div className="space-y-4">
        <p className="text-sm text-slate-700" data-testid="two-factor-status">
          {t("security.twoFactorOn")} {t("security.recoveryLeft", { count: recoveryCodesLeft })}
        </p>
        <form action={disable} className="space-y-3" noValidate>
          <FormMessage error={disabled.status === "error" ? disabled.error : undefined} />
          <CodeInput label={t("auth.otp")} errors={disabled.status === "error" ? disabled.fieldErrors?.code : undefined} />
          <SubmitButton variant="danger" pendingLabel={t("common.loading")}>
            {t("security.disable")}
          </SubmitButton>
        </form>
      </div>
    );
  }

  if (begun.status === "success") {
    return (
      <div className="space-y-4">
        <p className="text-sm text-slate-700">{t("security.scan")}</p>
        <QrCode value={begun.data.uri} label={t("security.qrLabel")} size={192} />
        <p className="text-sm">
          {t("security.secret")}:{" "}
          <code className="break-all font-mono" data-testid="totp-secret">
            {begun.data.secret}
          </code>
        </p>
        <form action={confirm} className="space-y-3" noValidate>
          <FormMessage error={confirmed.status === "error" ? confirmed.error : undefined} />
          <CodeInput label={t("security.confirmCode")} errors={confirmed.status === "error" ? confirmed.fieldErrors?.code : undefined} />
          <SubmitButton pendingLabel={t("common.loading")}>{t("security.confirm")}</SubmitButton>
        </form>
      </div>
    );
  }

  return (
    <div className="space-y-3">
      <FormMessage success={disabled.status === "success" ? disabled.message : undefined} error={begun.status === "error" ? begun.error : undefined} />
      <p className="text-sm text-slate-700" data-testid="two-factor-status">
        {t("security.twoFactorOff")}
      </p>
      <form action={begin}>
        <SubmitButton pendingLabel={t("common.loading")}>{t("security.enable")}</SubmitButton>
      </form>
    </div>
  );
}
