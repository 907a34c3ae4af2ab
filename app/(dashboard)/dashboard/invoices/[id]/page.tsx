import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { cache } from "react";
import { InvoiceDetailView } from "@/components/dashboard/invoice-detail";
import { PageHeader } from "@/components/ui/card";
import { saoPauloDay } from "@/lib/day-range";
import { getInvoiceDetail } from "@/lib/dashboard/server/invoices";
import { requireMerchant } from "@/lib/identity/dashboard/session";
import { can } from "@/lib/identity/roles";
import { formatMoney } from "@/lib/i18n";
import { getI18n } from "@/lib/i18n/server";

// Read once per request: the <title> and the page name the invoice the same way.
const signedInInvoice = cache(async (id: string) => {
  const signedIn = await requireMerchant();
  return { ...signedIn, detail: await getInvoiceDetail(signedIn.merchant.id, id) };
});

export async function generateMetadata({ params }: { params: Promise<{ id: string }> }): Promise<Metadata> {
  const [{ t, locale }, { detail }] = await Promise.all([getI18n(), signedInInvoice((await params).id)]);
  if (!detail) return {};
  const { invoice } = detail;
  return {
    title: t("invoice.detail.title", {
      payer: invoice.payer.name,
      amount: formatMoney(Math.round(invoice.value * 100), locale),
    }),
  };
}

export default async function InvoicePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const [{ t, locale }, { role, merchant, detail }] = await Promise.all([getI18n(), signedInInvoice(id)]);
  if (!detail) notFound();
  const { invoice } = detail;
  return (
    <>
      <Link
        href="/dashboard/invoices"
        className="mb-2 inline-flex text-sm font-medium text-brand-700 underline-offset-2 hover:underline"
      >
        ← {t("invoice.list.back")}
      </Link>
      <PageHeader
        title={t("invoice.detail.title", {
          payer: invoice.payer.name,
          amount: formatMoney(Math.round(invoice.value * 100), locale),
        })}
      />
      <InvoiceDetailView
        detail={detail}
        merchant={merchant.companyName}
        canManage={can(role, "orders.create")}
        today={saoPauloDay()}
      />
    </>
  );
}
