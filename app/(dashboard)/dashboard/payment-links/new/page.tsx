import type { Metadata } from "next";
import Link from "next/link";
import { PaymentLinkForm } from "@/components/dashboard/payment-link-form";
import { PageHeader } from "@/components/ui/card";
import { linkChoices } from "@/lib/dashboard/server/payment-links";
import { requirePermission } from "@/lib/identity/dashboard/session";
import { getI18n } from "@/lib/i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getI18n()).t("plink.list.new") };
}

export default async function NewPaymentLinkPage() {
  await requirePermission("orders.create");
  const { t } = await getI18n();
  const { rails, tokens } = linkChoices();
  return (
    <>
      <Link
        href="/dashboard/payment-links"
        className="mb-2 inline-flex text-sm font-medium text-brand-700 underline-offset-2 hover:underline"
      >
        ← {t("plink.list.back")}
      </Link>
      <PageHeader title={t("plink.list.new")} />
      <PaymentLinkForm rails={rails} tokens={tokens} />
    </>
  );
}
