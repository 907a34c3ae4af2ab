import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { RecipientForm } from "@/components/dashboard/recipient-form";
import { PageHeader } from "@/components/ui/card";
import { getRecipientDetail } from "@/lib/dashboard/server/recipients";
import { requirePermission } from "@/lib/identity/dashboard/session";
import { getI18n } from "@/lib/i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getI18n()).t("recipients.edit") };
}

export default async function EditRecipientPage({ params }: { params: Promise<{ id: string }> }) {
  const { merchant } = await requirePermission("recipients.manage");
  const { id } = await params;
  const [{ t }, detail] = await Promise.all([getI18n(), getRecipientDetail(merchant.id, id)]);
  if (!detail) notFound();
  return (
    <>
      <Link
        href={`/dashboard/recipients/${detail.recipient.id}`}
        className="mb-2 inline-flex text-sm font-medium text-brand-700 underline-offset-2 hover:underline"
      >
        ← {detail.recipient.name}
      </Link>
      <PageHeader title={t("recipients.editTitle", { name: detail.recipient.name })} />
      <RecipientForm recipient={detail.recipient} holdHours={detail.holdHours} />
    </>
  );
}
