"use client";

import { useActionState } from "react";
import { FormMessage } from "@/components/ui/field";
import { SubmitButton } from "@/components/ui/submit-button";
import { confirmDestinationLinkAction } from "@/lib/identity-flows/destination-link";
import { idle, type ActionState } from "@/lib/forms/action-state";
import { useI18n } from "@/lib/i18n/client";

/** The button that spends the mailed link; once it has, the answer replaces it. */
export function ConfirmDestinationLink({ token }: { token: string }) {
  const { t } = useI18n();
  const [state, action] = useActionState<ActionState<null>, FormData>(confirmDestinationLinkAction, idle);
  if (state.status === "success") return <FormMessage success={state.message} />;
  return (
    <form action={action} className="space-y-3" noValidate>
      <FormMessage error={state.status === "error" ? state.error : undefined} />
      <input type="hidden" name="token" value={token} />
      <SubmitButton pendingLabel={t("common.loading")} className="w-full">
        {t("destinations.linkConfirm")}
      </SubmitButton>
    </form>
  );
}
