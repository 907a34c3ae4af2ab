import type { Metadata } from "next";
import { ExportLinks } from "@/components/dashboard/export-links";
import { OrdersBrowser } from "@/components/dashboard/orders-browser";
import { ButtonLink } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/card";
import { requireMerchant } from "@/lib/identity/dashboard/session";
import { dashboardOrdersQuery, listDashboardOrders } from "@/lib/dashboard/server/orders";
import { getI18n } from "@/lib/i18n/server";
import { MIN_SUBSTRING } from "@/lib/orders/search";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getI18n()).t("orders.title") };
}

export default async function OrdersPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { merchant } = await requireMerchant();
  const raw = Object.fromEntries(Object.entries(await searchParams).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));
  const query = dashboardOrdersQuery.parse(raw);
  const [{ t }, initial] = await Promise.all([getI18n(), listDashboardOrders(merchant.id, query)]);
  return (
    <>
      <PageHeader title={t("orders.title")}>
        <ButtonLink href="/dashboard/orders/new">{t("nav.newOrder")}</ButtonLink>
      </PageHeader>
      <OrdersBrowser
        filters={{
          kind: query.kind,
          status: query.status,
          from: query.from,
          to: query.to,
          q: query.q,
          page: query.page,
        }}
        initial={initial}
        minSearchLength={MIN_SUBSTRING}
      />
      <div className="mt-4">
        <ExportLinks name="orders" params={{ from: query.from, to: query.to }} />
      </div>
    </>
  );
}
