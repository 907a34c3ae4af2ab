"use client";

import { useActionState } from "react";
import { FormMessage, Textarea } from "@/components/ui/field";
import { SubmitButton } from "@/components/ui/submit-button";
import { defendInfractionAction } from "@/lib/dashboard/actions/disputes";
import { idle, type ActionState } from "@/lib/forms/action-state";
import { useI18n } from "@/lib/i18n/client";
import type { DefenceResult } from "@/lib/med/infractions";

/** The defence of one MED infraction: sent once, so the button stays disabled while it goes. */
export function DefenceForm({ id, max }: { id: string; max: number }) {
  const { t } = useI18n();
  const [state, dispatch] = useActionState<ActionState<DefenceResult>, FormData>(defendInfractionAction, idle);
  const errors = state.status === "error" ? state.fieldErrors : undefined;
  const values = state.status === "error" ? state.values : undefined;
  if (state.status === "success") return <FormMessage success={state.message} />;
  return (
    <form action={dispatch} className="space-y-3" noValidate data-testid="defence-form">
      <FormMessage error={state.status === "error" ? state.error : undefined} />
      <input type="hidden" name="id" value={id} />
      <Textarea
        label={t("disputes.defence.label")}
        name="defence"
        required
        maxLength={max}
        rows={4}
        hint={t("disputes.defence.help", { max })}
        defaultValue={values?.defence ?? ""}
        errors={errors?.defence}
      />
      <SubmitButton pendingLabel={t("common.loading")}>{t("disputes.defence.submit")}</SubmitButton>
    </form>
  );
}
