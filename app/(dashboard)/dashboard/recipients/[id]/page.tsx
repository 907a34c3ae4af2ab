import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { cache } from "react";
import { RecipientDetailView } from "@/components/dashboard/recipient-detail";
import { ButtonLink } from "@/components/ui/button";
import { Alert, PageHeader } from "@/components/ui/card";
import { getRecipientDetail } from "@/lib/dashboard/server/recipients";
import { requireMerchant } from "@/lib/identity/dashboard/session";
import { can } from "@/lib/identity/roles";
import { getI18n } from "@/lib/i18n/server";

// Read once per request: the <title> and the page name the recipient the same way.
const signedInRecipient = cache(async (id: string) => {
  const signedIn = await requireMerchant();
  return { ...signedIn, detail: await getRecipientDetail(signedIn.merchant.id, id) };
});

export async function generateMetadata({ params }: { params: Promise<{ id: string }> }): Promise<Metadata> {
  const { detail } = await signedInRecipient((await params).id);
  return detail ? { title: detail.recipient.name } : {};
}

export default async function RecipientPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ saved?: string }>;
}) {
  const { id } = await params;
  const [{ t }, { role, detail }, { saved }] = await Promise.all([getI18n(), signedInRecipient(id), searchParams]);
  if (!detail) notFound();
  return (
    <>
      <Link
        href="/dashboard/recipients"
        className="mb-2 inline-flex text-sm font-medium text-brand-700 underline-offset-2 hover:underline"
      >
        ← {t("recipients.back")}
      </Link>
      <PageHeader title={detail.recipient.name}>
        {can(role, "recipients.manage") ? (
          <ButtonLink variant="secondary" href={`/dashboard/recipients/${detail.recipient.id}/edit`}>
            {t("recipients.edit")}
          </ButtonLink>
        ) : null}
      </PageHeader>
      {saved ? (
        <Alert tone="success" className="mb-4">
          {t("recipients.saved")}
        </Alert>
      ) : null}
      <RecipientDetailView detail={detail} canPay={can(role, "withdrawals.create")} />
    </>
  );
}
