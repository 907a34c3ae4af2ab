"use client";

import { useActionState, useState } from "react";
import { Card } from "@/components/ui/card";
import { FormMessage, Input, Textarea } from "@/components/ui/field";
import { SubmitButton } from "@/components/ui/submit-button";
import { networkName } from "@/lib/chain/network-names";
import { createPaymentLinkAction, updatePaymentLinkAction } from "@/lib/dashboard/actions/payment-links";
import { idle, type ActionState } from "@/lib/forms/action-state";
import { useI18n } from "@/lib/i18n/client";
import type { MessageKey } from "@/lib/i18n";
import type { PaymentLinkView } from "@/lib/payment-links/schemas";

// A payment link in under a minute on a phone: title and price first, then how to pay; what to ask
// the payer, the limits and the merchant's own reference below. The form posts the API's request
// body (POST or PATCH /api/v1/payment-links) as one field, checked here first in the merchant's words.

type Rail = PaymentLinkView["rails"][number];
type Field = PaymentLinkView["payerFields"][number];
type Token = { network: string; asset: string };
const FIELDS: Field[] = ["name", "email", "cpf", "phone", "address"];

const brl = (n: number | null | undefined) => (n == null ? "" : n.toFixed(2).replace(".", ","));
function amountOf(text: string): number | null {
  const s = text
    .trim()
    .replace(/\s/g, "")
    .replace(/\.(?=\d{3}(\D|$))/g, "")
    .replace(",", ".");
  return /^\d+(\.\d{1,2})?$/.test(s) && Number(s) > 0 ? Number(s) : null;
}
const localInput = (iso: string | null) => {
  if (!iso) return "";
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

export function PaymentLinkForm({ rails, tokens, link }: { rails: Rail[]; tokens: Token[]; link?: PaymentLinkView }) {
  const { t } = useI18n();
  const [state, action] = useActionState<ActionState<unknown>, FormData>(
    link ? updatePaymentLinkAction : createPaymentLinkAction,
    idle,
  );
  const [title, setTitle] = useState(link?.title ?? "");
  const [description, setDescription] = useState(link?.description ?? "");
  const [imageUrl, setImageUrl] = useState(link?.imageUrl ?? "");
  const [fixed, setFixed] = useState(link ? link.price !== null : true);
  const [price, setPrice] = useState(brl(link?.price));
  const [min, setMin] = useState(brl(link?.minAmount));
  const [max, setMax] = useState(brl(link?.maxAmount));
  const [maxQuantity, setMaxQuantity] = useState(link?.maxQuantity ? String(link.maxQuantity) : "");
  const [chosenRails, setChosenRails] = useState<Rail[]>(link?.rails ?? rails.filter((r) => r === "pix"));
  const [chosenTokens, setChosenTokens] = useState<string[]>(
    (link?.onchain ?? []).map((o) => `${o.network}:${o.asset}`),
  );
  const [fields, setFields] = useState<Field[]>(link?.payerFields ?? []);
  const [until, setUntil] = useState(localInput(link?.availableUntil ?? null));
  const [maxPayments, setMaxPayments] = useState(link?.maxPayments ? String(link.maxPayments) : "");
  const [reference, setReference] = useState(link?.reference ?? "");
  const [metadata, setMetadata] = useState(
    Object.entries(link?.metadata ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join("\n"),
  );
  const [errors, setErrors] = useState<Record<string, string[]>>({});

  const toggle = <T,>(list: T[], v: T) => (list.includes(v) ? list.filter((x) => x !== v) : [...list, v]);
  const serverError =
    state.status === "error"
      ? [state.error, ...Object.values(state.fieldErrors ?? {}).flat()].filter(Boolean).join(" ")
      : undefined;

  /** The request body, or the errors in the merchant's words. */
  function build(): { body?: Record<string, unknown>; errors: Record<string, string[]> } {
    const e: Record<string, string[]> = {};
    if (!title.trim()) e.title = [t("plink.form.error.title")];
    const p = amountOf(price);
    const lo = min.trim() ? amountOf(min) : null;
    const hi = max.trim() ? amountOf(max) : null;
    if (fixed && p === null) e.price = [t("plink.form.error.price")];
    if (!fixed && min.trim() && lo === null) e.min = [t("plink.form.error.price")];
    if (!fixed && max.trim() && hi === null) e.max = [t("plink.form.error.price")];
    if (chosenRails.length === 0) e.rails = [t("plink.form.error.rails")];
    if (chosenRails.includes("onchain") && chosenTokens.length === 0) e.onchain = [t("plink.form.error.onchain")];
    const meta: Record<string, string> = {};
    for (const line of metadata.split("\n").filter((l) => l.trim())) {
      const at = line.indexOf("=");
      if (at <= 0) e.metadata = [t("plink.form.error.metadata")];
      else meta[line.slice(0, at).trim()] = line.slice(at + 1).trim();
    }
    if (Object.keys(e).length > 0) return { errors: e };
    const onchain = chosenRails.includes("onchain")
      ? chosenTokens.map((k) => ({ network: k.split(":")[0], asset: k.split(":")[1] }))
      : [];
    const untilIso = until ? new Date(until).toISOString() : null;
    const clear = link ? null : undefined;
    const out: Record<string, unknown> = {
      title: title.trim(),
      description: description.trim() || clear,
      imageUrl: imageUrl.trim() || clear,
      ...(fixed
        ? { price: p, maxQuantity: maxQuantity ? Number(maxQuantity) : clear }
        : { ...(link ? { price: null } : {}), minAmount: lo ?? clear, maxAmount: hi ?? clear }),
      rails: chosenRails,
      onchain,
      payerFields: fields,
      maxPayments: maxPayments ? Number(maxPayments) : clear,
      reference: reference.trim() || clear,
      metadata: meta,
    };
    // An edit sends the date only when it changed: a past one left as it was is not refused.
    if (!link || until !== localInput(link.availableUntil)) out.availableUntil = untilIso ?? clear;
    for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k];
    return { body: out, errors: {} };
  }

  return (
    <Card>
      <form
        action={action}
        noValidate
        className="space-y-5"
        data-testid="payment-link-form"
        onSubmit={(ev) => {
          const built = build();
          setErrors(built.errors);
          if (!built.body) {
            ev.preventDefault();
            return;
          }
          // The hidden field must hold the body before the form data is read.
          (ev.currentTarget.elements.namedItem("body") as HTMLInputElement).value = JSON.stringify(built.body);
        }}
      >
        <FormMessage error={serverError} />
        {link ? <input type="hidden" name="id" value={link.id} /> : null}
        <input type="hidden" name="body" defaultValue="" />
        <Input
          label={t("plink.form.title")}
          name="title"
          required
          maxLength={120}
          value={title}
          onChange={(e) => setTitle(e.target.value)}
          errors={errors.title}
        />
        <Textarea
          label={t("plink.form.description")}
          name="description"
          optional
          rows={3}
          maxLength={1000}
          value={description}
          onChange={(e) => setDescription(e.target.value)}
        />
        <Input
          label={t("plink.form.imageUrl")}
          name="imageUrl"
          type="url"
          optional
          placeholder="https://"
          value={imageUrl}
          onChange={(e) => setImageUrl(e.target.value)}
        />

        <fieldset className="space-y-3">
          <legend className="text-sm font-semibold text-slate-900">{t("plink.form.amountType")}</legend>
          <div className="flex flex-col gap-2 sm:flex-row sm:gap-6">
            {[true, false].map((f) => (
              <label key={String(f)} className="flex items-center gap-2 text-sm text-slate-800">
                <input type="radio" name="amountType" checked={fixed === f} onChange={() => setFixed(f)} />
                {t(f ? "plink.form.fixed" : "plink.form.open")}
              </label>
            ))}
          </div>
          {fixed ? (
            <div className="grid gap-4 sm:grid-cols-2">
              <Input
                label={t("plink.form.price")}
                name="price"
                inputMode="decimal"
                placeholder="45,90"
                value={price}
                onChange={(e) => setPrice(e.target.value)}
                errors={errors.price}
              />
              <Input
                label={t("plink.form.maxQuantity")}
                name="maxQuantity"
                type="number"
                inputMode="numeric"
                min={2}
                max={1000}
                optional
                value={maxQuantity}
                onChange={(e) => setMaxQuantity(e.target.value)}
              />
            </div>
          ) : (
            <div className="grid gap-4 sm:grid-cols-2">
              <Input
                label={t("plink.form.min")}
                name="minAmount"
                inputMode="decimal"
                optional
                value={min}
                onChange={(e) => setMin(e.target.value)}
                errors={errors.min}
              />
              <Input
                label={t("plink.form.max")}
                name="maxAmount"
                inputMode="decimal"
                optional
                value={max}
                onChange={(e) => setMax(e.target.value)}
                errors={errors.max}
              />
            </div>
          )}
        </fieldset>

        <fieldset>
          <legend className="mb-2 text-sm font-semibold text-slate-900">{t("plink.form.rails")}</legend>
          <div className="grid grid-cols-1 gap-2 sm:grid-cols-2">
            {rails.map((r) => (
              <label key={r} className="flex items-center gap-2 rounded-lg border border-slate-300 px-3 py-2.5 text-sm">
                <input
                  type="checkbox"
                  name={`rail-${r}`}
                  checked={chosenRails.includes(r)}
                  onChange={() => setChosenRails(toggle(chosenRails, r))}
                />
                {t(`plink.rail.${r}` as MessageKey)}
              </label>
            ))}
          </div>
          {errors.rails ? <p className="mt-1 text-sm text-red-700">{errors.rails[0]}</p> : null}
        </fieldset>

        {chosenRails.includes("onchain") ? (
          <fieldset>
            <legend className="mb-2 text-sm font-semibold text-slate-900">{t("plink.form.onchain")}</legend>
            <div className="grid grid-cols-2 gap-2 sm:grid-cols-3">
              {tokens.map((o) => {
                const k = `${o.network}:${o.asset}`;
                return (
                  <label key={k} className="flex items-center gap-2 text-sm text-slate-800">
                    <input
                      type="checkbox"
                      name={`token-${k}`}
                      checked={chosenTokens.includes(k)}
                      onChange={() => setChosenTokens(toggle(chosenTokens, k))}
                    />
                    {o.asset} · {networkName(o.network)}
                  </label>
                );
              })}
            </div>
            {errors.onchain ? <p className="mt-1 text-sm text-red-700">{errors.onchain[0]}</p> : null}
          </fieldset>
        ) : null}

        <fieldset>
          <legend className="mb-2 text-sm font-semibold text-slate-900">{t("plink.form.payerFields")}</legend>
          <div className="flex flex-wrap gap-x-5 gap-y-2">
            {FIELDS.map((f) => (
              <label key={f} className="flex items-center gap-2 text-sm text-slate-800">
                <input
                  type="checkbox"
                  name={`field-${f}`}
                  checked={fields.includes(f)}
                  onChange={() => setFields(toggle(fields, f))}
                />
                {t(`plink.field.${f}` as MessageKey)}
              </label>
            ))}
          </div>
        </fieldset>

        <fieldset className="space-y-3">
          <legend className="text-sm font-semibold text-slate-900">{t("plink.form.limits")}</legend>
          <div className="grid gap-4 sm:grid-cols-2">
            <Input
              label={t("plink.form.availableUntil")}
              name="availableUntil"
              type="datetime-local"
              optional
              value={until}
              onChange={(e) => setUntil(e.target.value)}
            />
            <Input
              label={t("plink.form.maxPayments")}
              name="maxPayments"
              type="number"
              inputMode="numeric"
              min={1}
              optional
              value={maxPayments}
              onChange={(e) => setMaxPayments(e.target.value)}
            />
          </div>
        </fieldset>

        <div className="grid gap-4 sm:grid-cols-2">
          <Input
            label={t("plink.form.reference")}
            name="reference"
            optional
            maxLength={200}
            value={reference}
            onChange={(e) => setReference(e.target.value)}
          />
          <Textarea
            label={t("plink.form.metadata")}
            name="metadata"
            optional
            rows={2}
            value={metadata}
            onChange={(e) => setMetadata(e.target.value)}
            errors={errors.metadata}
          />
        </div>

        <SubmitButton pendingLabel={t("plink.form.submit")} data-testid="payment-link-submit">
          {t(link ? "plink.form.save" : "plink.form.submit")}
        </SubmitButton>
      </form>
    </Card>
  );
}
