import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { cache } from "react";
import { PaymentLinkDetail } from "@/components/dashboard/payment-link-detail";
import { PageHeader } from "@/components/ui/card";
import { paymentLinkDetail } from "@/lib/dashboard/server/payment-links";
import { requireMerchant } from "@/lib/identity/dashboard/session";
import { can } from "@/lib/identity/roles";
import { getI18n } from "@/lib/i18n/server";

const signedInLink = cache(async (id: string) => {
  const signedIn = await requireMerchant();
  return { ...signedIn, detail: await paymentLinkDetail(signedIn.merchant.id, id) };
});

export async function generateMetadata({ params }: { params: Promise<{ id: string }> }): Promise<Metadata> {
  const { detail } = await signedInLink((await params).id);
  return detail ? { title: detail.link.title } : {};
}

export default async function PaymentLinkPage({ params }: { params: Promise<{ id: string }> }) {
  const [{ t }, { role, detail }] = await Promise.all([getI18n(), signedInLink((await params).id)]);
  if (!detail) notFound();
  return (
    <>
      <Link
        href="/dashboard/payment-links"
        className="mb-2 inline-flex text-sm font-medium text-brand-700 underline-offset-2 hover:underline"
      >
        ← {t("plink.list.back")}
      </Link>
      <PageHeader title={detail.link.title} />
      <PaymentLinkDetail link={detail.link} sales={detail.sales} canManage={can(role, "orders.create")} />
    </>
  );
}
