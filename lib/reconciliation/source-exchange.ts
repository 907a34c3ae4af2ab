import { and, asc, eq, gte, inArray, lt, or, sql } from "drizzle-orm";
import { db } from "@/db";
import { orderReceipts, orderRefunds, orders, type Order, type OrderRefund } from "@/db/schema";
import { env } from "@/lib/env";
import { confirmExchangeOrder } from "@/lib/exchange-wallet/confirm";
import { uuidOfProviderId } from "@/lib/pix-collection/receiver";
import { providers } from "@/lib/providers";
import { Decimal } from "@/lib/money";
import { railEnabled } from "@/lib/providers/rails";
import { type Movement, type ProviderMovement, type ReconSource } from "./run";
import { noDashes } from "./ids";

// The exchange reconciliation source: what it matches is listed in ./sources.ts.

/** Binance's words for an order's progress that each of our states allows (api-order-query-v2 `status`). */
const EXCHANGE_ORDER_STATE: Record<string, string[]> = {
  unpaid: ["INITIAL", "PENDING", "CANCELED", "EXPIRED", "ERROR"],
  paid: ["PAID"],
  // A refund of ours still open: Binance may not have it yet, or may have made it already.
  refunding: ["PAID", "REFUNDING", "REFUNDED", "FULL_REFUNDED"],
  refunded: ["REFUNDED", "FULL_REFUNDED"],
};
const BINANCE_PAID = new Set(["PAID", "REFUNDING", "REFUNDED", "FULL_REFUNDED"]);
/** Binance's refund states (api-order-refund-query `refundStatus`) for ours. */
const EXCHANGE_REFUND_STATE: Record<string, string> = {
  PENDING: "REFUND_PENDING",
  COMPLETED: "REFUND_SUCCESS",
  FAILED: "REFUND_FAIL",
};
const EXCHANGE_PAGE = 100;

const orderRef = (o: Pick<Order, "paymentLinkId">) => `order:${o.paymentLinkId}`;
const refundRef = (r: Pick<OrderRefund, "id">) => `refund:${noDashes(r.id)}`;

/** Our order as Binance should show it: unpaid, paid, or where its refunds stand. */
function exchangeOrderState(order: Order, refunds: OrderRefund[]): string {
  if (order.status !== "COMPLETED" && order.status !== "REFUND") return "unpaid";
  if (refunds.some((r) => r.status === "PENDING")) return "refunding";
  return refunds.some((r) => r.status === "COMPLETED") ? "refunded" : "paid";
}

export function exchange(): ReconSource {
  const exchangeProvider = () => providers().exchange;
  // The orders of the page being matched, by ref: what applyMissing completes.
  const listed = new Map<string, Order>();
  const ordersOf = ({ from, to }: { from: Date; to: Date }) =>
    and(
      eq(orders.kind, "exchange"),
      eq(orders.provider, exchangeProvider().name),
      or(
        and(gte(orders.createdAt, from), lt(orders.createdAt, to)),
        and(gte(orders.paidAt, from), lt(orders.paidAt, to)),
      ),
    );
  const refundsOf = ({ from, to }: { from: Date; to: Date }) =>
    and(
      eq(orderRefunds.provider, exchangeProvider().name),
      gte(orderRefunds.createdAt, from),
      lt(orderRefunds.createdAt, to),
    );
  return {
    name: "exchange",
    enabled: () =>
      env().PAYMENTS_MODE === "live" && railEnabled("exchange") && exchangeProvider().readOrderRecord !== undefined,
    // Binance Pay's merchant API lists no orders (its report download is for whitelisted merchants and
    // gives files), so its records are read by our ids: every order of ours made or paid in the window,
    // then every refund asked for in it, a page of ours at a time. What Binance has beyond our orders
    // cannot be found this way; a refund made in its portal shows as the order's state.
    async page(window, page) {
      const p = exchangeProvider();
      const offset = page * EXCHANGE_PAGE;
      const [{ n: orderCount }] = await db()
        .select({ n: sql<number>`count(*)::int` })
        .from(orders)
        .where(ordersOf(window));
      const [{ n: refundCount }] = await db()
        .select({ n: sql<number>`count(*)::int` })
        .from(orderRefunds)
        .where(refundsOf(window));
      const pageOrders =
        offset < orderCount
          ? await db()
              .select()
              .from(orders)
              .where(ordersOf(window))
              .orderBy(asc(orders.id))
              .limit(EXCHANGE_PAGE)
              .offset(offset)
          : [];
      const room = EXCHANGE_PAGE - pageOrders.length;
      const pageRefunds =
        room > 0
          ? await db()
              .select({ refund: orderRefunds, order: orders })
              .from(orderRefunds)
              .innerJoin(orders, eq(orders.id, orderRefunds.orderId))
              .where(refundsOf(window))
              .orderBy(asc(orderRefunds.id))
              .limit(room)
              .offset(Math.max(0, offset - orderCount))
          : [];
      listed.clear();
      const items: ProviderMovement[] = [];
      for (const order of pageOrders) {
        const record = await p.readOrderRecord!(order.paymentLinkId);
        if (!record) continue;
        listed.set(orderRef(order), order);
        // Binance's query gives the order's amount in its own currency only (USDT, converted at its
        // rate when the order was made): the BRL value cannot be compared, so ours stands for it.
        items.push({
          ref: orderRef(order),
          valueCentavos: order.valueCentavos,
          state: record.status,
          at: record.paidAt ?? record.createdAt ?? order.createdAt,
          detail: { orderAmount: `${record.orderAmount} ${record.currency}` },
        });
      }
      for (const { refund, order } of pageRefunds) {
        const record = await p.readRefundRecord!(noDashes(refund.id));
        if (!record) continue;
        // Refunded in the order's currency; as a share of the order, in its BRL value (how we asked for it).
        const share = new Decimal(record.refundAmount).div(record.orderAmount).times(order.valueCentavos);
        items.push({
          ref: refundRef(refund),
          valueCentavos: share.toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber(),
          state: record.status,
          // The refund query carries no time: the refund is judged on the day we asked for it.
          at: refund.createdAt,
          detail: { refundAmount: record.refundAmount, orderAmount: record.orderAmount },
        });
      }
      return { items, next: offset + EXCHANGE_PAGE < orderCount + refundCount ? page + 1 : null };
    },
    async applyMissing(item) {
      // An order Binance says was paid that no notification or poll recorded (the poll asks for a day
      // after expiry only): applied as the poll would, with Binance's payment time.
      const order = listed.get(item.ref);
      if (!order || !BINANCE_PAID.has(item.state)) return false;
      const known = await db()
        .select({ o: orderReceipts.orderId })
        .from(orderReceipts)
        .where(eq(orderReceipts.orderId, order.id));
      if (known.length > 0) return false;
      const outcome = await confirmExchangeOrder(order, "poll");
      return outcome !== null && !outcome.duplicate;
    },
    async ours(refs) {
      const out = new Map<string, Movement>();
      const links = refs.filter((r) => r.startsWith("order:")).map((r) => r.slice("order:".length));
      if (links.length) {
        const rows = await db().select().from(orders).where(inArray(orders.paymentLinkId, links));
        const refunds = rows.length
          ? await db()
              .select()
              .from(orderRefunds)
              .where(
                inArray(
                  orderRefunds.orderId,
                  rows.map((o) => o.id),
                ),
              )
          : [];
        for (const o of rows) {
          const state = exchangeOrderState(
            o,
            refunds.filter((r) => r.orderId === o.id),
          );
          out.set(orderRef(o), {
            ref: orderRef(o),
            valueCentavos: o.valueCentavos,
            state,
            merchantId: o.merchantId,
            detail: { orderId: o.id, status: o.status },
          });
        }
      }
      const ids = refs.filter((r) => r.startsWith("refund:")).map((r) => uuidOfProviderId(r.slice("refund:".length)));
      const refundIds = ids.filter((id): id is string => id !== null);
      if (refundIds.length) {
        for (const r of await db().select().from(orderRefunds).where(inArray(orderRefunds.id, refundIds))) {
          out.set(refundRef(r), {
            ref: refundRef(r),
            valueCentavos: r.valueCentavos,
            state: EXCHANGE_REFUND_STATE[r.status],
            merchantId: r.merchantId,
            detail: { refundId: r.id, orderId: r.orderId },
          });
        }
      }
      return out;
    },
    async oursIn({ from, to }) {
      // What Binance must have: the orders we credited for a payment that day, and the refunds made.
      const paid = await db()
        .select()
        .from(orders)
        .where(
          and(
            eq(orders.kind, "exchange"),
            eq(orders.provider, exchangeProvider().name),
            inArray(orders.status, ["COMPLETED", "REFUND"]),
            gte(orders.paidAt, from),
            lt(orders.paidAt, to),
          ),
        );
      const refunds = await db()
        .select()
        .from(orderRefunds)
        .where(and(refundsOf({ from, to }), eq(orderRefunds.status, "COMPLETED")));
      return [
        ...paid.map((o) => ({
          ref: orderRef(o),
          valueCentavos: o.valueCentavos,
          state: "paid",
          merchantId: o.merchantId,
          detail: { orderId: o.id },
        })),
        ...refunds.map((r) => ({
          ref: refundRef(r),
          valueCentavos: r.valueCentavos,
          state: "REFUND_SUCCESS",
          merchantId: r.merchantId,
          detail: { refundId: r.id },
        })),
      ];
    },
    sameState: (ours, theirs) =>
      EXCHANGE_ORDER_STATE[ours] ? EXCHANGE_ORDER_STATE[ours].includes(theirs) : ours === theirs,
  };
}
