import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { PaymentLinkForm } from "@/components/dashboard/payment-link-form";
import { PageHeader } from "@/components/ui/card";
import { linkChoices, paymentLinkDetail } from "@/lib/dashboard/server/payment-links";
import { requirePermission } from "@/lib/identity/dashboard/session";
import { getI18n } from "@/lib/i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getI18n()).t("plink.detail.edit") };
}

export default async function EditPaymentLinkPage({ params }: { params: Promise<{ id: string }> }) {
  const { merchant } = await requirePermission("orders.create");
  const detail = await paymentLinkDetail(merchant.id, (await params).id);
  if (!detail) notFound();
  const { t } = await getI18n();
  const { rails, tokens } = linkChoices();
  return (
    <>
      <Link
        href={`/dashboard/payment-links/${detail.link.id}`}
        className="mb-2 inline-flex text-sm font-medium text-brand-700 underline-offset-2 hover:underline"
      >
        ← {detail.link.title}
      </Link>
      <PageHeader title={t("plink.detail.edit")} />
      <PaymentLinkForm rails={rails} tokens={tokens} link={detail.link} />
    </>
  );
}
