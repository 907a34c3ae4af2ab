"use client";

import { useActionState } from "react";
import { FormMessage, Input } from "@/components/ui/field";
import { SubmitButton } from "@/components/ui/submit-button";
import { idle, type ActionState } from "@/lib/forms/action-state";
import { updateSettingsAction } from "@/lib/dashboard/actions/settings";
import { useI18n } from "@/lib/i18n/client";

export function SettingsForm({ companyName, pixKey }: { companyName: string; pixKey: string }) {
  const { t } = useI18n();
  const [state, action] = useActionState<ActionState<null>, FormData>(updateSettingsAction, idle);
  const errors = state.status === "error" ? state.fieldErrors : undefined;
  const values = state.status === "error" ? state.values : undefined;
  return (
    <form action={action} className="space-y-4" noValidate>
      <FormMessage error={state.status === "error" ? state.error : undefined} success={state.status === "success" ? state.message : undefined} />
      <Input label={t("settings.companyName")} name="companyName" required defaultValue={values?.companyName ?? companyName} errors={errors?.companyName} />
      <Input label={t("settings.pixKey")} name="pixKey" required hint={t("auth.pixKeyHint")} defaultValue={values?.pixKey ?? pixKey} errors={errors?.pixKey} />
      <SubmitButton pendingLabel={t("common.loading")}>{t("common.save")}</SubmitButton>
    </form>
  );
}
