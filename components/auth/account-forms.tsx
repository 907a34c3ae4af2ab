"use client";

import { useActionState } from "react";
import { FormMessage, Input } from "@/components/ui/field";
import { SubmitButton } from "@/components/ui/submit-button";
import {
  acceptInvitationAction,
  requestPasswordResetAction,
  resetPasswordAction,
} from "@/lib/identity/dashboard/account-actions";
import { idle, type ActionState } from "@/lib/forms/action-state";
import { useI18n } from "@/lib/i18n/client";

export function ForgotPasswordForm() {
  const { t, tp } = useI18n();
  const [state, action] = useActionState<ActionState<{ minutes: number }>, FormData>(requestPasswordResetAction, idle);
  if (state.status === "success")
    return <FormMessage success={t("auth.resetSent", { minutes: tp("span.minutes", state.data.minutes) })} />;
  return (
    <form action={action} className="space-y-4" noValidate>
      <FormMessage error={state.status === "error" ? state.error : undefined} />
      <Input
        label={t("auth.email")}
        name="email"
        type="email"
        autoComplete="email"
        required
        defaultValue={state.status === "error" ? state.values?.email : undefined}
        errors={state.status === "error" ? state.fieldErrors?.email : undefined}
      />
      <SubmitButton pendingLabel={t("common.loading")} className="w-full">
        {t("auth.sendResetLink")}
      </SubmitButton>
    </form>
  );
}

export function ResetPasswordForm({ token }: { token: string }) {
  const { t } = useI18n();
  const [state, action] = useActionState<ActionState<null>, FormData>(resetPasswordAction, idle);
  return (
    <form action={action} className="space-y-4" noValidate>
      <FormMessage error={state.status === "error" ? state.error : undefined} />
      <input type="hidden" name="token" value={token} />
      <Input
        label={t("auth.newPassword")}
        name="password"
        type="password"
        autoComplete="new-password"
        required
        minLength={8}
        hint={t("auth.passwordHint")}
        errors={state.status === "error" ? state.fieldErrors?.password : undefined}
      />
      <SubmitButton pendingLabel={t("common.loading")} className="w-full">
        {t("auth.resetSubmit")}
      </SubmitButton>
    </form>
  );
}

export function AcceptInvitationForm({ token, email }: { token: string; email: string }) {
  const { t } = useI18n();
  const [state, action] = useActionState<ActionState<null>, FormData>(acceptInvitationAction, idle);
  const errors = state.status === "error" ? state.fieldErrors : undefined;
  return (
    <form action={action} className="space-y-4" noValidate>
      <FormMessage error={state.status === "error" ? state.error : undefined} />
      <input type="hidden" name="token" value={token} />
      <Input label={t("auth.email")} name="email-shown" type="email" value={email} readOnly autoComplete="username" />
      <Input label={t("auth.name")} name="name" autoComplete="name" optional errors={errors?.name} />
      <Input
        label={t("auth.password")}
        name="password"
        type="password"
        autoComplete="new-password"
        required
        minLength={8}
        hint={t("auth.passwordHint")}
        errors={errors?.password}
      />
      <SubmitButton pendingLabel={t("common.loading")} className="w-full">
        {t("auth.inviteAccept")}
      </SubmitButton>
    </form>
  );
}
