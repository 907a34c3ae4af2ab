import type { Metadata } from "next";
import { CompanyForm, PayoutKeyForm, PayoutKeyHold, ReceiptForm } from "@/components/dashboard/settings-form";
import { Card, CardTitle, DefinitionList, PageHeader } from "@/components/ui/card";
import { requireMerchant } from "@/lib/identity/dashboard/session";
import { formatMoney } from "@/lib/i18n";
import { getI18n } from "@/lib/i18n/server";
import { WITHDRAWAL_LIMITS } from "@/lib/money";
import { payoutKeyHeldUntil } from "@/lib/identity/payout-hold";
import { can } from "@/lib/identity/roles";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getI18n()).t("settings.title") };
}

export default async function SettingsPage() {
  const { merchant, role } = await requireMerchant();
  const heldUntil = payoutKeyHeldUntil(merchant);
  const { locale, t } = await getI18n();
  const limits = WITHDRAWAL_LIMITS[merchant.accountType];
  return (
    <>
      <PageHeader title={t("settings.title")} />
      <div className="grid gap-6 lg:grid-cols-2">
        <Card aria-labelledby="company-title">
          <CardTitle id="company-title" className="mb-4">
            {t("settings.company")}
          </CardTitle>
          {heldUntil ? (
            <PayoutKeyHold until={heldUntil.toISOString()} canConfirm={can(role, "payoutKey.confirm")} />
          ) : null}
          <div className="space-y-6">
            {can(role, "company.edit") ? (
              <CompanyForm companyName={merchant.companyName} />
            ) : (
              <DefinitionList items={[{ label: t("settings.companyName"), value: merchant.companyName }]} />
            )}
            {can(role, "payoutKey.change") ? (
              <PayoutKeyForm pixKey={merchant.pixKey ?? ""} />
            ) : (
              <DefinitionList items={[{ label: t("settings.pixKey"), value: merchant.pixKey ?? t("common.none") }]} />
            )}
          </div>
        </Card>
        <Card aria-labelledby="account-title">
          <CardTitle id="account-title">{t("settings.account")}</CardTitle>
          <div className="mt-2">
            <DefinitionList
              items={[
                {
                  label: t("settings.accountType"),
                  value: (
                    <strong data-testid="account-type">{t(`settings.accountType.${merchant.accountType}`)}</strong>
                  ),
                },
                { label: t("withdrawals.perTransaction"), value: formatMoney(limits.perTransaction, locale) },
                { label: t("withdrawals.daily"), value: formatMoney(limits.daily, locale) },
              ]}
            />
          </div>
          <p className="mt-3 text-sm text-slate-600">{t("settings.accountTypeHint")}</p>
        </Card>
        <Card aria-labelledby="receipt-title">
          <CardTitle id="receipt-title" className="mb-4">
            {t("settings.receipt")}
          </CardTitle>
          <ReceiptForm showsSplits={merchant.receiptShowsSplits} canEdit={can(role, "company.edit")} />
        </Card>
      </div>
    </>
  );
}
