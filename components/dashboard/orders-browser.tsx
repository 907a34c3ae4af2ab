"use client";

import { useQuery } from "@tanstack/react-query";
import Form from "next/form";
import Link from "next/link";
import { ButtonLink, buttonClass } from "@/components/ui/button";
import { Alert, Card, EmptyState } from "@/components/ui/card";
import { Input, Select } from "@/components/ui/field";
import { getJson } from "@/lib/browser/fetch-json";
import type { OrderRow } from "@/lib/dashboard/server/orders";
import { POLL_MS, queryKeys } from "@/lib/browser/query-keys";
import type { Translator } from "@/lib/i18n";
import { useI18n } from "@/lib/i18n/client";
import { OrdersTable } from "./orders-table";

export type OrderFilters = { kind?: string; status?: string; from?: string; to?: string; q?: string; page: number };
type Page = { orders: OrderRow[]; page: number; hasNext: boolean };

const KINDS = ["pix", "exchange", "lightning", "onchain", "crypto_pix"] as const;
const STATUSES = ["PENDING", "COMPLETED", "PARTIAL_ORDER", "CANCELLED", "FAILED", "REFUND", "REFUNDED"] as const;

export function toQueryString(f: OrderFilters, page = f.page): string {
  const p = new URLSearchParams();
  for (const k of ["kind", "status", "from", "to", "q"] as const) if (f[k]) p.set(k, f[k]!);
  if (page > 1) p.set("page", String(page));
  return p.toString();
}

/**
 * What an empty page says: a search too short to match names (it still matches amounts), the filters
 * only when some are set, the search when only it is, a page past the end when there is neither, and
 * "no orders yet" with the way to make one otherwise.
 */
function emptyState(
  filters: OrderFilters,
  page: number,
  minSearchLength: number,
  t: Translator,
): { title: string; action?: React.ReactNode } {
  if (filters.q !== undefined && [...filters.q.trim()].length < minSearchLength)
    return { title: t("orders.searchTooShort", { count: minSearchLength }) };
  if (filters.kind || filters.status || filters.from || filters.to) return { title: t("orders.empty") };
  if (filters.q) return { title: t("orders.emptySearch", { q: filters.q }) };
  if (page > 1)
    return {
      title: t("orders.emptyPage"),
      action: <ButtonLink href="/dashboard/orders">{t("orders.firstPage")}</ButtonLink>,
    };
  return {
    title: t("orders.emptyAll"),
    action: <ButtonLink href="/dashboard/orders/new">{t("orders.create")}</ButtonLink>,
  };
}

/**
 * Filters are a GET form (the URL is the state); the page of results polls so statuses stay live.
 * `minSearchLength`: the fewest characters a search by name or reference takes (lib/orders/search.ts);
 * a shorter one still finds amounts, so it is said rather than refused.
 */
export function OrdersBrowser({
  filters,
  initial,
  minSearchLength,
}: {
  filters: OrderFilters;
  initial: Page;
  minSearchLength: number;
}) {
  const { t } = useI18n();
  const qs = toQueryString(filters);
  const { data, isError } = useQuery({
    queryKey: queryKeys.orders(qs),
    queryFn: () => getJson<Page>(`/dashboard/api/orders?${qs}`),
    initialData: initial,
    refetchInterval: POLL_MS,
  });
  const filtered = Boolean(filters.kind || filters.status || filters.from || filters.to || filters.q);
  const shortSearch = filters.q !== undefined && [...filters.q.trim()].length < minSearchLength;
  return (
    <div className="space-y-4">
      <Card aria-labelledby="filters-title">
        <h2 id="filters-title" className="sr-only">
          {t("orders.filters")}
        </h2>
        <Form action="/dashboard/orders" className="grid gap-3 sm:grid-cols-2 lg:grid-cols-6 lg:items-end">
          <Input
            label={t("orders.search")}
            name="q"
            type="search"
            defaultValue={filters.q}
            placeholder={t("orders.searchPlaceholder")}
            className="sm:col-span-2"
          />
          <Select
            label={t("orders.kind")}
            name="kind"
            defaultValue={filters.kind ?? ""}
            options={[
              { value: "", label: t("common.all") },
              ...KINDS.map((k) => ({ value: k, label: t(`kind.${k}`) })),
            ]}
          />
          <Select
            label={t("orders.status")}
            name="status"
            defaultValue={filters.status ?? ""}
            options={[
              { value: "", label: t("common.all") },
              ...STATUSES.map((s) => ({ value: s, label: t(`status.${s}`) })),
            ]}
          />
          <Input label={t("orders.from")} name="from" type="date" defaultValue={filters.from} />
          <Input label={t("orders.to")} name="to" type="date" defaultValue={filters.to} />
          <div className="flex gap-2 sm:col-span-2 lg:col-span-6 lg:justify-end">
            {filtered ? (
              <Link href="/dashboard/orders" className={buttonClass("ghost")}>
                {t("common.clear")}
              </Link>
            ) : null}
            <button type="submit" className={buttonClass("secondary")}>
              {t("common.apply")}
            </button>
          </div>
        </Form>
      </Card>

      {isError ? <Alert>{t("orders.loadError")}</Alert> : null}
      {shortSearch && data.orders.length > 0 ? (
        <Alert tone="info">{t("orders.searchTooShort", { count: minSearchLength })}</Alert>
      ) : null}

      <Card>
        <p className="mb-2 flex items-center gap-2 text-xs text-slate-600">
          <span aria-hidden="true" className="size-2 animate-pulse rounded-full bg-brand-500" />
          {t("common.live")}
        </p>
        {data.orders.length === 0 ? (
          <EmptyState {...emptyState(filters, data.page, minSearchLength, t)} />
        ) : (
          <OrdersTable orders={data.orders} caption={t("orders.title")} />
        )}
        {data.page > 1 || data.hasNext ? (
          <nav aria-label={t("orders.pagination")} className="mt-4 flex items-center justify-between gap-2">
            {data.page > 1 ? (
              <Link
                href={`/dashboard/orders?${toQueryString(filters, data.page - 1)}`}
                className={buttonClass("secondary")}
                rel="prev"
              >
                {t("common.previous")}
              </Link>
            ) : (
              <span />
            )}
            <span className="text-sm text-slate-600">{t("common.page", { page: data.page })}</span>
            {data.hasNext ? (
              <Link
                href={`/dashboard/orders?${toQueryString(filters, data.page + 1)}`}
                className={buttonClass("secondary")}
                rel="next"
              >
                {t("common.next")}
              </Link>
            ) : (
              <span />
            )}
          </nav>
        ) : null}
      </Card>
    </div>
  );
}
