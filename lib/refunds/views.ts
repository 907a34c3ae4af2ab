import type { Order, OrderRefund, OrderStatus } from "@/db/schema";
import type { SplitView } from "@/lib/splits/schemas";
import { orderView, refundView } from "@/lib/orders/views";

// A refund's response view is the order lookup's (lib/orders/views.ts); its event adds the order.

export { refundView };

/** `refund.status_changed`'s data: the refund, its previous status (null when requested) and its order as the change left it. */
export function refundEventData(
  refund: OrderRefund,
  order: Order & { status: OrderStatus },
  previousStatus: OrderRefund["status"] | null,
  splits: SplitView[],
) {
  return { ...refundView(refund), previousStatus, order: orderView(order, splits) };
}
