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
 * and its id in monospace, the one search and support use; a title made of the kind already holds the id.
 */
export function OrderSubtitle({ order }: { order: Named }) {
  const id = order.title.by === "kind" ? null : (order.paymentLinkId ?? order.id.slice(0, 8));
  return (
    <>
      {order.customer ? <span data-testid="order-customer">{order.customer}</span> : null}
      {order.customer && id ? " · " : null}
      {id ? <span className="font-mono">{id}</span> : null}
    </>
  );
}
