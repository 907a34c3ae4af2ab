"use client";

import Link from "next/link";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Input, Select } from "@/components/ui/field";
import { splitField, takeSplitRows } from "@/lib/dashboard/split-form";
import { parseDecimalInput } from "@/lib/forms/form";
import { useI18n } from "@/lib/i18n/client";

// The split section of the order form: rows of recipient, form (R$ or %) and amount, added and
// removed on the spot; below them what each part comes to and what the merchant keeps of the value
// typed above, in the arithmetic of lib/splits/allocate.ts (a percentage is floored to the centavo).
// Rows post as split-<n>-* fields (lib/dashboard/split-form.ts); their errors show beside them.

type Row = { n: number; recipientId: string; mode: string; amount: string };

function initialRows(values?: Record<string, string>): Row[] {
  if (!values) return [];
  return takeSplitRows(values).rows.map((r) => ({
    n: r.n,
    recipientId: r.recipientId ?? "",
    mode: r.mode === "percentage" ? "percentage" : "value",
    amount: r.amount ?? "",
  }));
}

/** A row's worth in centavos on an order of `orderCentavos`; null while it cannot be worked out. */
function partCentavos(row: Row, orderCentavos: number | null): number | null {
  const n = parseDecimalInput(row.amount);
  if (!Number.isFinite(n) || n <= 0) return null;
  if (row.mode === "percentage")
    return orderCentavos === null ? null : Math.floor((orderCentavos * Math.round(n * 100)) / 10_000);
  return Math.round(n * 100);
}

export function SplitParts({
  recipients,
  orderValue,
  values,
  errors,
}: {
  recipients: { id: string; name: string }[];
  /** The order's value as typed above. */
  orderValue: string;
  values?: Record<string, string>;
  errors?: Record<string, string[]>;
}) {
  const { t, money } = useI18n();
  const [rows, setRows] = useState<Row[]>(() => initialRows(values));
  const [next, setNext] = useState(() => Math.max(-1, ...rows.map((r) => r.n)) + 1);
  const typed = parseDecimalInput(orderValue);
  const orderCentavos = Number.isFinite(typed) && typed > 0 ? Math.round(typed * 100) : null;
  const parts = rows.map((r) => partCentavos(r, orderCentavos));
  const sum = parts.reduce<number>((a, p) => a + (p ?? 0), 0);
  const over = orderCentavos !== null && sum > orderCentavos;
  const update = (n: number, change: Partial<Row>) =>
    setRows((rs) => rs.map((r) => (r.n === n ? { ...r, ...change } : r)));
  const add = () => {
    setRows((rs) => [...rs, { n: next, recipientId: "", mode: "value", amount: "" }]);
    setNext((k) => k + 1);
  };
  return (
    <fieldset className="space-y-3 rounded-lg border border-slate-200 p-3" data-testid="split-parts">
      <legend className="px-1 text-sm font-semibold text-slate-800">
        {t("split.title")} <span className="font-normal text-slate-600">({t("common.optional")})</span>
      </legend>
      <p className="text-xs text-slate-600">{t("split.hint")}</p>
      {recipients.length === 0 ? (
        <p className="text-sm text-slate-700">
          {t("split.none")}{" "}
          <Link href="/dashboard/recipients/new" className="font-medium text-brand-700 underline">
            {t("split.noneLink")}
          </Link>
        </p>
      ) : (
        <>
          {rows.length > 0 ? (
            <ol className="space-y-3">
              {rows.map((r, i) => (
                <li
                  key={r.n}
                  className="grid gap-3 rounded-lg bg-slate-50 p-3 sm:grid-cols-[minmax(0,1fr)_9rem_8rem_auto] sm:items-start"
                  data-testid="split-row"
                  aria-label={t("split.part", { n: i + 1 })}
                >
                  <Select
                    label={t("split.recipient")}
                    name={splitField(r.n, "recipientId")}
                    value={r.recipientId}
                    onChange={(e) => update(r.n, { recipientId: e.target.value })}
                    options={[
                      { value: "", label: t("split.pick") },
                      ...recipients.map((x) => ({ value: x.id, label: x.name })),
                    ]}
                    errors={errors?.[splitField(r.n, "recipientId")]}
                  />
                  <Select
                    label={t("split.mode")}
                    name={splitField(r.n, "mode")}
                    value={r.mode}
                    onChange={(e) => update(r.n, { mode: e.target.value })}
                    options={[
                      { value: "value", label: t("split.mode.value") },
                      { value: "percentage", label: t("split.mode.percentage") },
                    ]}
                  />
                  <Input
                    label={t("split.amount")}
                    name={splitField(r.n, "amount")}
                    inputMode="decimal"
                    value={r.amount}
                    placeholder={r.mode === "percentage" ? "10" : "25,00"}
                    onChange={(e) => update(r.n, { amount: e.target.value })}
                    hint={parts[i] !== null && r.mode === "percentage" ? money(parts[i]!) : undefined}
                    errors={errors?.[splitField(r.n, "amount")]}
                  />
                  <Button
                    variant="ghost"
                    className="justify-self-start sm:mt-6"
                    aria-label={t("split.remove", { n: i + 1 })}
                    title={t("split.remove", { n: i + 1 })}
                    onClick={() => setRows((rs) => rs.filter((x) => x.n !== r.n))}
                  >
                    <svg
                      aria-hidden="true"
                      viewBox="0 0 24 24"
                      className="size-4"
                      fill="none"
                      stroke="currentColor"
                      strokeWidth="2"
                    >
                      <path d="M6 6l12 12M18 6L6 18" />
                    </svg>
                    <span className="sm:hidden">{t("split.remove", { n: i + 1 })}</span>
                  </Button>
                </li>
              ))}
            </ol>
          ) : null}
          {errors?.splits?.length ? (
            <p className="text-xs font-medium text-red-700">{errors.splits.join(" ")}</p>
          ) : null}
          {rows.length > 0 && orderCentavos !== null ? (
            over ? (
              <p role="alert" className="text-sm font-medium text-red-700" data-testid="split-summary">
                {t("split.sumAbove", { sum: money(sum), value: money(orderCentavos) })}
              </p>
            ) : (
              <p className="text-sm text-slate-700" data-testid="split-summary">
                {t("split.remainder", { value: money(orderCentavos - sum) })}
              </p>
            )
          ) : null}
          <Button variant="secondary" onClick={add} disabled={rows.length >= Math.min(20, recipients.length)}>
            + {t("split.add")}
          </Button>
        </>
      )}
    </fieldset>
  );
}
