"use client";

import { orderTitleText } from "@/lib/dashboard/order-title";
import { useI18n } from "@/lib/i18n/client";
import type { OrderTitle } from "@/lib/orders/title";

type Named = { id: string; paymentLinkId: string | null; title: OrderTitle; customer: string | null };

/** An order's title in the reader's language (lib/orders/title.ts says which). */
export function useOrderTitle(): (title: OrderTitle) => string {
  const { t, money } = useI18n();
  return (title) => orderTitleText(title, t, money);
}

/**
 * What a list shows under an order's title: its customer (when the title is the merchant's reference)
 * and, in monospace, its payment link id (what the payer's link and search take) or the start of its id.
 */
export function OrderSubtitle({ order }: { order: Named }) {
  return (
    <>
      {order.customer ? `${order.customer} · ` : null}
      <span className="font-mono">{order.paymentLinkId ?? order.id.slice(0, 8)}</span>
    </>
  );
}
