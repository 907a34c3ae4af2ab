import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { cache } from "react";
import { OrderDetailView } from "@/components/dashboard/order-detail-view";
import { PageHeader } from "@/components/ui/card";
import { requireMerchant } from "@/lib/identity/dashboard/session";
import { can } from "@/lib/identity/roles";
import { orderTitleText } from "@/lib/dashboard/order-title";
import { getOrderDetail } from "@/lib/dashboard/server/order-detail";
import { formatMoney } from "@/lib/i18n";
import { getI18n } from "@/lib/i18n/server";

// Read once per request: the <title> and the page name the order the same way.
const signedInOrder = cache(async (id: string) => {
  const signedIn = await requireMerchant();
  // Only this merchant's orders: another merchant's id is a 404, like an id that does not exist.
  return { ...signedIn, order: await getOrderDetail(signedIn.merchant.id, id) };
});

export async function generateMetadata({ params }: { params: Promise<{ id: string }> }): Promise<Metadata> {
  const [{ t, locale }, { order }] = await Promise.all([getI18n(), signedInOrder((await params).id)]);
  return order ? { title: orderTitleText(order.title, t, (c) => formatMoney(c, locale)) } : {};
}

export default async function OrderPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const [{ t, locale }, { role, order }] = await Promise.all([getI18n(), signedInOrder(id)]);
  if (!order) notFound();
  const shortId = order.paymentLinkId ?? order.id.slice(0, 8);
  return (
    <>
      <Link
        href="/dashboard/orders"
        className="mb-2 inline-flex text-sm font-medium text-brand-700 underline-offset-2 hover:underline"
      >
        ← {t("order.backToList")}
      </Link>
      <PageHeader title={orderTitleText(order.title, t, (c) => formatMoney(c, locale))} />
      {/* Ids stay in sight as secondary text: what support and search take. */}
      <p className="-mt-5 mb-6 text-sm text-slate-600" data-testid="order-subtitle">
        {order.customer ? `${order.customer} · ` : null}
        <span className="font-mono">{shortId}</span>
      </p>
      <OrderDetailView
        initial={order}
        canRefund={can(role, "refunds.create")}
        canSimulate={can(role, "orders.create")}
      />
    </>
  );
}
