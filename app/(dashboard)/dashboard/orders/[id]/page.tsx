import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { OrderDetailView } from "@/components/dashboard/order-detail-view";
import { PageHeader } from "@/components/ui/card";
import { requireMerchant } from "@/lib/auth/session";
import { can } from "@/lib/security/roles";
import { getOrderDetail } from "@/lib/dashboard/server/order-detail";
import { getI18n } from "@/lib/i18n/server";

export async function generateMetadata({ params }: { params: Promise<{ id: string }> }): Promise<Metadata> {
  return { title: (await getI18n()).t("order.title", { id: (await params).id.slice(0, 8) }) };
}

export default async function OrderPage({ params }: { params: Promise<{ id: string }> }) {
  const { merchant, role } = await requireMerchant();
  const { id } = await params;
  // Only this merchant's orders: another merchant's id is a 404, like an id that does not exist.
  const [{ t }, order] = await Promise.all([getI18n(), getOrderDetail(merchant.id, id)]);
  if (!order) notFound();
  return (
    <>
      <Link href="/dashboard/orders" className="mb-2 inline-flex text-sm font-medium text-brand-700 underline-offset-2 hover:underline">
        ← {t("order.backToList")}
      </Link>
      {/* The merchant's own order id names the order when it has one. */}
      <PageHeader title={t("order.title", { id: order.merchantOrderId ?? (order.paymentLinkId ?? order.id).slice(0, 8) })} />
      <OrderDetailView initial={order} canRefund={can(role, "refunds.create")} canSimulate={can(role, "orders.create")} />
    </>
  );
}
