import type { Metadata } from "next";
import { InvoicesList } from "@/components/dashboard/invoices-list";
import { ButtonLink } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/card";
import { requireMerchant } from "@/lib/identity/dashboard/session";
import { can } from "@/lib/identity/roles";
import { dashboardInvoicesQuery, listDashboardInvoices } from "@/lib/dashboard/server/invoices";
import { getI18n } from "@/lib/i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getI18n()).t("invoice.list.title") };
}

export default async function InvoicesPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { merchant, role } = await requireMerchant();
  const raw = Object.fromEntries(Object.entries(await searchParams).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));
  const query = dashboardInvoicesQuery(raw);
  const [{ t }, page] = await Promise.all([getI18n(), listDashboardInvoices(merchant.id, query)]);
  return (
    <>
      <PageHeader title={t("invoice.list.title")}>
        {can(role, "orders.create") ? <ButtonLink href="/dashboard/invoices/new">{t("invoice.new")}</ButtonLink> : null}
      </PageHeader>
      <InvoicesList invoices={page.invoices} status={query.status} nextCursor={page.nextCursor} />
    </>
  );
}
