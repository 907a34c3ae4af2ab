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

// Enrolling takes the password again, then the app's code and a code mailed to the user
// (lib/dashboard/actions/security.ts); turning off takes the app's code or a recovery code.

type Begun = { secret: string; uri: string; email: string; minutes: number };

function CodeInput({
  label,
  name = "code",
  hint,
  errors,
  testId = "totp-code",
}: {
  label: string;
  name?: string;
  hint?: string;
  errors?: string[];
  testId?: string;
}) {
  return (
    <Input
      label={label}
      name={name}
      autoComplete="one-time-code"
      required
      maxLength={32}
      hint={hint}
      errors={errors}
      data-testid={testId}
    />
  );
}

/** What the user's factor means for money right now: on hold after a change, or unusable on the session it was enrolled on. */
function FactorNotices({ heldUntil, enrolledHere }: { heldUntil: string | null; enrolledHere: boolean }) {
  const { t, dateTime } = useI18n();
  if (!heldUntil && !enrolledHere) return null;
  return (
    <Alert tone="warning">
      {enrolledHere ? <p data-testid="enrolled-here">{t("security.enrolledHere")}</p> : null}
      {heldUntil ? (
        <p data-testid="factor-held" className={enrolledHere ? "mt-2" : undefined}>
          {t("security.factorHeldOwn", { until: dateTime(heldUntil) })}
        </p>
      ) : null}
    </Alert>
  );
}

/** Enrol (password, then the secret as QR and text with the app's and the mailed code), show the recovery codes once, or turn 2FA off. */
export function TwoFactorPanel({
  enabled,
  recoveryCodesLeft,
  heldUntil,
  enrolledHere,
}: {
  enabled: boolean;
  recoveryCodesLeft: number;
  heldUntil: string | null;
  enrolledHere: boolean;
}) {
  const { t, tp } = useI18n();
  const [begun, begin] = useActionState<ActionState<Begun>, FormData>(beginTotpAction, idle);
  const [confirmed, confirm] = useActionState<ActionState<{ codes: string[] }>, FormData>(confirmTotpAction, idle);
  const [disabled, disable] = useActionState<ActionState<null>, FormData>(disableTotpAction, idle);

  if (confirmed.status === "success") {
    return (
      <div className="space-y-4">
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
        <Alert tone="warning">
          <p data-testid="enrolled-next">{t("security.afterEnrol")}</p>
        </Alert>
      </div>
    );
  }

  if (enabled) {
    return (
      <div className="space-y-4">
        <p className="text-sm text-slate-700" data-testid="two-factor-status">
          {t("security.twoFactorOn")} {tp("security.recoveryLeft", recoveryCodesLeft)}
        </p>
        <FactorNotices heldUntil={heldUntil} enrolledHere={enrolledHere} />
        <form action={disable} className="space-y-3" noValidate>
          <FormMessage error={disabled.status === "error" ? disabled.error : undefined} />
          <CodeInput
            label={t("security.disableCode")}
            hint={t("security.disableHint")}
            errors={disabled.status === "error" ? disabled.fieldErrors?.code : undefined}
          />
          <SubmitButton variant="danger" pendingLabel={t("common.loading")}>
            {t("security.disable")}
          </SubmitButton>
        </form>
      </div>
    );
  }

  if (begun.status === "success") {
    const errors = confirmed.status === "error" ? confirmed.fieldErrors : undefined;
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
          <CodeInput
            label={t("security.emailCode")}
            name="emailCode"
            hint={t("security.emailCodeHint", {
              email: begun.data.email,
              minutes: tp("span.minutes", begun.data.minutes),
            })}
            errors={errors?.emailCode}
            testId="email-code"
          />
          <CodeInput label={t("security.confirmCode")} errors={errors?.code} />
          <SubmitButton pendingLabel={t("common.loading")}>{t("security.confirm")}</SubmitButton>
        </form>
      </div>
    );
  }

  return (
    <div className="space-y-3">
      <FormMessage success={disabled.status === "success" ? disabled.message : undefined} />
      <p className="text-sm text-slate-700" data-testid="two-factor-status">
        {t("security.twoFactorOff")}
      </p>
      <form action={begin} className="space-y-3" noValidate>
        <FormMessage error={begun.status === "error" ? begun.error : undefined} />
        <Input
          label={t("security.currentPassword")}
          name="password"
          type="password"
          autoComplete="current-password"
          required
          hint={t("security.enrolPasswordHint")}
          errors={begun.status === "error" ? begun.fieldErrors?.password : undefined}
          data-testid="enrol-password"
        />
        <SubmitButton pendingLabel={t("common.loading")}>{t("security.enable")}</SubmitButton>
      </form>
    </div>
  );
}
