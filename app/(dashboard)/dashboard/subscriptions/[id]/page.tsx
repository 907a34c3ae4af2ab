import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { cache } from "react";
import { SubscriptionDetailView } from "@/components/dashboard/subscription-detail";
import { PageHeader } from "@/components/ui/card";
import { getSubscriptionDetail } from "@/lib/dashboard/server/subscriptions";
import { requireMerchant } from "@/lib/identity/dashboard/session";
import { can } from "@/lib/identity/roles";
import { formatMoney, type Locale, type Translator } from "@/lib/i18n";
import { getI18n } from "@/lib/i18n/server";
import type { SubscriptionView } from "@/lib/subscriptions/schemas";

// Read once per request: the <title> and the page name the subscription the same way.
const signedInSubscription = cache(async (id: string) => {
  const signedIn = await requireMerchant();
  return { ...signedIn, detail: await getSubscriptionDetail(signedIn.merchant.id, id) };
});

const titleOf = (s: SubscriptionView, t: Translator, locale: Locale) =>
  t("sub.detail.title", {
    payer: s.payer.name,
    amount: formatMoney(Math.round(s.amount.value * 100), locale),
    every: t(`sub.periodicity.${s.periodicity}`).toLowerCase(),
  });

export async function generateMetadata({ params }: { params: Promise<{ id: string }> }): Promise<Metadata> {
  const [{ t, locale }, { detail }] = await Promise.all([getI18n(), signedInSubscription((await params).id)]);
  return detail ? { title: titleOf(detail.subscription, t, locale) } : {};
}

export default async function SubscriptionPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const [{ t, locale }, { role, detail }] = await Promise.all([getI18n(), signedInSubscription(id)]);
  if (!detail) notFound();
  return (
    <>
      <Link
        href="/dashboard/subscriptions"
        className="mb-2 inline-flex text-sm font-medium text-brand-700 underline-offset-2 hover:underline"
      >
        ← {t("sub.list.back")}
      </Link>
      <PageHeader title={titleOf(detail.subscription, t, locale)} />
      <SubscriptionDetailView detail={detail} canManage={can(role, "orders.create")} />
    </>
  );
}
