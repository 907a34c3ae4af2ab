"use client";

import { useActionState, useState } from "react";
import { Card } from "@/components/ui/card";
import { cn } from "@/components/ui/cn";
import { FormMessage, Input, Select } from "@/components/ui/field";
import { SubmitButton } from "@/components/ui/submit-button";
import { idle, type ActionState } from "@/lib/forms/action-state";
import { createSubscriptionAction } from "@/lib/dashboard/actions/subscriptions";
import type { MessageKey } from "@/lib/i18n";
import { useI18n } from "@/lib/i18n/client";

// A new subscription by Pix Automático, one column on a phone: how the payer starts (pay now and
// authorise, or only authorise), the amount (fixed, or variable with the payer's cap not below a
// minimum), how often and from when, who pays and what for; the retry policy last. The server action
// posts what POST /api/v1/subscriptions takes (lib/dashboard/schemas.ts subscriptionForm).

const PERIODICITIES = ["SEMANAL", "MENSAL", "TRIMESTRAL", "SEMESTRAL", "ANUAL"] as const;

function Choice({
  name,
  value,
  checked,
  onChange,
  title,
  body,
}: {
  name: string;
  value: string;
  checked: boolean;
  onChange: (v: string) => void;
  title: string;
  body: string;
}) {
  return (
    <label
      className={cn(
        "flex cursor-pointer items-start gap-3 rounded-lg border p-3",
        checked ? "border-brand-700 bg-brand-50" : "border-slate-300 bg-white",
      )}
    >
      <input
        type="radio"
        name={name}
        value={value}
        checked={checked}
        onChange={() => onChange(value)}
        className="mt-1 size-4"
      />
      <span>
        <span className="block text-sm font-semibold text-slate-900">{title}</span>
        <span className="block text-xs text-slate-600">{body}</span>
      </span>
    </label>
  );
}

export function NewSubscriptionForm({ earliest }: { earliest: string }) {
  const { t } = useI18n();
  const [state, action] = useActionState<ActionState<unknown>, FormData>(createSubscriptionAction, idle);
  const errors = state.status === "error" ? state.fieldErrors : undefined;
  const values = state.status === "error" ? state.values : undefined;
  const [journey, setJourney] = useState(values?.journey ?? "JORNADA_3");
  const [amountType, setAmountType] = useState(values?.amountType ?? "FIXED");
  const at = (...names: string[]) => names.flatMap((n) => errors?.[n] ?? []);
  return (
    <Card>
      {/* React resets a form after its action; a select keeps the default it was mounted with, so the form is
          mounted again with what was sent whenever that changes. */}
      <form
        key={JSON.stringify(values ?? {})}
        action={action}
        className="space-y-5"
        noValidate
        data-testid="new-subscription-form"
      >
        <FormMessage error={state.status === "error" ? state.error : undefined} />
        <fieldset className="space-y-2">
          <legend className="mb-1 text-sm font-medium text-slate-800">{t("sub.form.journey")}</legend>
          <div className="grid gap-2 sm:grid-cols-2">
            {(["JORNADA_3", "JORNADA_2"] as const).map((j) => (
              <Choice
                key={j}
                name="journey"
                value={j}
                checked={journey === j}
                onChange={setJourney}
                title={t(`sub.journey.${j}`)}
                body={t(`sub.journey.${j}.hint`)}
              />
            ))}
          </div>
          {at("journey").length ? <p className="text-xs font-medium text-red-700">{at("journey").join(" ")}</p> : null}
        </fieldset>
        <fieldset className="space-y-2">
          <legend className="mb-1 text-sm font-medium text-slate-800">{t("sub.form.amountType")}</legend>
          <div className="grid gap-2 sm:grid-cols-2">
            {(["FIXED", "VARIABLE"] as const).map((a) => (
              <Choice
                key={a}
                name="amountType"
                value={a}
                checked={amountType === a}
                onChange={setAmountType}
                title={t(`sub.amount.${a}`)}
                body={t(`sub.amount.${a}.hint`)}
              />
            ))}
          </div>
        </fieldset>
        <div className="grid gap-4 sm:grid-cols-2">
          <Input
            label={t("sub.form.value")}
            name="value"
            inputMode="decimal"
            required
            placeholder="89,90"
            hint={t(journey === "JORNADA_3" ? "sub.form.valueHintJ3" : "sub.form.valueHint")}
            defaultValue={values?.value}
            errors={at("value", "amount")}
          />
          {amountType === "VARIABLE" ? (
            <Input
              label={t("sub.form.minimum")}
              name="minimum"
              inputMode="decimal"
              optional
              hint={t("sub.form.minimumHint")}
              defaultValue={values?.minimum}
              errors={at("minimum")}
            />
          ) : null}
        </div>
        <div className="grid gap-4 sm:grid-cols-3">
          <Select
            label={t("sub.form.periodicity")}
            name="periodicity"
            defaultValue={values?.periodicity ?? "MENSAL"}
            errors={at("periodicity")}
            options={PERIODICITIES.map((p) => ({ value: p, label: t(`sub.periodicity.${p}` as MessageKey) }))}
          />
          <Input
            label={t("sub.form.firstDate")}
            name="firstDate"
            type="date"
            required
            min={earliest}
            hint={t("sub.form.firstDateHint")}
            defaultValue={values?.firstDate ?? earliest}
            errors={at("firstDate")}
          />
          <Input
            label={t("sub.form.lastDate")}
            name="lastDate"
            type="date"
            optional
            min={earliest}
            hint={t("sub.form.lastDateHint")}
            defaultValue={values?.lastDate}
            errors={at("lastDate")}
          />
        </div>
        <Input
          label={t("sub.form.payerName")}
          name="payerName"
          required
          autoComplete="off"
          maxLength={140}
          defaultValue={values?.payerName}
          errors={at("payerName", "payer")}
        />
        <div className="grid gap-4 sm:grid-cols-2">
          <Input
            label={t("sub.form.payerDocument")}
            name="payerDocument"
            required
            inputMode="numeric"
            autoComplete="off"
            placeholder="000.000.000-00"
            hint={t("sub.form.payerDocumentHint")}
            defaultValue={values?.payerDocument}
            errors={at("payerDocument")}
          />
          <Input
            label={t("sub.form.reference")}
            name="reference"
            optional
            maxLength={35}
            hint={t("sub.form.referenceHint")}
            defaultValue={values?.reference}
            errors={at("reference")}
          />
        </div>
        <Input
          label={t("sub.form.description")}
          name="description"
          required
          maxLength={35}
          placeholder={t("sub.form.descriptionPlaceholder")}
          hint={t("sub.form.descriptionHint")}
          defaultValue={values?.description}
          errors={at("description")}
        />
        <Select
          label={t("sub.form.retryPolicy")}
          name="retryPolicy"
          defaultValue={values?.retryPolicy ?? "NAO_PERMITE"}
          errors={at("retryPolicy")}
          options={(["NAO_PERMITE", "PERMITE_3R_7D"] as const).map((r) => ({
            value: r,
            label: t(`sub.retry.${r}`),
          }))}
        />
        <SubmitButton className="w-full sm:w-auto" pendingLabel={t("sub.form.submitting")}>
          {t("sub.form.submit")}
        </SubmitButton>
      </form>
    </Card>
  );
}
