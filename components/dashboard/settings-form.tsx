"use client";

import { useActionState } from "react";
import { StepUpField } from "@/components/security/step-up";
import { Alert } from "@/components/ui/card";
import { FormMessage, Input } from "@/components/ui/field";
import { SubmitButton } from "@/components/ui/submit-button";
import { idle, type ActionState } from "@/lib/forms/action-state";
import {
  confirmPayoutKeyAction,
  updateCompanyAction,
  updatePayoutKeyAction,
  updateReceiptAction,
} from "@/lib/dashboard/actions/settings";
import { useI18n } from "@/lib/i18n/client";

function useForm(action: (prev: ActionState<null>, fd: FormData) => Promise<ActionState<null>>) {
  const [state, dispatch] = useActionState<ActionState<null>, FormData>(action, idle);
  const errors = state.status === "error" ? state.fieldErrors : undefined;
  const values = state.status === "error" ? state.values : undefined;
  const message = (
    <FormMessage
      error={state.status === "error" ? state.error : undefined}
      success={state.status === "success" ? state.message : undefined}
    />
  );
  return { dispatch, errors, values, message };
}

export function CompanyForm({ companyName }: { companyName: string }) {
  const { t } = useI18n();
  const f = useForm(updateCompanyAction);
  return (
    <form action={f.dispatch} className="space-y-4" noValidate>
      {f.message}
      <Input
        label={t("settings.companyName")}
        name="companyName"
        required
        defaultValue={f.values?.companyName ?? companyName}
        errors={f.errors?.companyName}
      />
      <SubmitButton pendingLabel={t("common.loading")}>{t("common.save")}</SubmitButton>
    </form>
  );
}

/** Whether the payer's receipt shows the split: off by default, the merchant's choice. */
export function ReceiptForm({ showsSplits, canEdit }: { showsSplits: boolean; canEdit: boolean }) {
  const { t } = useI18n();
  const f = useForm(updateReceiptAction);
  return (
    <form action={f.dispatch} className="space-y-4" noValidate data-testid="receipt-form">
      {f.message}
      <label className="flex items-start gap-2 text-sm text-slate-800">
        <input
          type="checkbox"
          name="receiptShowsSplits"
          className="mt-0.5 size-4 rounded border-slate-300"
          defaultChecked={f.values ? f.values.receiptShowsSplits === "on" : showsSplits}
          disabled={!canEdit}
        />
        <span>
          {t("settings.receiptSplits")}
          <span className="mt-0.5 block text-xs text-slate-600">{t("settings.receiptSplitsHint")}</span>
        </span>
      </label>
      {canEdit ? <SubmitButton pendingLabel={t("common.loading")}>{t("common.save")}</SubmitButton> : null}
    </form>
  );
}

/** Where PIX withdrawals go by default: a change takes a fresh second factor and starts the key's hold. */
export function PayoutKeyForm({ pixKey }: { pixKey: string }) {
  const { t } = useI18n();
  const f = useForm(updatePayoutKeyAction);
  return (
    <form action={f.dispatch} className="space-y-4" noValidate>
      {f.message}
      <Input
        label={t("settings.pixKey")}
        name="pixKey"
        required
        hint={t("auth.pixKeyHint")}
        defaultValue={f.values?.pixKey ?? pixKey}
        errors={f.errors?.pixKey}
      />
      <StepUpField errors={f.errors?.otp} />
      <SubmitButton pendingLabel={t("common.loading")}>{t("common.save")}</SubmitButton>
    </form>
  );
}

/** Shown while the payout key is held; only owners get the button. */
export function PayoutKeyHold({ until, canConfirm }: { until: string; canConfirm: boolean }) {
  const { t, dateTime } = useI18n();
  const f = useForm(confirmPayoutKeyAction);
  return (
    <Alert tone="warning" className="mb-4">
      <p data-testid="payout-hold">{t("settings.payoutHeld", { until: dateTime(until) })}</p>
      {canConfirm ? (
        <form action={f.dispatch} className="mt-3 space-y-3" noValidate>
          {f.message}
          <StepUpField errors={f.errors?.otp} />
          <SubmitButton pendingLabel={t("common.loading")}>{t("settings.confirmPayoutKey")}</SubmitButton>
        </form>
      ) : null}
    </Alert>
  );
}
