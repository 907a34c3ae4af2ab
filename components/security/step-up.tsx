"use client";

import Link from "next/link";
import { createContext, useContext } from "react";
import { Alert } from "@/components/ui/card";
import { Input } from "@/components/ui/field";
import { useI18n } from "@/lib/i18n/client";

// Forms that move money or change where it goes carry an authentication-code field while the
// session has no recent second factor. The dashboard layout says whether one is needed; the server
// action decides (and asks again through the field's error when the layout's answer is stale).

// A factor enrolled on this session, or one whose change no other owner has confirmed yet, cannot
// step up: the form says so instead of asking for a code that would be refused.
// A form whose action steps up only in live mode (`stepUp: "live"`, a sandbox key or webhook) shows
// nothing in a sandbox deployment.
type StepUp = {
  twoFactor: boolean;
  needed: boolean;
  minutes: number;
  enrolledHere?: boolean;
  heldUntil?: string | null;
  sandbox?: boolean;
};
const StepUpContext = createContext<StepUp>({ twoFactor: false, needed: true, minutes: 5 });

export function StepUpProvider({ value, children }: { value: StepUp; children: React.ReactNode }) {
  return <StepUpContext.Provider value={value}>{children}</StepUpContext.Provider>;
}

export function StepUpField({ errors, liveOnly = false }: { errors?: string[]; liveOnly?: boolean }) {
  const { t, tp, dateTime } = useI18n();
  const { twoFactor, needed, minutes, enrolledHere, heldUntil, sandbox } = useContext(StepUpContext);
  if (liveOnly && sandbox) return null;
  if (twoFactor && (heldUntil || enrolledHere)) {
    return (
      <Alert tone="warning">
        <p data-testid="step-up-blocked">
          {heldUntil ? t("security.factorHeld", { until: dateTime(heldUntil) }) : t("security.enrolledHere")}
        </p>
        <Link href="/dashboard/security" className="font-semibold underline">
          {t("security.title")}
        </Link>
      </Alert>
    );
  }
  if (!twoFactor) {
    return (
      <Alert tone="warning">
        <p>{t("security.twoFactorNeeded")}</p>
        <Link href="/dashboard/security" className="font-semibold underline">
          {t("security.twoFactorLink")}
        </Link>
      </Alert>
    );
  }
  if (!needed && !errors?.length) return null;
  return (
    <Input
      label={t("security.stepUpLabel")}
      name="otp"
      autoComplete="one-time-code"
      inputMode="numeric"
      maxLength={32}
      hint={t("security.stepUpHint", { minutes: tp("span.minutes", minutes) })}
      errors={errors}
      data-testid="step-up-code"
    />
  );
}
