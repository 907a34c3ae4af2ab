import type { Executor } from "@/db";
import type { Order } from "@/db/schema";
import { returnedByMed } from "@/lib/med/returns";
import { refundedCentavos } from "./queries";

// When an order can be refunded and how much of it is left (docs/api.md#refunds): the one rule the
// refund request decides by (./service.ts, under the order's row lock) and the order page previews
// its form with.

/** A Lightning payment cannot be sent back without an invoice from the payer; PIX and exchange-wallet orders can. */
export const refundableKind = (kind: Order["kind"]): boolean => kind !== "lightning";

/**
 * The order's value less every refund not FAILED (PENDING ones included, so two requests can never
 * refund more than was paid together) and less what the MED already returned to the payer (the PSP
 * would refuse to return it again), in centavos.
 */
export async function leftToRefund(ex: Executor, order: Pick<Order, "id" | "valueCentavos">): Promise<number> {
  return (
    order.valueCentavos -
    (await refundedCentavos(ex, order.id, ["PENDING", "COMPLETED"])) -
    (await returnedByMed(ex, order.id))
  );
}

/** What can be refunded of the order now: what is left of a COMPLETED order of a kind that can be refunded, else 0. */
export async function refundableNow(
  ex: Executor,
  order: Pick<Order, "id" | "kind" | "status" | "valueCentavos">,
): Promise<number> {
  if (!refundableKind(order.kind) || order.status !== "COMPLETED") return 0;
  return Math.max(0, await leftToRefund(ex, order));
}
