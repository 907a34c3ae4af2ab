import type { Metadata } from "next";
import Link from "next/link";
import { RecipientForm } from "@/components/dashboard/recipient-form";
import { PageHeader } from "@/components/ui/card";
import { env } from "@/lib/env";
import { requirePermission } from "@/lib/identity/dashboard/session";
import { getI18n } from "@/lib/i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getI18n()).t("recipients.new") };
}

export default async function NewRecipientPage() {
  await requirePermission("recipients.manage");
  const { t } = await getI18n();
  return (
    <>
      <Link
        href="/dashboard/recipients"
        className="mb-2 inline-flex text-sm font-medium text-brand-700 underline-offset-2 hover:underline"
      >
        ← {t("recipients.back")}
      </Link>
      <PageHeader title={t("recipients.new")} />
      <RecipientForm holdHours={env().DESTINATION_HOLD_HOURS} />
    </>
  );
}
