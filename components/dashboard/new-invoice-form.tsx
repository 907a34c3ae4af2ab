"use client";

import { useActionState, useState } from "react";
import { Card } from "@/components/ui/card";
import { FormMessage, Input, Select } from "@/components/ui/field";
import { SubmitButton } from "@/components/ui/submit-button";
import { idle, type ActionState } from "@/lib/forms/action-state";
import { createInvoiceAction } from "@/lib/dashboard/actions/invoices";
import { useI18n } from "@/lib/i18n/client";

// A new invoice in under a minute on a phone: the amount, the due date and who pays come first, in
// one column, with the keyboard each field needs; fine, interest, discount and the days it can still
// be paid after the due date wait in a section of their own. The server action posts what the API
// takes (lib/dashboard/schemas.ts invoiceForm).

const DAYS_AFTER = [0, 5, 10, 15, 30, 60];

export function NewInvoiceForm({ defaultDueDate, today }: { defaultDueDate: string; today: string }) {
  const { t, tp } = useI18n();
  const [state, action] = useActionState<ActionState<unknown>, FormData>(createInvoiceAction, idle);
  const errors = state.status === "error" ? state.fieldErrors : undefined;
  const values = state.status === "error" ? state.values : undefined;
  const [email, setEmail] = useState(values?.payerEmail ?? "");
  // Errors of the API's nested fields are shown beside the input that fills them.
  const at = (...names: string[]) => names.flatMap((n) => errors?.[n] ?? []);
  const termsErrors = at(
    "finePercent",
    "fine",
    "interestPercent",
    "interest",
    "discountValue",
    "discountUntil",
    "discount",
    "daysAfterDue",
    "reference",
  );
  return (
    <Card>
      <form action={action} className="space-y-4" noValidate data-testid="new-invoice-form">
        <FormMessage error={state.status === "error" ? state.error : undefined} />
        <div className="grid gap-4 sm:grid-cols-2">
          <Input
            label={t("invoice.form.value")}
            name="value"
            inputMode="decimal"
            required
            placeholder="150,00"
            hint={t("invoice.form.valueHint")}
            defaultValue={values?.value}
            errors={at("value")}
          />
          <Input
            label={t("invoice.form.dueDate")}
            name="dueDate"
            type="date"
            required
            min={today}
            defaultValue={values?.dueDate ?? defaultDueDate}
            errors={at("dueDate")}
          />
        </div>
        <Input
          label={t("invoice.form.payerName")}
          name="payerName"
          required
          autoComplete="off"
          defaultValue={values?.payerName}
          errors={at("payerName", "payer")}
        />
        <div className="grid gap-4 sm:grid-cols-2">
          <Input
            label={t("invoice.form.payerDocument")}
            name="payerDocument"
            required
            inputMode="numeric"
            autoComplete="off"
            placeholder="000.000.000-00"
            hint={t("invoice.form.payerDocumentHint")}
            defaultValue={values?.payerDocument}
            errors={at("payerDocument")}
          />
          <Input
            label={t("invoice.form.payerEmail")}
            name="payerEmail"
            type="email"
            inputMode="email"
            optional
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            errors={at("payerEmail")}
          />
        </div>
        <label className="flex items-start gap-2 text-sm text-slate-800">
          <input
            type="checkbox"
            name="notifyPayer"
            className="mt-0.5 size-4 rounded border-slate-300"
            disabled={email.trim() === ""}
            defaultChecked={values?.notifyPayer === "on"}
          />
          <span>
            {t("invoice.form.notifyPayer")}
            {email.trim() === "" ? (
              <span className="block text-xs text-slate-600">{t("invoice.form.notifyPayerNeedsEmail")}</span>
            ) : null}
          </span>
        </label>
        {at("notifyPayer").length ? (
          <p className="text-xs font-medium text-red-700">{at("notifyPayer").join(" ")}</p>
        ) : null}
        <Input
          label={t("invoice.form.description")}
          name="description"
          optional
          maxLength={140}
          hint={t("invoice.form.descriptionHint")}
          defaultValue={values?.description}
          errors={at("description")}
        />
        <details
          className="rounded-lg border border-slate-200 p-3"
          open={termsErrors.length > 0}
          data-testid="invoice-terms-section"
        >
          <summary className="cursor-pointer text-sm font-semibold text-slate-800">{t("invoice.form.terms")}</summary>
          <p className="mt-1 text-xs text-slate-600">{t("invoice.form.termsHint")}</p>
          <div className="mt-3 grid gap-4 sm:grid-cols-2">
            <Input
              label={t("invoice.form.finePercent")}
              name="finePercent"
              inputMode="decimal"
              optional
              placeholder="2"
              defaultValue={values?.finePercent}
              errors={at("finePercent", "fine")}
            />
            <Input
              label={t("invoice.form.interestPercent")}
              name="interestPercent"
              inputMode="decimal"
              optional
              placeholder="1"
              defaultValue={values?.interestPercent}
              errors={at("interestPercent", "interest")}
            />
            <Input
              label={t("invoice.form.discountValue")}
              name="discountValue"
              inputMode="decimal"
              optional
              defaultValue={values?.discountValue}
              errors={at("discountValue", "discount")}
            />
            <Input
              label={t("invoice.form.discountUntil")}
              name="discountUntil"
              type="date"
              optional
              min={today}
              hint={t("invoice.form.discountUntilHint")}
              defaultValue={values?.discountUntil}
              errors={at("discountUntil")}
            />
            <Select
              label={t("invoice.form.daysAfterDue")}
              name="daysAfterDue"
              defaultValue={values?.daysAfterDue ?? "30"}
              errors={at("daysAfterDue")}
              options={DAYS_AFTER.map((d) => ({
                value: String(d),
                label: d === 0 ? t("invoice.form.daysAfterDueNone") : tp("invoice.form.days", d),
              }))}
            />
            <Input
              label={t("invoice.form.reference")}
              name="reference"
              optional
              defaultValue={values?.reference}
              errors={at("reference")}
            />
          </div>
        </details>
        <SubmitButton className="w-full sm:w-auto" pendingLabel={t("invoice.form.submitting")}>
          {t("invoice.form.submit")}
        </SubmitButton>
      </form>
    </Card>
  );
}
