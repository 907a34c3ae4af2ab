"use client";

import { useActionState } from "react";
import { FormMessage, Input } from "@/components/ui/field";
import { SubmitButton } from "@/components/ui/submit-button";
import { idle, type ActionState } from "@/lib/forms/action-state";
import { changePasswordAction } from "@/lib/dashboard/actions/security";
import { useI18n } from "@/lib/i18n/client";

export function PasswordForm() {
  const { t } = useI18n();
  const [state, action] = useActionState<ActionState<null>, FormData>(changePasswordAction, idle);
  const errors = state.status === "error" ? state.fieldErrors : undefined;
  return (
    <form action={action} className="space-y-4" noValidate>
      <FormMessage
        error={state.status === "error" ? state.error : undefined}
        success={state.status === "success" ? state.message : undefined}
      />
      <Input
        label={t("security.currentPassword")}
        name="currentPassword"
        type="password"
        autoComplete="current-password"
        required
        errors={errors?.currentPassword}
      />
      <Input
        label={t("auth.newPassword")}
        name="newPassword"
        type="password"
        autoComplete="new-password"
        required
        minLength={8}
        hint={t("auth.passwordHint")}
        errors={errors?.newPassword}
      />
      <SubmitButton pendingLabel={t("common.loading")}>{t("security.changePassword")}</SubmitButton>
    </form>
  );
}
