import type { Metadata } from "next";
import { ExportLinks } from "@/components/dashboard/export-links";
import { SubscriptionsList } from "@/components/dashboard/subscriptions-list";
import { ButtonLink } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/card";
import { requireMerchant } from "@/lib/identity/dashboard/session";
import { can } from "@/lib/identity/roles";
import { dashboardSubscriptionsQuery, listDashboardSubscriptions } from "@/lib/dashboard/server/subscriptions";
import { getI18n } from "@/lib/i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getI18n()).t("sub.list.title") };
}

export default async function SubscriptionsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { merchant, role } = await requireMerchant();
  const raw = Object.fromEntries(Object.entries(await searchParams).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));
  const query = dashboardSubscriptionsQuery(raw);
  const [{ t }, page] = await Promise.all([getI18n(), listDashboardSubscriptions(merchant.id, query)]);
  const canCreate = can(role, "orders.create");
  return (
    <>
      <PageHeader title={t("sub.list.title")}>
        {canCreate ? <ButtonLink href="/dashboard/subscriptions/new">{t("sub.new")}</ButtonLink> : null}
      </PageHeader>
      <div className="space-y-6">
        <SubscriptionsList
          subscriptions={page.subscriptions}
          status={query.status}
          reference={query.reference}
          nextCursor={page.nextCursor}
          canCreate={canCreate}
        />
        <ExportLinks name="subscriptions" params={{ status: query.status }} />
      </div>
    </>
  );
}
