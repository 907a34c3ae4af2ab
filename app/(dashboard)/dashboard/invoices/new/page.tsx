import type { Metadata } from "next";
import Link from "next/link";
import { NewInvoiceForm } from "@/components/dashboard/new-invoice-form";
import { Alert, PageHeader } from "@/components/ui/card";
import { saoPauloDay } from "@/lib/day-range";
import { requirePermission } from "@/lib/identity/dashboard/session";
import { getI18n } from "@/lib/i18n/server";
import { addDays } from "@/lib/pix/business-days";
import { railEnabled } from "@/lib/providers/rails";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getI18n()).t("invoice.new") };
}

export default async function NewInvoicePage() {
  await requirePermission("orders.create");
  const { t } = await getI18n();
  const today = saoPauloDay();
  return (
    <>
      <Link
        href="/dashboard/invoices"
        className="mb-2 inline-flex text-sm font-medium text-brand-700 underline-offset-2 hover:underline"
      >
        ← {t("invoice.list.back")}
      </Link>
      <PageHeader title={t("invoice.new")} />
      {railEnabled("pix") ? (
        <NewInvoiceForm today={today} defaultDueDate={addDays(today, 7)} />
      ) : (
        <Alert tone="info">{t("newOrder.noRails")}</Alert>
      )}
    </>
  );
}
