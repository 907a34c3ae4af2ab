import type { Metadata } from "next";
import { ExportLinks } from "@/components/dashboard/export-links";
import { ButtonLink } from "@/components/ui/button";
import { WithdrawalsView } from "@/components/dashboard/withdrawals-view";
import { PageHeader } from "@/components/ui/card";
import { requireMerchant } from "@/lib/identity/dashboard/session";
import { getWithdrawalQuotes, getWithdrawalState } from "@/lib/dashboard/server/withdrawals";
import { getI18n } from "@/lib/i18n/server";
import { can } from "@/lib/identity/roles";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getI18n()).t("withdrawals.title") };
}

export default async function WithdrawalsPage() {
  const { merchant, role } = await requireMerchant();
  const [{ t }, state, quotes] = await Promise.all([
    getI18n(),
    getWithdrawalState(merchant.id),
    getWithdrawalQuotes(merchant),
  ]);
  return (
    <>
      <PageHeader title={t("withdrawals.title")}>
        {can(role, "withdrawals.create") || can(role, "destinations.confirm") ? (
          <ButtonLink href="/dashboard/withdrawals/destinations" variant="secondary" data-testid="destinations-link">
            {t("withdrawals.destinationsLink")}
          </ButtonLink>
        ) : null}
      </PageHeader>
      <WithdrawalsView initial={state} quotes={quotes} canWithdraw={can(role, "withdrawals.create")} />
      <div className="mt-4">
        <ExportLinks name="withdrawals" params={{}} />
      </div>
    </>
  );
}
