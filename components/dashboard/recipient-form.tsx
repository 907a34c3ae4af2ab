"use client";

import { useActionState, useState } from "react";
import { Card } from "@/components/ui/card";
import { FormMessage, Input, Select } from "@/components/ui/field";
import { SubmitButton } from "@/components/ui/submit-button";
import { idle, type ActionState } from "@/lib/forms/action-state";
import { createRecipientAction, updateRecipientAction } from "@/lib/dashboard/actions/recipients";
import { useI18n } from "@/lib/i18n/client";
import type { RecipientView } from "@/lib/recipients/schemas";
import { WEEKDAYS } from "@/lib/recipients/schedule";

// Adding or editing a recipient, one column on a phone: name, CPF/CNPJ (fixed once added), the PIX
// key it is paid to, e-mail and the merchant's own reference. On an edit the key field starts blank
// (views show keys masked) and typing a new key says, before saving, until when it will be held:
// DESTINATION_HOLD_HOURS from now, unless an owner confirms it sooner (lib/recipients/key-hold.ts).

export function RecipientForm({ recipient, holdHours }: { recipient?: RecipientView; holdHours: number }) {
  const { t, tp, dateTime } = useI18n();
  const [state, action] = useActionState<ActionState<unknown>, FormData>(
    recipient ? updateRecipientAction : createRecipientAction,
    idle,
  );
  const errors = state.status === "error" ? state.fieldErrors : undefined;
  const values = state.status === "error" ? state.values : undefined;
  const [newKey, setNewKey] = useState(recipient ? (values?.pixKey ?? "") : "");
  // When the hold would end if saved now; worked out on typing, so it follows the clock.
  const [holdEnds, setHoldEnds] = useState<Date | null>(null);
  const keyChanging = recipient !== undefined && newKey.trim() !== "";
  const schedule = recipient?.payoutSchedule ?? null;
  const [interval, setInterval] = useState(values?.payoutInterval ?? schedule?.interval ?? "");
  return (
    <Card>
      <form
        action={action}
        className="space-y-4"
        noValidate
        data-testid={recipient ? "recipient-edit-form" : "recipient-form"}
      >
        <FormMessage error={state.status === "error" ? state.error : undefined} />
        {recipient ? <input type="hidden" name="id" value={recipient.id} /> : null}
        <Input
          label={t("recipients.form.name")}
          name="name"
          required
          autoComplete="off"
          maxLength={140}
          hint={t("recipients.form.nameHint")}
          defaultValue={values?.name ?? recipient?.name}
          errors={errors?.name}
        />
        {recipient ? (
          <div className="space-y-1">
            <p className="text-sm font-medium text-slate-800">{t("recipients.form.document")}</p>
            <p className="font-mono text-sm text-slate-900">{recipient.document}</p>
            <p className="text-xs text-slate-600">{t("recipients.form.documentFixed")}</p>
          </div>
        ) : (
          <Input
            label={t("recipients.form.document")}
            name="document"
            required
            inputMode="numeric"
            autoComplete="off"
            placeholder="000.000.000-00"
            hint={t("recipients.form.documentHint")}
            defaultValue={values?.document}
            errors={errors?.document}
          />
        )}
        <div className="space-y-2">
          <Input
            label={t("recipients.form.pixKey")}
            name="pixKey"
            required={!recipient}
            optional={recipient !== undefined}
            autoComplete="off"
            spellCheck={false}
            placeholder={recipient ? recipient.pixKey : undefined}
            hint={
              recipient
                ? `${t("recipients.col.pixKey")}: ${recipient.pixKey}. ${t("recipients.form.pixKeyHint")}`
                : t("recipients.form.pixKeyHint")
            }
            value={recipient ? newKey : undefined}
            defaultValue={recipient ? undefined : values?.pixKey}
            onChange={
              recipient
                ? (e) => {
                    setNewKey(e.target.value);
                    setHoldEnds(new Date(Date.now() + holdHours * 3_600_000));
                  }
                : undefined
            }
            errors={errors?.pixKey}
          />
          {keyChanging ? (
            <p
              role="status"
              className="rounded-lg border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900"
              data-testid="key-hold-notice"
            >
              {holdHours > 0 && holdEnds
                ? t("recipients.form.holdChange", {
                    hours: tp("span.hours", holdHours),
                    until: dateTime(holdEnds),
                  })
                : t("recipients.form.noHold")}
            </p>
          ) : null}
        </div>
        <div className="grid gap-4 sm:grid-cols-2">
          <Input
            label={t("recipients.form.email")}
            name="email"
            type="email"
            inputMode="email"
            optional
            autoComplete="off"
            defaultValue={values?.email ?? recipient?.email ?? undefined}
            errors={errors?.email}
          />
          <Input
            label={t("recipients.form.reference")}
            name="reference"
            optional
            autoComplete="off"
            maxLength={200}
            hint={t("recipients.form.referenceHint")}
            defaultValue={values?.reference ?? recipient?.reference ?? undefined}
            errors={errors?.reference}
          />
        </div>
        <fieldset className="space-y-3 rounded-lg border border-slate-200 p-3" data-testid="payout-schedule">
          <legend className="px-1 text-sm font-medium text-slate-800">{t("recipients.form.schedule")}</legend>
          <p className="text-xs text-slate-600">{t("recipients.form.scheduleHint")}</p>
          <Select
            label={t("recipients.form.scheduleInterval")}
            name="payoutInterval"
            value={interval}
            onChange={(e) => setInterval(e.target.value)}
            options={[
              { value: "", label: t("recipients.schedule.none") },
              { value: "daily", label: t("recipients.schedule.daily") },
              { value: "weekly", label: t("recipients.schedule.weekly") },
              { value: "monthly", label: t("recipients.schedule.monthly") },
            ]}
            errors={errors?.payoutSchedule}
          />
          {interval === "weekly" ? (
            <Select
              label={t("recipients.form.scheduleWeekday")}
              name="payoutWeekday"
              defaultValue={values?.payoutWeekday ?? schedule?.weekday ?? "friday"}
              options={WEEKDAYS.map((d) => ({ value: d, label: t(`recipients.weekday.${d}`) }))}
            />
          ) : null}
          {interval === "monthly" ? (
            <Input
              label={t("recipients.form.scheduleMonthDay")}
              name="payoutMonthDay"
              inputMode="numeric"
              autoComplete="off"
              hint={t("recipients.form.scheduleMonthDayHint")}
              defaultValue={values?.payoutMonthDay ?? (schedule?.monthDay ? String(schedule.monthDay) : "")}
            />
          ) : null}
          {interval !== "" ? (
            <Input
              label={t("recipients.form.scheduleMinimum")}
              name="payoutMinimum"
              inputMode="decimal"
              optional
              autoComplete="off"
              hint={t("recipients.form.scheduleMinimumHint")}
              defaultValue={
                values?.payoutMinimum ?? (schedule?.minimumValue != null ? String(schedule.minimumValue) : "")
              }
            />
          ) : null}
        </fieldset>
        {recipient ? (
          <label className="flex items-start gap-2 text-sm text-slate-800">
            <input
              type="checkbox"
              name="active"
              className="mt-0.5 size-4 rounded border-slate-300"
              defaultChecked={values ? values.active === "on" : recipient.status === "ACTIVE"}
            />
            <span>{t("recipients.form.active")}</span>
          </label>
        ) : null}
        <SubmitButton className="w-full sm:w-auto" pendingLabel={t("recipients.form.submitting")}>
          {recipient ? t("recipients.form.save") : t("recipients.form.submit")}
        </SubmitButton>
      </form>
    </Card>
  );
}
