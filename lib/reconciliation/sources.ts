import { and, asc, eq, gte, inArray, isNotNull, lt, ne, or, sql, type SQL } from "drizzle-orm";
import { db } from "@/db";
import {
  chainTransfers,
  chainTxs,
  cryptoPixInvoices,
  cryptoPixPayments,
  depositAddresses,
  onchainOrders,
  orderReceipts,
  orderRefunds,
  orders,
  pixPayouts,
  pixReceipts,
  pixReturns,
  withdrawals,
  type Order,
  type OrderRefund,
} from "@/db/schema";
import { env } from "@/lib/env";
import { confirmExchangeOrder } from "@/lib/exchange-wallet/confirm";
import { confirmLightningOrder } from "@/lib/lightning/confirm";
import { applyPixReturns } from "@/lib/med/returns";
import { applyReceivedPix } from "@/lib/orders/pix-receipts";
import { receiptExists } from "@/lib/orders/queries";
import { uuidOfProviderId } from "@/lib/pix-collection/receiver";
import { providers } from "@/lib/providers";
import type { ReceivedPix } from "@/lib/providers/pix/types";
import { Decimal, fromBaseUnits } from "@/lib/money";
import { liveChainConfig, tokenInfo } from "@/lib/chain/config";
import { confirmationsRequired } from "@/lib/chain/networks";
import { ASSETS, NETWORKS, type Network } from "@/lib/chain/tokens";
import type { ChainReader } from "@/lib/providers/chain/types";
import { railEnabled } from "@/lib/providers/rails";
import { DayNotFinal, type Movement, type ProviderMovement, type ReconSource, type ReconSourceName } from "./run";

// What each provider's records are matched against (docs/operations.md "Reconciliation"):
//   pix_received  API Pix GET /pix (every page) ↔ pix_receipts, by end-to-end id; each listed devolução
//                 ↔ our refund (its id is ours) or the recorded MED devolução (pix_returns). Devoluções are
//                 listed inside their Pix, so they are reconciled on the day their Pix was paid.
//   pix_sent      Efí GET /v2/gn/pix/enviados (every page) ↔ pix_payouts, by idEnvio (our payout's id).
//   exchange      Binance Pay's order and refund queries, by our ids (its merchant API lists nothing) ↔
//                 orders of kind exchange (with their refunds) and order_refunds.
//   lightning     LND GET /v1/invoices (every page, by add index), its settled invoices ↔ Lightning orders'
//                 receipts and Crypto-PIX hold invoices, by payment hash, in satoshis.
//   chain         each live network's ERC-20 Transfer logs to our deposit addresses over the day's blocks
//                 (eth_getLogs, a block range a page) ↔ chain_transfers, by (network, tx hash, log index);
//                 and those from the hot wallet to the addresses it ever paid ↔ chain_txs, by mined hash.

const noDashes = (id: string) => id.replace(/-/g, "");
const returnRef = (endToEndId: string, returnId: string) => `${endToEndId}/${returnId}`;

/** The API Pix words for a devolução's progress, and ours for a refund. */
const REFUND_STATE: Record<string, string> = {
  PENDING: "EM_PROCESSAMENTO",
  COMPLETED: "DEVOLVIDO",
  FAILED: "NAO_REALIZADO",
};

function pixReceived(): ReconSource {
  // The Pix of the page being matched, by end-to-end id: what applyMissing applies.
  const listed = new Map<string, ReceivedPix>();
  return {
    name: "pix_received",
    enabled: () => env().PAYMENTS_MODE === "live" && railEnabled("pix") && providers().pix.listPayments !== undefined,
    async page(window, page) {
      const answer = await providers().pix.listPayments!({ ...window, page });
      listed.clear();
      const items: ProviderMovement[] = [];
      for (const pix of answer.items) {
        listed.set(pix.endToEndId, pix);
        items.push({
          ref: pix.endToEndId,
          valueCentavos: pix.valueCentavos,
          state: "RECEIVED",
          at: pix.paidAt,
          detail: { txid: pix.txid },
        });
        for (const r of pix.returns ?? []) {
          items.push({
            ref: returnRef(pix.endToEndId, r.id),
            valueCentavos: r.valueCentavos,
            state: r.status,
            at: pix.paidAt,
            detail: { natureza: r.natureza },
          });
        }
      }
      return { items, next: page + 1 < answer.pages ? page + 1 : null };
    },
    async applyMissing(item) {
      const [endToEndId, returnId] = item.ref.split("/");
      const pix = listed.get(endToEndId);
      if (!pix) return false;
      if (!returnId) {
        if (await receiptExists(db(), endToEndId)) return false;
        return !(await applyReceivedPix(pix, "poll")).duplicate;
      }
      const known = await db()
        .select({ id: pixReturns.id })
        .from(pixReturns)
        .where(and(eq(pixReturns.endToEndId, endToEndId), eq(pixReturns.returnId, returnId)));
      if (known.length > 0) return false;
      return (await applyPixReturns(pix, "reconciliation")).recorded > 0;
    },
    async ours(refs) {
      const out = new Map<string, Movement>();
      const pixRefs = refs.filter((r) => !r.includes("/"));
      if (pixRefs.length) {
        const rows = await db().select().from(pixReceipts).where(inArray(pixReceipts.endToEndId, pixRefs));
        for (const r of rows)
          out.set(r.endToEndId, {
            ref: r.endToEndId,
            valueCentavos: r.valueCentavos,
            state: "RECEIVED",
            merchantId: r.merchantId,
          });
      }
      for (const ref of refs.filter((r) => r.includes("/"))) {
        const [endToEndId, returnId] = ref.split("/");
        const refundId = uuidOfProviderId(returnId);
        if (refundId) {
          const [refund] = await db().select().from(orderRefunds).where(eq(orderRefunds.id, refundId));
          if (refund) {
            out.set(ref, {
              ref,
              valueCentavos: refund.valueCentavos,
              state: REFUND_STATE[refund.status],
              merchantId: refund.merchantId,
              detail: { refundId },
            });
            continue;
          }
        }
        const [ret] = await db()
          .select()
          .from(pixReturns)
          .where(and(eq(pixReturns.endToEndId, endToEndId), eq(pixReturns.returnId, returnId)));
        if (ret)
          out.set(ref, {
            ref,
            valueCentavos: ret.valueCentavos,
            state: ret.status,
            merchantId: ret.merchantId,
            detail: { pixReturnId: ret.id },
          });
      }
      return out;
    },
    async oursIn({ from, to }) {
      const receipts = await db()
        .select()
        .from(pixReceipts)
        .where(and(gte(pixReceipts.paidAt, from), lt(pixReceipts.paidAt, to), sql`${pixReceipts.source} <> 'sandbox'`));
      const movements: Movement[] = receipts.map((r) => ({
        ref: r.endToEndId,
        valueCentavos: r.valueCentavos,
        state: "RECEIVED",
        merchantId: r.merchantId,
      }));
      // Our refunds of the Pix paid that day (the PSP lists them inside their Pix).
      const refunds = await db()
        .select({ refund: orderRefunds })
        .from(orderRefunds)
        .innerJoin(pixReceipts, eq(pixReceipts.endToEndId, orderRefunds.paymentRef))
        // Only a made one must be there: a first request the PSP refused (FAILED) or one still unanswered may rightly be absent.
        .where(and(gte(pixReceipts.paidAt, from), lt(pixReceipts.paidAt, to), eq(orderRefunds.status, "COMPLETED")));
      for (const { refund } of refunds) {
        movements.push({
          ref: returnRef(refund.paymentRef, noDashes(refund.id)),
          valueCentavos: refund.valueCentavos,
          state: REFUND_STATE[refund.status],
          merchantId: refund.merchantId,
          detail: { refundId: refund.id },
        });
      }
      return movements;
    },
    sameState: (ours, theirs) => ours === theirs,
  };
}

const PAYOUT_STATE: Record<string, string[]> = {
  PROCESSING: ["created", "processing"],
  COMPLETED: ["completed"],
  FAILED: ["failed"],
};

function pixSent(): ReconSource {
  return {
    name: "pix_sent",
    enabled: () =>
      env().PAYMENTS_MODE === "live" && railEnabled("pix_out") && providers().payout.listSent !== undefined,
    async page(window, page) {
      const answer = await providers().payout.listSent!({ ...window, page });
      return {
        items: answer.items.map((p) => ({
          ref: p.id ?? `e2e:${p.endToEndId}`,
          valueCentavos: p.valueCentavos,
          state: p.status,
          at: p.at,
          detail: { endToEndId: p.endToEndId },
        })),
        next: page + 1 < answer.pages ? page + 1 : null,
      };
    },
    async ours(refs) {
      const ids = refs.map(uuidOfProviderId).filter((id): id is string => id !== null);
      const out = new Map<string, Movement>();
      if (ids.length === 0) return out;
      const rows = await db().select().from(pixPayouts).where(inArray(pixPayouts.id, ids));
      for (const p of rows) {
        out.set(noDashes(p.id), {
          ref: noDashes(p.id),
          valueCentavos: p.valueCentavos,
          state: p.status,
          merchantId: p.merchantId,
          detail: { payoutId: p.id, purpose: p.purpose, ownerId: p.ownerId },
        });
      }
      return out;
    },
    async oursIn({ from, to }) {
      // Those the provider must have: accepted (processing) or made. One refused at once, or never
      // accepted, may rightly be absent.
      const rows = await db()
        .select()
        .from(pixPayouts)
        .where(
          and(
            gte(pixPayouts.createdAt, from),
            lt(pixPayouts.createdAt, to),
            inArray(pixPayouts.status, ["processing", "completed"]),
            // The sandbox's payouts never reach a PSP; an operator's decision may have no provider at all.
            sql`coalesce(${pixPayouts.provider}, '') <> 'sandbox-pix'`,
          ),
        );
      return rows.map((p) => ({
        ref: noDashes(p.id),
        valueCentavos: p.valueCentavos,
        state: p.status,
        merchantId: p.merchantId,
        detail: { payoutId: p.id, purpose: p.purpose, ownerId: p.ownerId },
      }));
    },
    sameState: (ours, theirs) => (PAYOUT_STATE[theirs] ?? []).includes(ours),
  };
}

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

function exchange(): ReconSource {
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

/** Invoices asked of the node per page (tests make it small to read a day over several pages). */
export const lightningPaging = { size: 500 };
/** How long before the day an invoice settled in it may have been made: the longest invoice expiry, and a day for hold invoices settled late. */
const lightningLookbackMs = () =>
  (Math.max(env().EXPIRY_LIGHTNING_SECONDS, env().EXPIRY_CRYPTO_PIX_SECONDS) + 24 * 60 * 60) * 1000;

function lightning(): ReconSource {
  const node = () => providers().lightning;
  // The orders of the page being matched, by payment hash: what applyMissing completes.
  const listed = new Map<string, Order>();
  return {
    name: "lightning",
    enabled: () => env().PAYMENTS_MODE === "live" && railEnabled("lightning") && node().listInvoices !== undefined,
    // `page` is the node's add index to list after: lnd pages by it, and it is what a resumed run starts from.
    async page(window, page) {
      const answer = await node().listInvoices!({
        indexOffset: page,
        max: lightningPaging.size,
        createdFrom: new Date(window.from.getTime() - lightningLookbackMs()),
        createdTo: window.to,
      });
      // Only a settled invoice moved money; lnd lists every invoice made in the dates.
      const settled = answer.invoices.filter((i) => i.paid && i.paidAt);
      listed.clear();
      const hashes = settled.map((i) => i.paymentHash);
      if (hashes.length)
        for (const o of await db()
          .select()
          .from(orders)
          .where(
            and(eq(orders.kind, "lightning"), eq(orders.provider, node().name), inArray(orders.paymentHash, hashes)),
          ))
          listed.set(o.paymentHash!, o);
      return {
        items: settled.map((i) => ({
          ref: i.paymentHash,
          valueCentavos: i.paidSatoshis,
          state: "SETTLED",
          at: i.paidAt!,
          detail: { invoiceSatoshis: i.valueSatoshis },
        })),
        next:
          answer.invoices.length === lightningPaging.size && answer.lastIndexOffset > page
            ? answer.lastIndexOffset
            : null,
      };
    },
    async applyMissing(item) {
      // An order's invoice the node settled that neither the stream nor the poll recorded (the poll asks
      // for a day after expiry only): applied as they would, with the node's settle time.
      const order = listed.get(item.ref);
      if (!order) return false;
      const known = await db()
        .select({ o: orderReceipts.orderId })
        .from(orderReceipts)
        .where(and(eq(orderReceipts.provider, order.provider), eq(orderReceipts.paymentRef, item.ref)));
      if (known.length > 0) return false;
      const outcome = await confirmLightningOrder(order, "poll");
      return outcome !== null && !outcome.duplicate;
    },
    async ours(refs) {
      const out = new Map<string, Movement>();
      if (refs.length === 0) return out;
      const receipts = await db()
        .select({ receipt: orderReceipts, order: orders })
        .from(orderReceipts)
        .innerJoin(orders, eq(orders.id, orderReceipts.orderId))
        .where(and(eq(orderReceipts.provider, node().name), inArray(orderReceipts.paymentRef, refs)));
      for (const { receipt, order } of receipts)
        out.set(receipt.paymentRef, {
          ref: receipt.paymentRef,
          valueCentavos: order.satoshis ?? 0,
          state: "SETTLED",
          merchantId: order.merchantId,
          detail: { orderId: order.id, applied: receipt.applied },
        });
      const holds = await db()
        .select({ invoice: cryptoPixInvoices, merchantId: cryptoPixPayments.merchantId })
        .from(cryptoPixInvoices)
        .innerJoin(cryptoPixPayments, eq(cryptoPixPayments.id, cryptoPixInvoices.paymentId))
        .where(and(eq(cryptoPixInvoices.provider, node().name), inArray(cryptoPixInvoices.paymentHash, refs)));
      for (const { invoice, merchantId } of holds)
        out.set(invoice.paymentHash, {
          ref: invoice.paymentHash,
          valueCentavos: invoice.satoshis,
          state: invoice.state.toUpperCase(),
          merchantId,
          detail: { cryptoPixPaymentId: invoice.paymentId, action: invoice.action },
        });
      return out;
    },
    async oursIn({ from, to }) {
      // What the node must have settled that day: the payments we recorded with its settle time, and the
      // hold invoices we settled (their settle is our last change to them).
      const receipts = await db()
        .select({ receipt: orderReceipts, order: orders })
        .from(orderReceipts)
        .innerJoin(orders, eq(orders.id, orderReceipts.orderId))
        .where(
          and(eq(orderReceipts.provider, node().name), gte(orderReceipts.paidAt, from), lt(orderReceipts.paidAt, to)),
        );
      const holds = await db()
        .select({ invoice: cryptoPixInvoices, merchantId: cryptoPixPayments.merchantId })
        .from(cryptoPixInvoices)
        .innerJoin(cryptoPixPayments, eq(cryptoPixPayments.id, cryptoPixInvoices.paymentId))
        .where(
          and(
            eq(cryptoPixInvoices.provider, node().name),
            eq(cryptoPixInvoices.state, "settled"),
            gte(cryptoPixInvoices.updatedAt, from),
            lt(cryptoPixInvoices.updatedAt, to),
          ),
        );
      return [
        ...receipts.map(({ receipt, order }) => ({
          ref: receipt.paymentRef,
          valueCentavos: order.satoshis ?? 0,
          state: "SETTLED",
          merchantId: order.merchantId,
          detail: { orderId: order.id },
        })),
        ...holds.map(({ invoice, merchantId }) => ({
          ref: invoice.paymentHash,
          valueCentavos: invoice.satoshis,
          state: "SETTLED",
          merchantId,
          detail: { cryptoPixPaymentId: invoice.paymentId },
        })),
      ];
    },
    sameState: (ours, theirs) => ours === theirs,
    formatValue: (sats) => `${sats} sats`,
  };
}

/** The lowest block in [0, last] whose timestamp is at or after `t` (last + 1 when none): blocks are in time order. */
async function firstBlockFrom(node: ChainReader, t: Date, last: bigint): Promise<bigint> {
  let lo = 0n;
  let hi = last + 1n;
  while (lo < hi) {
    const mid = (lo + hi) / 2n;
    if ((await node.block(mid)).timestamp.getTime() >= t.getTime()) hi = mid;
    else lo = mid + 1n;
  }
  return lo;
}

/** Hot-wallet transactions with the merchant each was for (a withdrawal's, a Crypto-PIX payment's). */
function sentTxs(where: SQL | undefined) {
  return db()
    .select({
      t: chainTxs,
      merchantId: sql<string | null>`coalesce(${withdrawals.merchantId}, ${cryptoPixPayments.merchantId})`,
    })
    .from(chainTxs)
    .leftJoin(withdrawals, and(eq(chainTxs.ownerKind, "withdrawal"), eq(withdrawals.id, chainTxs.ownerId)))
    .leftJoin(cryptoPixPayments, and(eq(chainTxs.ownerKind, "crypto_pix"), eq(cryptoPixPayments.id, chainTxs.ownerId)))
    .where(where);
}

const transferRef = (network: string, txHash: string, logIndex: number) =>
  `in:${network}:${txHash.toLowerCase()}:${logIndex}`;
// One token transfer per transaction of ours: the mined hash names it.
const sentRef = (network: string, txHash: string) => `out:${network}:${txHash.toLowerCase()}`;

function chain(): ReconSource {
  const networks = () => NETWORKS.filter((n) => liveChainConfig(n) !== null && providers().chain.reader(n) !== null);
  // A window's block ranges, worked out once per run: each network's blocks of the window, in steps of
  // CHAIN_LOG_BLOCK_RANGE. A page is one step, so a resumed run starts again at the range it stopped in.
  const plans = new Map<string, { network: Network; fromBlock: bigint; toBlock: bigint }[]>();
  async function plan(window: { from: Date; to: Date }) {
    const key = `${window.from.toISOString()}/${window.to.toISOString()}`;
    const known = plans.get(key);
    if (known) return known;
    const steps: { network: Network; fromBlock: bigint; toBlock: bigint }[] = [];
    const range = BigInt(env().CHAIN_LOG_BLOCK_RANGE);
    for (const network of networks()) {
      const node = providers().chain.reader(network)!;
      const safeHead = (await node.headBlock()) - BigInt(confirmationsRequired(network)) + 1n;
      // The window is judged only once a block after it is confirmed: until then a later block may
      // still add transfers to it, or a reorg take some away. The run fails and is tried again later.
      const end = safeHead < 0n ? 0n : await firstBlockFrom(node, window.to, safeHead);
      if (safeHead < 0n || end > safeHead)
        throw new DayNotFinal(
          `${network}: the blocks up to ${window.to.toISOString()} do not have their confirmations yet`,
        );
      for (let b = await firstBlockFrom(node, window.from, safeHead); b < end; b += range)
        steps.push({ network, fromBlock: b, toBlock: b + range - 1n < end - 1n ? b + range - 1n : end - 1n });
    }
    plans.set(key, steps);
    return steps;
  }
  return {
    name: "chain",
    enabled: () => env().PAYMENTS_MODE === "live" && networks().length > 0,
    async page(window, page) {
      const steps = await plan(window);
      const step = steps[page];
      if (!step) return { items: [], next: null };
      const node = providers().chain.reader(step.network)!;
      const decimals = new Map<string, number>();
      for (const asset of ASSETS) {
        const token = tokenInfo(step.network, asset);
        if (token) decimals.set(token.address.toLowerCase(), token.decimals);
      }
      // Every address we ever handed out, as the watcher watches them: money of the wrong token or on the
      // wrong network still reached us.
      const recipients = (
        await db()
          .select({ address: depositAddresses.address })
          .from(depositAddresses)
          .where(lt(depositAddresses.createdAt, window.to))
      ).map((r) => r.address as `0x${string}`);
      const logs =
        recipients.length && decimals.size
          ? await node.transferLogs({
              tokens: [...decimals.keys()] as `0x${string}`[],
              recipients,
              fromBlock: step.fromBlock,
              toBlock: step.toBlock,
            })
          : [];
      // What the hot wallet sent: the node lists Transfer logs by recipient only (the reader's filter), so
      // those to every address it ever paid for us; one to an address it never paid is not seen here.
      const hot = providers().chain.hotWalletAddress(step.network).toLowerCase();
      const paid = (
        await db()
          .selectDistinct({ address: chainTxs.toAddress })
          .from(chainTxs)
          .where(
            and(
              eq(chainTxs.network, step.network),
              isNotNull(chainTxs.tokenAddress),
              lt(chainTxs.createdAt, window.to),
            ),
          )
      ).map((r) => r.address as `0x${string}`);
      const sent =
        paid.length && decimals.size
          ? (
              await node.transferLogs({
                tokens: [...decimals.keys()] as `0x${string}`[],
                recipients: paid,
                fromBlock: step.fromBlock,
                toBlock: step.toBlock,
              })
            ).filter((l) => l.from.toLowerCase() === hot)
          : [];
      const times = new Map<bigint, Date>();
      const items: ProviderMovement[] = [];
      for (const l of sent) {
        if (!times.has(l.blockNumber)) times.set(l.blockNumber, (await node.block(l.blockNumber)).timestamp);
        items.push({
          ref: sentRef(step.network, l.transactionHash),
          valueCentavos: 0,
          amount: fromBaseUnits(l.value, decimals.get(l.token.toLowerCase()) ?? 18),
          state: "CONFIRMED",
          at: times.get(l.blockNumber)!,
          detail: { token: l.token, from: l.from, to: l.to, block: Number(l.blockNumber) },
        });
      }
      for (const l of logs) {
        if (l.value <= 0n) continue;
        if (!times.has(l.blockNumber)) times.set(l.blockNumber, (await node.block(l.blockNumber)).timestamp);
        items.push({
          ref: transferRef(step.network, l.transactionHash, l.logIndex),
          valueCentavos: 0,
          amount: fromBaseUnits(l.value, decimals.get(l.token.toLowerCase()) ?? 18),
          state: "CONFIRMED",
          at: times.get(l.blockNumber)!,
          detail: { token: l.token, from: l.from, to: l.to, block: Number(l.blockNumber) },
        });
      }
      return { items, next: page + 1 < steps.length ? page + 1 : null };
    },
    async ours(refs) {
      const out = new Map<string, Movement>();
      const sentHashes = refs.filter((r) => r.startsWith("out:")).map((r) => r.split(":")[2]);
      if (sentHashes.length)
        for (const { t, merchantId } of await sentTxs(inArray(sql`lower(${chainTxs.minedHash})`, sentHashes))) {
          const ref = sentRef(t.network, t.minedHash!);
          out.set(ref, {
            ref,
            valueCentavos: 0,
            amount: t.amount ?? "0",
            state: t.status.toUpperCase(),
            merchantId,
            detail: { chainTxId: t.id, purpose: t.purpose, ownerId: t.ownerId },
          });
        }
      const hashes = [...new Set(refs.filter((r) => r.startsWith("in:")).map((r) => r.split(":")[2]))];
      if (hashes.length === 0) return out;
      const rows = await db()
        .select({
          transfer: chainTransfers,
          orderMerchant: onchainOrders.merchantId,
          cryptoPixMerchant: cryptoPixPayments.merchantId,
        })
        .from(chainTransfers)
        .leftJoin(
          onchainOrders,
          and(eq(chainTransfers.ownerKind, "onchain_order"), eq(onchainOrders.id, chainTransfers.ownerId)),
        )
        .leftJoin(
          cryptoPixPayments,
          and(eq(chainTransfers.ownerKind, "crypto_pix"), eq(cryptoPixPayments.id, chainTransfers.ownerId)),
        )
        .where(inArray(sql`lower(${chainTransfers.txHash})`, hashes));
      for (const { transfer: t, orderMerchant, cryptoPixMerchant } of rows) {
        const ref = transferRef(t.network, t.txHash, t.logIndex);
        out.set(ref, {
          ref,
          valueCentavos: 0,
          amount: t.amount,
          state: "CONFIRMED",
          merchantId: orderMerchant ?? cryptoPixMerchant ?? null,
          detail: { transferId: t.id, ownerKind: t.ownerKind, ownerId: t.ownerId, note: t.note },
        });
      }
      return out;
    },
    async oursIn({ from, to }) {
      const live = networks();
      if (live.length === 0) return [];
      const rows = await db()
        .select({
          transfer: chainTransfers,
          orderMerchant: onchainOrders.merchantId,
          cryptoPixMerchant: cryptoPixPayments.merchantId,
        })
        .from(chainTransfers)
        .leftJoin(
          onchainOrders,
          and(eq(chainTransfers.ownerKind, "onchain_order"), eq(onchainOrders.id, chainTransfers.ownerId)),
        )
        .leftJoin(
          cryptoPixPayments,
          and(eq(chainTransfers.ownerKind, "crypto_pix"), eq(cryptoPixPayments.id, chainTransfers.ownerId)),
        )
        // A sandbox helper's transfer has no block: it never was on a chain.
        .where(
          and(
            inArray(chainTransfers.network, live),
            isNotNull(chainTransfers.blockNumber),
            gte(chainTransfers.blockTime, from),
            lt(chainTransfers.blockTime, to),
          ),
        );
      // Token transfers the hot wallet made for us and saw confirmed that day (a sweep is sent by a
      // deposit address, not the hot wallet: the node's side above never lists it).
      const sent = await sentTxs(
        and(
          inArray(chainTxs.network, live),
          eq(chainTxs.status, "confirmed"),
          ne(chainTxs.purpose, "sweep"),
          isNotNull(chainTxs.tokenAddress),
          isNotNull(chainTxs.minedHash),
          sql`${chainTxs.amount} > 0`,
          gte(chainTxs.decidedAt, from),
          lt(chainTxs.decidedAt, to),
        ),
      );
      const sentMovements = sent.map(({ t, merchantId }) => ({
        ref: sentRef(t.network, t.minedHash!),
        valueCentavos: 0,
        amount: t.amount ?? "0",
        state: "CONFIRMED",
        merchantId,
        detail: { chainTxId: t.id, purpose: t.purpose, ownerId: t.ownerId },
      }));
      return [
        ...sentMovements,
        ...rows.map(({ transfer: t, orderMerchant, cryptoPixMerchant }) => ({
          ref: transferRef(t.network, t.txHash, t.logIndex),
          valueCentavos: 0,
          amount: t.amount,
          state: "CONFIRMED",
          merchantId: orderMerchant ?? cryptoPixMerchant ?? null,
          detail: { transferId: t.id, ownerKind: t.ownerKind, ownerId: t.ownerId },
        })),
      ];
    },
    sameState: (ours, theirs) => ours === theirs,
  };
}

/** Every source this service can reconcile, by name. */
export function reconSources(): Record<ReconSourceName, ReconSource | null> {
  return {
    pix_received: pixReceived(),
    pix_sent: pixSent(),
    exchange: exchange(),
    lightning: lightning(),
    chain: chain(),
  };
}
