import type { Metadata } from "next";
import { OverviewLive } from "@/components/dashboard/overview-live";
import { ButtonLink } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/card";
import { requireMerchant } from "@/lib/auth/session";
import { getOverview } from "@/lib/dashboard/server/overview";
import { getI18n } from "@/lib/i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getI18n()).t("overview.title") };
}

export default async function OverviewPage() {
  const { merchant } = await requireMerchant();
  const [{ t }, overview] = await Promise.all([getI18n(), getOverview(merchant.id)]);
  return (
    <>
      <PageHeader title={t("overview.title")}>
        <ButtonLink href="/dashboard/orders/new">{t("nav.newOrder")}</ButtonLink>
      </PageHeader>
      <OverviewLive initial={overview} />
    </>
  );
}
