"use client";

import { useActionState } from "react";
import { FormMessage } from "@/components/ui/field";
import { SubmitButton } from "@/components/ui/submit-button";
import { confirmSignUpAction } from "@/lib/identity-flows/sign-up";
import { idle, type ActionState } from "@/lib/forms/action-state";
import { useI18n } from "@/lib/i18n/client";

/** The sign-up link's one button: the account is created here, then the visitor signs in. */
export function SignUpConfirmForm({ token }: { token: string }) {
  const { t } = useI18n();
  const [state, action] = useActionState<ActionState<null>, FormData>(confirmSignUpAction, idle);
  return (
    <form action={action} className="space-y-4" noValidate>
      <FormMessage error={state.status === "error" ? state.error : undefined} />
      <input type="hidden" name="token" value={token} />
      <SubmitButton pendingLabel={t("auth.creating")} className="w-full">
        {t("auth.signUpConfirmSubmit")}
      </SubmitButton>
    </form>
  );
}
