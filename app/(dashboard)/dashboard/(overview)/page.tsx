import type { Metadata } from "next";
import { FirstSteps, firstSteps } from "@/components/dashboard/first-steps";
import { OverviewLive } from "@/components/dashboard/overview-live";
import { ButtonLink } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/card";
import { requireMerchant } from "@/lib/identity/dashboard/session";
import { firstStepsState } from "@/lib/dashboard/server/first-steps";
import { getOverview } from "@/lib/dashboard/server/overview";
import { env } from "@/lib/env";
import { getI18n } from "@/lib/i18n/server";
import { can } from "@/lib/identity/roles";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getI18n()).t("overview.title") };
}

export default async function OverviewPage() {
  const { merchant, role, twoFactor } = await requireMerchant();
  const [{ t }, overview, state] = await Promise.all([
    getI18n(),
    getOverview(merchant.id),
    firstStepsState(merchant.id, merchant.pixKey),
  ]);
  const steps = firstSteps(
    { ...state, twoFactor },
    {
      sandbox: env().PAYMENTS_MODE === "sandbox",
      may: (what) =>
        what === "orders"
          ? can(role, "orders.create")
          : what === "settings"
            ? can(role, "payoutKey.change")
            : can(role, "apiKeys.manage") || can(role, "webhooks.manage"),
    },
  );
  return (
    <>
      <PageHeader title={t("overview.title")}>
        <ButtonLink href="/dashboard/orders/new">{t("nav.newOrder")}</ButtonLink>
      </PageHeader>
      <FirstSteps steps={steps} />
      <OverviewLive initial={overview} />
    </>
  );
}
