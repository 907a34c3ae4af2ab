import type { Metadata } from "next";
import Link from "next/link";
import { ButtonLink } from "@/components/ui/button";
import { Card, EmptyState, PageHeader } from "@/components/ui/card";
import { requireMerchant } from "@/lib/identity/dashboard/session";
import { can } from "@/lib/identity/roles";
import { formatMoney } from "@/lib/i18n";
import { getI18n } from "@/lib/i18n/server";
import type { MessageKey } from "@/lib/i18n";
import { listPaymentLinks } from "@/lib/payment-links/service";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getI18n()).t("plink.list.title") };
}

export default async function PaymentLinksPage() {
  const { merchant, role } = await requireMerchant();
  const [{ t, locale }, page] = await Promise.all([getI18n(), listPaymentLinks(merchant.id, { limit: 100 })]);
  const canCreate = can(role, "orders.create");
  return (
    <>
      <PageHeader title={t("plink.list.title")}>
        {canCreate ? <ButtonLink href="/dashboard/payment-links/new">{t("plink.list.new")}</ButtonLink> : null}
      </PageHeader>
      {page.paymentLinks.length === 0 ? (
        <EmptyState title={t("plink.list.empty")} body={t("plink.list.emptyBody")} />
      ) : (
        <ul className="grid gap-3 sm:grid-cols-2 lg:grid-cols-3" data-testid="payment-links">
          {page.paymentLinks.map((l) => {
            const state = l.status === "PAUSED" ? "PAUSED" : (l.unavailableReason ?? "ACTIVE");
            return (
              <li key={l.id}>
                <Card className="h-full">
                  <Link href={`/dashboard/payment-links/${l.id}`} className="block space-y-1">
                    <div className="flex items-start justify-between gap-2">
                      <h2 className="font-semibold text-slate-900">{l.title}</h2>
                      <span className="rounded-full bg-slate-100 px-2 py-0.5 text-xs font-semibold text-slate-700">
                        {t(`plink.state.${state}` as MessageKey)}
                      </span>
                    </div>
                    <p className="text-lg font-bold tabular-nums text-slate-900">
                      {l.price !== null ? formatMoney(Math.round(l.price * 100), locale) : t("plink.list.payerChooses")}
                    </p>
                    <p className="text-sm text-slate-600">
                      {t("plink.list.counts", { paid: String(l.payments.paid), pending: String(l.payments.pending) })}
                    </p>
                  </Link>
                </Card>
              </li>
            );
          })}
        </ul>
      )}
    </>
  );
}
