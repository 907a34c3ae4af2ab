import type { Metadata } from "next";
import { RecipientsList } from "@/components/dashboard/recipients-list";
import { ButtonLink } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/card";
import { requireMerchant } from "@/lib/identity/dashboard/session";
import { can } from "@/lib/identity/roles";
import { dashboardRecipientsQuery, listDashboardRecipients } from "@/lib/dashboard/server/recipients";
import { getI18n } from "@/lib/i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getI18n()).t("recipients.title") };
}

export default async function RecipientsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { merchant, role } = await requireMerchant();
  const raw = Object.fromEntries(Object.entries(await searchParams).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));
  const query = dashboardRecipientsQuery(raw);
  const [{ t }, page] = await Promise.all([getI18n(), listDashboardRecipients(merchant.id, query)]);
  const canManage = can(role, "recipients.manage");
  return (
    <>
      <PageHeader title={t("recipients.title")}>
        {canManage ? <ButtonLink href="/dashboard/recipients/new">{t("recipients.new")}</ButtonLink> : null}
      </PageHeader>
      <p className="-mt-2 mb-4 max-w-2xl text-sm text-slate-600">{t("recipients.intro")}</p>
      <RecipientsList recipients={page.recipients} q={query.q} nextCursor={page.nextCursor} canManage={canManage} />
    </>
  );
}
