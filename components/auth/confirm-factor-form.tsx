"use client";

import { useActionState } from "react";
import { FormMessage } from "@/components/ui/field";
import { SubmitButton } from "@/components/ui/submit-button";
import { confirmFactorLinkAction } from "@/lib/identity/dashboard/factor-link-action";
import { idle, type ActionState } from "@/lib/forms/action-state";
import { useI18n } from "@/lib/i18n/client";

/** The one button that spends a factor-change link (app/(auth)/confirm-factor). */
export function ConfirmFactorForm({ token }: { token: string }) {
  const { t } = useI18n();
  const [state, action] = useActionState<ActionState<{ member: string }>, FormData>(confirmFactorLinkAction, idle);
  if (state.status === "success") {
    return (
      <p
        role="status"
        data-testid="factor-link-done"
        className="rounded-lg border border-brand-100 bg-brand-50 px-3 py-2 text-sm text-brand-900"
      >
        {t("security.linkDone", { member: state.data.member })}
      </p>
    );
  }
  return (
    <form action={action} className="space-y-3" noValidate>
      <FormMessage error={state.status === "error" ? state.error : undefined} />
      <input type="hidden" name="token" value={token} />
      <SubmitButton pendingLabel={t("common.loading")} className="w-full">
        {t("security.linkConfirm")}
      </SubmitButton>
    </form>
  );
}
