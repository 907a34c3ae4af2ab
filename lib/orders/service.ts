import { db, type Executor, type Tx } from "@/db";
import type { MerchantProfile, Order, OrderRefund, OrderStatus, orders } from "@/db/schema";
import type { OrderMaker } from "@/lib/order-maker";
import { isUuid, newOrderHash, newPaymentLinkId } from "@/lib/ids";
import { paymentLink } from "@/lib/links";
import { env } from "@/lib/env";
import { Conflict, InvalidInput, NotFound, ProviderError } from "@/lib/errors";
import { recordEvent } from "@/lib/events/outbox";
import { bindIdempotencyKey, holdsIdempotencyKey, writeAndBind } from "@/lib/idempotency-binding";
import { log } from "@/lib/log";
import { postLedgerEntry, type LedgerPosting } from "@/lib/ledger/ledger";
import { paidOrUnderWayBy, readOrderInvoice } from "@/lib/orders/lightning-invoice";
import { satoshisFor } from "@/lib/money";
import type { SplitSpec } from "@/lib/splits/allocate";
import type { SplitView } from "@/lib/splits/schemas";
import { checkSplits, creditSplits, insertSplits, orderSplitViews } from "@/lib/splits/service";
import { providers } from "@/lib/providers";
import { RailNotEnabled, requireRail } from "@/lib/providers/rails";
import { API_PIX_PROVIDER } from "@/lib/providers/pix/api-pix";
import type { CollectionPayer } from "@/lib/providers/pix/types";
import type { CreateExchangeOrderInput, CreateLightningOrderInput, CreatePixOrderInput } from "./schemas";
import {
  dueOrders,
  insertOrder,
  insertOrderIn,
  lockExpiredPending,
  lockOrder,
  markCancelled,
  markPaid,
  markRefunded,
  merchantOrderById,
  merchantOrderByLink,
  orderById,
  refundsOfOrderOnPool,
} from "./queries";
import { orderView } from "./views";

function references(input: Record<string, unknown>, keys: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of keys) {
    const v = input[k];
    if (typeof v === "string" && v !== "") out[k] = v;
  }
  return out;
}

/** The payer named on the charge (API Pix `devedor`): only with a name and a CPF or a numeric CNPJ, as the document requires. */
function payerOf(input: CreatePixOrderInput): CollectionPayer | undefined {
  if (!input.name) return undefined;
  if (input.cpf) return { name: input.name, cpf: input.cpf };
  if (input.cnpj && /^\d{14}$/.test(input.cnpj)) return { name: input.name, cnpj: input.cnpj };
  return undefined;
}

/**
 * A new order. Without an Idempotency-Key it is the one prepared INSERT of the API's hottest write;
 * with one, the insert and the key's binding to the order commit together; with a split, its parts too.
 */
function storeOrder(values: typeof orders.$inferInsert, maker?: OrderMaker, splits: SplitSpec[] = []): Promise<Order> {
  if (maker || splits.length > 0) {
    const made = {
      ...values,
      reference: { ...values.reference, ...maker?.reference },
      splitCount: splits.length,
    };
    return db().transaction((tx) => {
      const write = async () => {
        const order = await insertOrderIn(tx, made);
        await insertSplits(tx, { orderId: order.id }, order.merchantId, splits, order.valueCentavos);
        await bindIdempotencyKey(tx, { type: "order", id: order.id });
        return order;
      };
      return maker ? maker.record(tx, values.kind, write) : write();
    });
  }
  if (!values.payLinks && !holdsIdempotencyKey()) return insertOrder(values);
  return writeAndBind(
    (ex) => insertOrderIn(ex, values),
    (order) => ({ type: "order", id: order.id }),
  );
}

export async function createPixOrder(
  merchant: MerchantProfile,
  input: CreatePixOrderInput,
  maker?: OrderMaker,
): Promise<Order> {
  requireRail("pix");
  if (!merchant.pixKey) {
    // The PSP needs a payout destination for the merchant before it will collect for it.
    throw new InvalidInput("The merchant has no registered PIX key: register one before creating PIX orders", {
      code: "pixKey.noneToCollect",
      extra: { details: { pixKey: null, identifier: merchant.id } },
    });
  }
  // Refused before the provider is asked for anything.
  await checkSplits(db(), merchant.id, input.splits ?? [], input.value);
  const expiresAt = input.expiresIn ? new Date(Date.now() + input.expiresIn * 1000) : null;
  const collection = await providers()
    .pix.createCollection({
      valueCentavos: input.value,
      expiresInSeconds: input.expiresIn ?? null,
      payer: payerOf(input),
    })
    .catch((err: unknown) => {
      // The PSP refused the charge: the spec's create-PIX 400, with the details it names.
      if (err instanceof InvalidInput && !(err instanceof RailNotEnabled))
        throw new InvalidInput(err.message, {
          ...err.coded,
          extra: { details: { pixKey: merchant.pixKey, identifier: merchant.id } },
        });
      throw err;
    });
  const order = await storeOrder(
    {
      merchantId: merchant.id,
      kind: "pix",
      paymentLinkId: newPaymentLinkId(),
      hash: newOrderHash(),
      valueCentavos: input.value,
      reference: references(input, ["orderRequest", "merchant", "orderId", "name", "cnpj", "cpf", "description"]),
      metadata: input.metadata ?? {},
      provider: collection.provider,
      providerRef: collection.providerRef,
      brcode: collection.brcode,
      txid: collection.txid,
      expiresAt,
    },
    maker,
    input.splits,
  );
  return order;
}

export async function createExchangeOrder(
  merchant: MerchantProfile,
  input: CreateExchangeOrderInput,
  maker?: OrderMaker,
): Promise<Order> {
  requireRail("exchange");
  await checkSplits(db(), merchant.id, input.splits ?? [], input.value);
  const paymentLinkId = newPaymentLinkId();
  const expiresAt = new Date(Date.now() + env().EXPIRY_EXCHANGE_SECONDS * 1000);
  const exchange = providers().exchange;
  const payment = await exchange.createPayment({
    valueCentavos: input.value,
    paymentLinkId,
    payLink: paymentLink(paymentLinkId),
    // The provider's order expires with ours: nobody can pay it after we stopped waiting.
    expiresAt,
    description: `${merchant.companyName} - R$ ${(input.value / 100).toFixed(2)}`,
  });
  const reference = references(input, ["payerId"]);
  if (input.merchant?.subMerchantId) reference.subMerchantId = input.merchant.subMerchantId;
  const values = {
    merchantId: merchant.id,
    kind: "exchange" as const,
    paymentLinkId,
    hash: newOrderHash(),
    valueCentavos: input.value,
    reference,
    metadata: input.metadata ?? {},
    provider: exchange.name,
    providerRef: payment.providerRef,
    expiresAt,
  };
  return storeOrder(payment.links ? { ...values, payLinks: payment.links } : values, maker, input.splits);
}

export async function createLightningOrder(
  merchant: MerchantProfile,
  input: CreateLightningOrderInput,
  maker?: OrderMaker,
): Promise<Order> {
  requireRail("lightning");
  await checkSplits(db(), merchant.id, input.splits ?? [], input.value);
  const { rates, lightning } = providers();
  const quote = await rates.quote("BTC");
  const satoshis = satoshisFor(input.value, quote.rate);
  const expirySeconds = env().EXPIRY_LIGHTNING_SECONDS;
  // Made before the invoice: a provider that keeps a reference of ours (OpenNode's order_id) gets it.
  const paymentLinkId = newPaymentLinkId();
  let invoice;
  try {
    invoice = await lightning.createInvoice({
      satoshis,
      fiatCentavos: input.value,
      description: `${merchant.companyName} - R$ ${(input.value / 100).toFixed(2)}`,
      expirySeconds,
      name: input.name,
      paymentLinkId,
    });
  } catch (err) {
    // The spec's row: the upstream provider's status is named in `error`.
    const status = err instanceof Error ? err.message : "unknown";
    throw new ProviderError(`Lightning provider error: ${status}`);
  }
  const order = await storeOrder(
    {
      merchantId: merchant.id,
      kind: "lightning",
      paymentLinkId,
      hash: newOrderHash(),
      valueCentavos: input.value,
      reference: references(input, ["email", "name"]),
      metadata: input.metadata ?? {},
      provider: lightning.name,
      providerRef: invoice.id,
      invoice: invoice.invoice,
      paymentHash: invoice.paymentHash,
      satoshis,
      rate: quote.rate,
      rateSource: quote.source,
      rateAt: quote.at,
      expiresAt: invoice.expiresAt,
    },
    maker,
    input.splits,
  );
  return order;
}

/** By order id (UUID) or payment link id, only among this merchant's orders. */
export async function findOrder(merchantId: string, idOrLink: string): Promise<Order> {
  // Anything that is neither a UUID nor a payment link id cannot exist (and a NUL would upset PostgreSQL).
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(idOrLink)) throw new NotFound("Order not found");
  const row = isUuid(idOrLink)
    ? await merchantOrderById(merchantId, idOrLink.toLowerCase())
    : await merchantOrderByLink(merchantId, idOrLink);
  if (!row) throw new NotFound("Order not found");
  return expiredOnRead(row);
}

/** The order as it stands: one PENDING past its expiry is cancelled first, since the sweep may not have run yet. */
export async function expiredOnRead(order: Order): Promise<Order> {
  if (order.status !== "PENDING" || !order.expiresAt || order.expiresAt.getTime() >= Date.now()) return order;
  await expireOrders([order.id]);
  return (await orderById(db(), order.id))!;
}

/** The order's split as every merchant view shows it; [] (and no query) for an order without one. */
export function splitsOfOrder(ex: Executor, order: Order): Promise<SplitView[]> {
  return orderSplitViews(ex, order);
}

/** The event of an order's status change, as recordEvent writes it. */
export function statusChangedEvent(before: Order, after: Order, splits: SplitView[]) {
  return {
    merchantId: after.merchantId,
    type: "order.status_changed" as const,
    subjectType: "order",
    subjectId: after.id,
    data: { ...orderView(after, splits), previousStatus: before.status },
  };
}

async function changeStatus(tx: Tx, before: Order, after: Order) {
  await recordEvent(tx, statusChangedEvent(before, after, await splitsOfOrder(tx, after)));
}

/** A paid order's credit: posted once per order (its ref), whichever path pays it; `amount`: the merchant's part of a split order. */
export function orderCredit(order: Order, amount = order.valueCentavos): LedgerPosting {
  return {
    merchantId: order.merchantId,
    kind: "order_credit",
    amountCentavos: amount,
    refType: "order",
    refId: order.id,
    description: `${order.kind} order ${order.paymentLinkId}`,
  };
}

/**
 * In the caller's transaction: PENDING (or CANCELLED, paid in time but reported late) → COMPLETED with
 * the ledger credit and the event, when `paidAt` is within the order's expiry; undefined otherwise
 * (nothing written). `paidCentavos`: the order's value becomes what was paid, and is what is credited
 * (an invoice's order, whose amount depends on the day: lib/invoices).
 */
export async function markOrderPaid(
  tx: Tx,
  orderId: string,
  paidAt: Date,
  locked?: Order,
  paidCentavos?: number,
): Promise<Order | undefined> {
  // `locked`: the caller already holds the order's row lock in `tx` (and read it then).
  const before = locked ?? (await lockOrder(tx, orderId));
  if (!before || (before.status !== "PENDING" && before.status !== "CANCELLED")) return undefined;
  const updated = await markPaid(tx, orderId, paidAt, paidCentavos);
  if (!updated) return undefined;
  if (updated.splitCount > 0) {
    // Behind the conditional UPDATE above, so once: the parts first, then the merchant's remainder.
    const merchantPart = await creditSplits(tx, { orderId: updated.id }, updated, updated.valueCentavos, updated.kind);
    await bindIdempotencyKey(tx, { type: "order", id: updated.id });
    if (merchantPart > 0) await postLedgerEntry(tx, orderCredit(updated, merchantPart));
    await changeStatus(tx, before, updated);
    return updated;
  }
  // The key binding (sandbox API), the credit and the event are independent writes: sent together
  // (postgres.js pipelines them on the transaction's connection), one round trip instead of three.
  await Promise.all([
    bindIdempotencyKey(tx, { type: "order", id: updated.id }),
    postLedgerEntry(tx, orderCredit(updated)),
    changeStatus(tx, before, updated),
  ]);
  return updated;
}

/** PENDING → COMPLETED: one transaction with the ledger credit and the event. */
export async function completeOrder(orderId: string, paidAt: Date = new Date()): Promise<Order> {
  const result = await db().transaction((tx) => markOrderPaid(tx, orderId, paidAt));
  if (result) return result;
  const current = await orderById(db(), orderId);
  if (!current) throw new NotFound("Order not found");
  if (current.status === "PENDING") {
    await expireOrders([current.id]);
    throw new Conflict("Order expired before it was paid");
  }
  throw new Conflict(`Order is ${current.status}, not PENDING`, { code: "order.notPending" });
}

/**
 * PENDING orders past their expiry become CANCELLED, each with its event. `ids` narrows it to some
 * orders (expire-on-read); otherwise it sweeps a batch. Rows locked by another sweeper are skipped.
 */
export async function expireOrders(ids?: string[], batch = 500): Promise<number> {
  const removable = await removeChargesAtPsp(ids, batch);
  return db().transaction(async (tx) => {
    const due = (await lockExpiredPending(tx, ids, batch)).filter((o) => removable(o));
    if (due.length === 0) return 0;
    const updated = await markCancelled(
      tx,
      due.map((o) => o.id),
    );
    for (const after of updated) await changeStatus(tx, { ...after, status: "PENDING" as OrderStatus }, after);
    return updated.length;
  });
}

/**
 * In the caller's transaction: a PENDING order → CANCELLED with its event, for an owner that closes
 * it (an invoice that expired or was cancelled: lib/invoices); undefined when it was not PENDING.
 */
export async function cancelPendingOrder(tx: Tx, orderId: string): Promise<Order | undefined> {
  const [after] = await markCancelled(tx, [orderId]);
  if (after) await changeStatus(tx, { ...after, status: "PENDING" }, after);
  return after;
}

/**
 * A charge a PSP holds (API Pix) or an order an exchange wallet holds (Binance Pay) is removed there
 * before its order is cancelled here (docs/providers.md#payments-reported-late-every-provider): an order the provider says was paid, or that it
 * could not be asked about, stays PENDING, and the payment is applied when it is read (notification,
 * poll). A Lightning invoice whose payment can still be under way (OpenNode's on-chain fallback) is
 * read first: one paid, or being paid, by the order's expiry keeps the order PENDING until the provider
 * settles it (docs/providers.md, "Lightning (OpenNode)"). Returns which due orders may be cancelled.
 */
async function removeChargesAtPsp(ids: string[] | undefined, batch: number): Promise<(o: Order) => boolean> {
  const { pix, exchange, lightning } = providers();
  const atProvider = (await dueOrders(db(), ids, batch)).filter(
    (o) =>
      (o.kind === "pix" && o.txid && o.provider === API_PIX_PROVIDER) ||
      (o.kind === "exchange" && exchange.closePayment && o.provider === exchange.name) ||
      (o.kind === "lightning" && lightning.readBeforeExpiry && o.provider === lightning.name),
  );
  if (atProvider.length === 0) return () => true;
  const keep = new Set<string>();
  for (const o of atProvider) {
    try {
      const outcome =
        o.kind === "pix"
          ? await pix.cancelCollection(o.txid!)
          : o.kind === "exchange"
            ? await exchange.closePayment!({ merchantTradeNo: o.paymentLinkId, providerRef: o.providerRef ?? "" })
            : await lightningAtExpiry(o);
      if (outcome === "paid") keep.add(o.id);
    } catch (err) {
      keep.add(o.id);
      log.warn("the provider could not be asked to close the order; it stays PENDING until it can", {
        orderId: o.id,
        err,
      });
    }
  }
  return (o) => !keep.has(o.id);
}

/** "paid" when the invoice was paid, or is being paid, by the order's expiry (a payment made after it is kept as unapplied funds). */
async function lightningAtExpiry(order: Order): Promise<"paid" | "unpaid"> {
  const invoice = await readOrderInvoice(order);
  return invoice && order.expiresAt && paidOrUnderWayBy(invoice, order.expiresAt) ? "paid" : "unpaid";
}

export async function lightningProviderDetails(order: Order) {
  const status =
    order.status === "COMPLETED" || order.status === "REFUND"
      ? "paid"
      : order.status === "PENDING"
        ? "unpaid"
        : "expired";
  return providers().lightning.describe({
    id: order.providerRef ?? order.paymentHash ?? order.id,
    satoshis: order.satoshis ?? 0,
    fiatCentavos: order.valueCentavos,
    description: `Order ${order.paymentLinkId}`,
    name: order.reference.name ?? null,
    createdAt: order.createdAt,
    status,
  });
}

/**
 * In the caller's transaction: COMPLETED → REFUND with its event, once the order's COMPLETED refunds
 * reached its value (lib/refunds decides that, holding the order's row lock); undefined when the
 * order was not COMPLETED.
 */
export async function markOrderRefunded(tx: Tx, orderId: string): Promise<Order | undefined> {
  const updated = await markRefunded(tx, orderId);
  if (updated) await changeStatus(tx, { ...updated, status: "COMPLETED" }, updated);
  return updated;
}

/** The order's refunds for its lookup: only a paid PIX or exchange-wallet order can have any, so the others cost no query. */
export async function orderRefunds(order: Order): Promise<OrderRefund[]> {
  if (order.kind === "lightning" || (order.status !== "COMPLETED" && order.status !== "REFUND")) return [];
  return refundsOfOrderOnPool(order.id);
}
