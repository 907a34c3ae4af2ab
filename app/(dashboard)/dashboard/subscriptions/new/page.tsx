import type { Metadata } from "next";
import Link from "next/link";
import { NewSubscriptionForm } from "@/components/dashboard/new-subscription-form";
import { Alert, PageHeader } from "@/components/ui/card";
import { saoPauloDay } from "@/lib/day-range";
import { requirePermission } from "@/lib/identity/dashboard/session";
import { getI18n } from "@/lib/i18n/server";
import { addDays } from "@/lib/pix/business-days";
import { railEnabled } from "@/lib/providers/rails";
import { SEND_WINDOW } from "@/lib/subscriptions/schedule";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getI18n()).t("sub.new") };
}

export default async function NewSubscriptionPage() {
  await requirePermission("orders.create");
  const { t } = await getI18n();
  // The first cycle's charge must reach the PSP at least 2 days before it falls due (the service checks it).
  const earliest = addDays(saoPauloDay(), SEND_WINDOW.latestDaysBefore);
  return (
    <>
      <Link
        href="/dashboard/subscriptions"
        className="mb-2 inline-flex text-sm font-medium text-brand-700 underline-offset-2 hover:underline"
      >
        ← {t("sub.list.back")}
      </Link>
      <PageHeader title={t("sub.new")} />
      {railEnabled("pix") ? (
        <NewSubscriptionForm earliest={earliest} />
      ) : (
        <Alert tone="info">{t("newOrder.noRails")}</Alert>
      )}
    </>
  );
}
