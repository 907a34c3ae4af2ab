"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { Input, Select } from "@/components/ui/field";
import { Spinner } from "@/components/ui/spinner";
import { networkName } from "@/lib/chain/network-names";
import { useI18n } from "@/lib/i18n/client";
import type { MessageKey } from "@/lib/i18n";
import type { PublicPaymentLink } from "@/lib/payment-links/schemas";

// The payer's side of a payment link: the amount (fixed price × quantity, or their own within the
// link's bounds), the details the link asks for, and the rail. Nothing is made until they press
// pay; then their own order is created and its checkout (/pay/{paymentLinkId}) opens.

type Rail = PublicPaymentLink["rails"][number];
type Field = PublicPaymentLink["payerFields"][number];

const FIELD_INPUT: Record<Field, { type: string; inputMode?: "email" | "numeric" | "tel"; autoComplete: string }> = {
  name: { type: "text", autoComplete: "name" },
  email: { type: "email", inputMode: "email", autoComplete: "email" },
  cpf: { type: "text", inputMode: "numeric", autoComplete: "off" },
  phone: { type: "tel", inputMode: "tel", autoComplete: "tel" },
  address: { type: "text", autoComplete: "street-address" },
};

/** "45,90" or "45.90" → centavos; null when it is not an amount with at most 2 decimals. */
function centavosOf(text: string): number | null {
  const s = text
    .trim()
    .replace(/\s/g, "")
    .replace(/\.(?=\d{3}(\D|$))/g, "")
    .replace(",", ".");
  if (!/^\d+(\.\d{1,2})?$/.test(s)) return null;
  return Math.round(Number(s) * 100);
}

export function LinkCheckout({ link }: { link: PublicPaymentLink }) {
  const { t, money } = useI18n();
  const router = useRouter();
  const [quantity, setQuantity] = useState(1);
  const [amountText, setAmountText] = useState("");
  const [payer, setPayer] = useState<Partial<Record<Field, string>>>({});
  const [rail, setRail] = useState<Rail | null>(link.rails.length === 1 ? link.rails[0] : null);
  const [token, setToken] = useState(link.onchain[0] ? `${link.onchain[0].network}:${link.onchain[0].asset}` : "");
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const fixed = link.price !== null;
  const minC = link.minAmount !== null ? Math.round(link.minAmount * 100) : 1;
  const maxC = link.maxAmount !== null ? Math.round(link.maxAmount * 100) : null;
  const typed = centavosOf(amountText);
  const totalC = fixed ? Math.round(link.price! * 100) * quantity : typed;

  if (!link.available) {
    return (
      <article
        className="rounded-2xl border border-slate-200 bg-white p-6 text-center shadow-sm"
        data-testid="link-unavailable"
      >
        <h1 className="text-lg font-semibold text-slate-900">{link.title}</h1>
        <p className="mt-1 text-sm text-slate-600">{t("plink.pay.by", { merchant: link.merchantName })}</p>
        <p className="mt-4 rounded-lg bg-amber-50 p-3 text-sm text-amber-900">
          {t(`plink.pay.unavailable.${link.unavailableReason ?? "expired"}` as MessageKey)}
        </p>
      </article>
    );
  }

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    const found: Record<string, string[]> = {};
    if (!fixed) {
      if (typed === null || typed < minC || (maxC !== null && typed > maxC))
        found.amount = [
          maxC !== null
            ? t("plink.pay.error.amount", { min: money(minC), max: money(maxC) })
            : t("plink.pay.error.amountMin", { min: money(minC) }),
        ];
    }
    for (const f of link.payerFields) if (!payer[f]?.trim()) found[f] = [t("plink.pay.error.required")];
    if (!rail) found.rail = [t("plink.pay.error.required")];
    setErrors(found);
    setFailure(null);
    if (Object.keys(found).length > 0) return;
    const [network, asset] = token.split(":");
    const body = {
      rail,
      ...(rail === "onchain" ? { network, asset } : {}),
      ...(fixed ? { quantity } : { amount: typed! / 100 }),
      payer: Object.fromEntries(link.payerFields.map((f) => [f, payer[f]!.trim()])),
    };
    setBusy(true);
    try {
      const res = await fetch(`/api/v1/public/payment-links/${link.slug}/orders`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify(body),
      });
      const answer = (await res.json().catch(() => ({}))) as { order?: { paymentLinkId: string }; message?: string };
      if (res.status === 201 && answer.order) {
        router.push(`/pay/${answer.order.paymentLinkId}`);
        return;
      }
      setFailure(
        res.status === 409
          ? t("plink.pay.error.conflict")
          : res.status === 429
            ? t("plink.pay.error.rate")
            : t("plink.pay.error.generic", { message: answer.message ?? String(res.status) }),
      );
    } catch {
      setFailure(t("plink.pay.error.generic", { message: "network" }));
    }
    setBusy(false);
  }

  return (
    <form
      onSubmit={submit}
      noValidate
      className="space-y-5 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm sm:p-8"
      data-testid="link-checkout"
    >
      {link.imageUrl ? (
        // A merchant's image from any https host: next/image would need each host configured.
        // eslint-disable-next-line @next/next/no-img-element
        <img src={link.imageUrl} alt="" className="max-h-56 w-full rounded-xl object-cover" />
      ) : null}
      <header>
        <h1 className="text-xl font-semibold text-slate-900">{link.title}</h1>
        <p className="mt-1 text-sm text-slate-600">{t("plink.pay.by", { merchant: link.merchantName })}</p>
        {link.description ? (
          <p className="mt-3 whitespace-pre-line text-sm text-slate-700">{link.description}</p>
        ) : null}
      </header>

      {fixed ? (
        <div className="flex items-end justify-between gap-4">
          <p className="text-3xl font-bold tabular-nums text-slate-900" data-testid="link-price">
            {money(Math.round(link.price! * 100))}
          </p>
          {link.maxQuantity ? (
            <Select
              label={t("plink.pay.quantity")}
              name="quantity"
              className="w-28"
              value={String(quantity)}
              onChange={(e) => setQuantity(Number(e.target.value))}
              options={Array.from({ length: link.maxQuantity }, (_, i) => ({
                value: String(i + 1),
                label: String(i + 1),
              }))}
            />
          ) : null}
        </div>
      ) : (
        <Input
          label={t("plink.pay.amount")}
          name="amount"
          inputMode="decimal"
          placeholder="0,00"
          hint={
            maxC !== null
              ? t("plink.pay.amountBounds", { min: money(minC), max: money(maxC) })
              : t("plink.pay.amountMin", { min: money(minC) })
          }
          value={amountText}
          onChange={(e) => {
            setAmountText(e.target.value);
            setErrors({ ...errors, amount: [] });
          }}
          errors={errors.amount}
        />
      )}

      {link.payerFields.length > 0 ? (
        <fieldset className="space-y-3">
          <legend className="mb-1 text-sm font-semibold text-slate-900">{t("plink.pay.yourData")}</legend>
          {link.payerFields.map((f) => (
            <Input
              key={f}
              label={t(`plink.field.${f}` as MessageKey)}
              name={f}
              {...FIELD_INPUT[f]}
              value={payer[f] ?? ""}
              onChange={(e) => {
                setPayer({ ...payer, [f]: e.target.value });
                setErrors({ ...errors, [f]: [] });
              }}
              errors={errors[f]}
            />
          ))}
        </fieldset>
      ) : null}

      <fieldset>
        <legend className="mb-2 text-sm font-semibold text-slate-900">{t("plink.pay.chooseRail")}</legend>
        <div className="grid grid-cols-1 gap-2 sm:grid-cols-2" role="radiogroup">
          {link.rails.map((r) => (
            <label
              key={r}
              className={`flex cursor-pointer items-center gap-2 rounded-lg border px-3 py-3 text-sm font-medium ${
                rail === r ? "border-brand-600 bg-brand-50 text-brand-900" : "border-slate-300 text-slate-800"
              }`}
            >
              <input
                type="radio"
                name="rail"
                value={r}
                checked={rail === r}
                onChange={() => {
                  setRail(r);
                  setErrors({ ...errors, rail: [] });
                }}
                className="accent-brand-600"
              />
              {t(`plink.rail.${r}` as MessageKey)}
            </label>
          ))}
        </div>
        {errors.rail?.length ? <p className="mt-1 text-sm text-red-700">{errors.rail[0]}</p> : null}
      </fieldset>

      {rail === "onchain" && link.onchain.length > 0 ? (
        <Select
          label={t("plink.pay.token")}
          name="token"
          value={token}
          onChange={(e) => setToken(e.target.value)}
          options={link.onchain.map((o) => ({
            value: `${o.network}:${o.asset}`,
            label: `${o.asset} · ${networkName(o.network)}`,
          }))}
        />
      ) : null}

      {failure ? (
        <p role="alert" className="rounded-lg bg-red-50 p-3 text-sm text-red-800" data-testid="link-error">
          {failure}
        </p>
      ) : null}

      <button
        type="submit"
        disabled={busy}
        data-testid="link-pay"
        className="flex w-full items-center justify-center gap-2 rounded-lg bg-brand-700 px-4 py-3 text-base font-semibold text-white hover:bg-brand-800 disabled:opacity-60"
      >
        {busy ? (
          <>
            <Spinner /> {t("plink.pay.creating")}
          </>
        ) : (
          t("plink.pay.continue", { total: totalC !== null && totalC > 0 ? money(totalC) : "" }).trim()
        )}
      </button>
    </form>
  );
}
