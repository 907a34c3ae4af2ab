"use client";

import Link from "next/link";
import { ButtonLink, buttonClass } from "@/components/ui/button";
import { Card, EmptyState } from "@/components/ui/card";
import { Input, Select } from "@/components/ui/field";
import { cn } from "@/components/ui/cn";
import type { Statement, StatementLine } from "@/lib/dashboard/server/statement";
import { formatDay } from "@/lib/i18n";
import { useI18n } from "@/lib/i18n/client";
import { ExportLinks } from "./export-links";
import { useOrderTitle } from "./order-name";

export type StatementFilters = { from?: string; to?: string; kind?: string; before?: number };

const KINDS = [
  "order_credit",
  "deposit_credit",
  "partial_deposit_credit",
  "refund_debit",
  "withdrawal_debit",
  "withdrawal_reversal",
  "refund_reversal",
  "adjustment",
  "med_debit",
  "med_hold",
  "med_hold_release",
  "unapplied_credit",
] as const;

function query(f: StatementFilters, before?: number): string {
  const p = new URLSearchParams();
  for (const k of ["from", "to", "kind"] as const) if (f[k]) p.set(k, f[k]!);
  if (before) p.set("before", String(before));
  const s = p.toString();
  return s ? `?${s}` : "";
}

function Source({ line }: { line: StatementLine }) {
  const { t } = useI18n();
  const link = "text-sm font-semibold text-brand-700 underline-offset-2 hover:underline";
  if (line.source.type === "order")
    return (
      <Link href={`/dashboard/orders/${line.source.id}`} className={link}>
        {t("statement.viewOrder")}
      </Link>
    );
  if (line.source.type === "withdrawal")
    return (
      <Link href="/dashboard/withdrawals" className={link}>
        {t("statement.viewWithdrawals")}
      </Link>
    );
  return null;
}

// A split sale's credit is the merchant's part only: said, so the amount is not read as the sale's.
const SPLIT_CREDITS = new Set<string>(["order_credit", "deposit_credit", "partial_deposit_credit"]);

/** "Pagamento recebido · Pedido 1042 · Maria Souza": the entry's kind, and the order it belongs to as the merchant knows it. */
function Description({ line }: { line: StatementLine }) {
  const { t } = useI18n();
  const title = useOrderTitle();
  const order = line.source.type === "order" && line.source.title ? line.source : null;
  return (
    <span data-testid="statement-description">
      {t(`ledgerKind.${line.kind}`)}
      {order?.title ? ` · ${title(order.title)}` : null}
      {order?.customer ? ` · ${order.customer}` : null}
      {order?.split && SPLIT_CREDITS.has(line.kind) ? ` · ${t("statement.splitPart")}` : null}
    </span>
  );
}

function Amount({ centavos }: { centavos: number }) {
  const { money } = useI18n();
  // The sign is written out: colour alone must not carry meaning.
  return (
    <span className={cn("font-medium tabular-nums", centavos < 0 ? "text-red-800" : "text-emerald-800")}>
      {centavos > 0 ? "+" : ""}
      {money(centavos)}
    </span>
  );
}

/** Every ledger entry with the balance after it; filters are a GET form, so the URL is the state. */
export function StatementView({ filters, statement }: { filters: StatementFilters; statement: Statement }) {
  const { t, money, dateTime, locale } = useI18n();
  const filtered = Boolean(filters.from || filters.to || filters.kind);
  return (
    <div className="space-y-4">
      <p className="text-sm text-slate-600">{t("statement.intro")}</p>
      <Card aria-labelledby="statement-filters">
        <h2 id="statement-filters" className="sr-only">
          {t("statement.filters")}
        </h2>
        <form
          action="/dashboard/statement"
          method="get"
          className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4 lg:items-end"
        >
          <Input label={t("orders.from")} name="from" type="date" defaultValue={filters.from} />
          <Input label={t("orders.to")} name="to" type="date" defaultValue={filters.to} />
          <Select
            label={t("statement.kind")}
            name="kind"
            defaultValue={filters.kind ?? ""}
            options={[
              { value: "", label: t("common.all") },
              ...KINDS.map((k) => ({ value: k, label: t(`ledgerKind.${k}`) })),
            ]}
          />
          <div className="flex gap-2 lg:justify-end">
            {filtered ? (
              <Link href="/dashboard/statement" className={buttonClass("ghost")}>
                {t("common.clear")}
              </Link>
            ) : null}
            <button type="submit" className={buttonClass("secondary")}>
              {t("common.apply")}
            </button>
          </div>
        </form>
      </Card>

      <div className="grid gap-4 sm:grid-cols-2">
        {statement.openingCentavos !== null && filters.from ? (
          <Card className="!p-4">
            <p className="text-sm text-slate-600">{t("statement.opening", { day: formatDay(filters.from, locale) })}</p>
            <p className="mt-1 text-xl font-bold tabular-nums text-slate-900" data-testid="statement-opening">
              {money(statement.openingCentavos)}
            </p>
          </Card>
        ) : null}
        <Card className="!p-4">
          <p className="text-sm text-slate-600">{filters.to ? t("statement.closing") : t("statement.current")}</p>
          <p className="mt-1 text-xl font-bold tabular-nums text-slate-900" data-testid="statement-closing">
            {money(statement.closingCentavos)}
          </p>
        </Card>
      </div>

      <Card>
        {statement.lines.length === 0 ? (
          <EmptyState
            title={
              filtered ? t("statement.empty") : filters.before ? t("statement.emptyBefore") : t("statement.emptyAll")
            }
            action={
              !filtered && filters.before ? (
                <ButtonLink href="/dashboard/statement">{t("statement.newest")}</ButtonLink>
              ) : undefined
            }
          />
        ) : (
          <>
            <ul className="divide-y divide-slate-100 md:hidden" aria-label={t("statement.title")}>
              {statement.lines.map((l) => (
                <li key={l.id} className="py-3" data-testid="statement-row">
                  <div className="flex items-baseline justify-between gap-3">
                    <span className="min-w-0 text-sm font-semibold text-slate-900">
                      <Description line={l} />
                    </span>
                    <Amount centavos={l.amountCentavos} />
                  </div>
                  <div className="mt-0.5 flex items-baseline justify-between gap-3 text-xs text-slate-600">
                    <span>{dateTime(l.createdAt)}</span>
                    <span className="tabular-nums">
                      {t("statement.colBalance")}: {money(l.balanceAfterCentavos)}
                    </span>
                  </div>
                  <div className="mt-1">
                    <Source line={l} />
                  </div>
                </li>
              ))}
            </ul>
            <table className="hidden w-full text-left text-sm md:table">
              <caption className="sr-only">{t("statement.title")}</caption>
              <thead className="border-b border-slate-200 text-xs uppercase tracking-wide text-slate-600">
                <tr>
                  <th scope="col" className="py-2 pr-4 font-semibold">
                    {t("statement.colDate")}
                  </th>
                  <th scope="col" className="py-2 pr-4 font-semibold">
                    {t("statement.colDescription")}
                  </th>
                  <th scope="col" className="py-2 pr-4 text-right font-semibold">
                    {t("statement.colAmount")}
                  </th>
                  <th scope="col" className="py-2 pr-4 text-right font-semibold">
                    {t("statement.colBalance")}
                  </th>
                  <th scope="col" className="py-2 font-semibold">
                    {t("statement.colSource")}
                  </th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {statement.lines.map((l) => (
                  <tr key={l.id} className="hover:bg-slate-50" data-testid="statement-row">
                    <td className="whitespace-nowrap py-2.5 pr-4 text-slate-700">{dateTime(l.createdAt)}</td>
                    <td className="py-2.5 pr-4">
                      <Description line={l} />
                    </td>
                    <td className="whitespace-nowrap py-2.5 pr-4 text-right">
                      <Amount centavos={l.amountCentavos} />
                    </td>
                    <td
                      className="whitespace-nowrap py-2.5 pr-4 text-right tabular-nums"
                      data-testid="statement-balance"
                    >
                      {money(l.balanceAfterCentavos)}
                    </td>
                    <td className="py-2.5">
                      <Source line={l} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )}
        {filters.before || statement.nextBefore ? (
          <nav aria-label={t("statement.pagination")} className="mt-4 flex items-center justify-between gap-2">
            {filters.before ? (
              <Link href={`/dashboard/statement${query(filters)}`} className={buttonClass("secondary")}>
                {t("statement.newest")}
              </Link>
            ) : (
              <span />
            )}
            {statement.nextBefore ? (
              <Link
                href={`/dashboard/statement${query(filters, statement.nextBefore)}`}
                className={buttonClass("secondary")}
                rel="next"
              >
                {t("statement.older")}
              </Link>
            ) : (
              <span />
            )}
          </nav>
        ) : null}
      </Card>

      <ExportLinks name="statement" params={{ from: filters.from, to: filters.to, kind: filters.kind }} />
    </div>
  );
}
