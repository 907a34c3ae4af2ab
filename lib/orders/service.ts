import { db, type Tx } from "@/db";
import type { MerchantProfile, Order, OrderStatus } from "@/db/schema";
import { isUuid, newOrderHash, newPaymentLinkId, newPixTxid } from "@/lib/ids";
import { paymentLink } from "@/lib/links";
import { env } from "@/lib/env";
import { Conflict, InvalidInput, NotFound, ProviderError } from "@/lib/errors";
import { recordEvent } from "@/lib/events/outbox";
import { postLedgerEntry } from "@/lib/ledger/ledger";
import { satoshisFor } from "@/lib/money";
import { providers } from "@/lib/providers";
import type { CreateExchangeOrderInput, CreateLightningOrderInput, CreatePixOrderInput } from "./schemas";
import { insertOrder, lockExpiredPending, markCancelled, markPaid, merchantOrderById, merchantOrderByLink, orderById } from "./queries";
import { orderView } from "./views";

function references(input: Record<string, unknown>, keys: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of keys) {
    const v = input[k];
    if (typeof v === "string" && v !== "") out[k] = v;
  }
  return out;
}

export async function createPixOrder(merchant: MerchantProfile, input: CreatePixOrderInput): Promise<Order> {
  if (!merchant.pixKey) {
    // The PSP needs a payout destination for the merchant before it will collect for it.
    throw new InvalidInput("The merchant has no registered PIX key: register one before creating PIX orders", {
      details: { pixKey: null, identifier: merchant.id },
    });
  }
  const txid = newPixTxid();
  const collection = await providers().pix.createCollection({ valueCentavos: input.value, txid });
  const order = await insertOrder({
    merchantId: merchant.id,
    kind: "pix",
    paymentLinkId: newPaymentLinkId(),
    hash: newOrderHash(),
    valueCentavos: input.value,
    reference: references(input, ["orderRequest", "merchant", "orderId", "name", "cnpj", "cpf"]),
    provider: collection.provider,
    providerRef: collection.providerRef,
    brcode: collection.brcode,
    txid,
    expiresAt: input.expiresIn ? new Date(Date.now() + input.expiresIn * 1000) : null,
  });
  return order;
}

export async function createExchangeOrder(merchant: MerchantProfile, input: CreateExchangeOrderInput): Promise<Order> {
  const paymentLinkId = newPaymentLinkId();
  const payment = await providers().exchange.createPayment({
    valueCentavos: input.value,
    paymentLinkId,
    payLink: paymentLink(paymentLinkId),
  });
  const reference = references(input, ["payerId"]);
  if (input.merchant?.subMerchantId) reference.subMerchantId = input.merchant.subMerchantId;
  const order = await insertOrder({
    merchantId: merchant.id,
    kind: "exchange",
    paymentLinkId,
    hash: newOrderHash(),
    valueCentavos: input.value,
    reference,
    provider: providers().exchange.name,
    providerRef: payment.providerRef,
    expiresAt: new Date(Date.now() + env().EXPIRY_EXCHANGE_SECONDS * 1000),
  });
  return order;
}

export async function createLightningOrder(merchant: MerchantProfile, input: CreateLightningOrderInput): Promise<Order> {
  const { rates, lightning } = providers();
  const quote = await rates.quote("BTC");
  const satoshis = satoshisFor(input.value, quote.rate);
  const expirySeconds = env().EXPIRY_LIGHTNING_SECONDS;
  let invoice;
  try {
    invoice = await lightning.createInvoice({
      satoshis,
      fiatCentavos: input.value,
      description: `${merchant.companyName} - R$ ${(input.value / 100).toFixed(2)}`,
      expirySeconds,
      name: input.name,
    });
  } catch (err) {
    // The spec's row: the upstream provider's status is named in `error`.
    const status = err instanceof Error ? err.message : "unknown";
    throw new ProviderError(`Lightning provider error: ${status}`);
  }
  const order = await insertOrder({
    merchantId: merchant.id,
    kind: "lightning",
    paymentLinkId: newPaymentLinkId(),
    hash: newOrderHash(),
    valueCentavos: input.value,
    reference: references(input, ["email", "name"]),
    provider: lightning.name,
    providerRef: invoice.id,
    invoice: invoice.invoice,
    paymentHash: invoice.paymentHash,
    satoshis,
    rate: quote.rate,
    rateSource: quote.source,
    rateAt: quote.at,
    expiresAt: invoice.expiresAt,
  });
  return order;
}

/** By order id (UUID) or payment link id, only among this merchant's orders. */
export async function findOrder(merchantId: string, idOrLink: string): Promise<Order> {
  // Anything that is neither a UUID nor a payment link id cannot exist (and a NUL would upset PostgreSQL).
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(idOrLink)) throw new NotFound("Order not found");
  const row = isUuid(idOrLink) ? await merchantOrderById(merchantId, idOrLink.toLowerCase()) : await merchantOrderByLink(merchantId, idOrLink);
  if (!row) throw new NotFound("Order not found");
  return expiredOnRead(row);
}

/** The order as it stands: one PENDING past its expiry is cancelled first, since the sweep may not have run yet. */
export async function expiredOnRead(order: Order): Promise<Order> {
  if (order.status !== "PENDING" || !order.expiresAt || order.expiresAt.getTime() >= Date.now()) return order;
  await expireOrders([order.id]);
  return (await orderById(db(), order.id))!;
}

async function changeStatus(tx: Tx, before: Order, after: Order) {
  await recordEvent(tx, {
    merchantId: after.merchantId,
    type: "order.status_changed",
    subjectType: "order",
    subjectId: after.id,
    data: { ...orderView(after), previousStatus: before.status },
  });
}

/** PENDING → COMPLETED: one transaction with the ledger credit and the event. */
export async function completeOrder(orderId: string, paidAt: Date = new Date()): Promise<Order> {
  const result = await db().transaction(async (tx) => {
    const updated = await markPaid(tx, orderId, paidAt);
    if (!updated) return null;
    await postLedgerEntry(tx, {
      merchantId: updated.merchantId,
      kind: "order_credit",
      amountCentavos: updated.valueCentavos,
      refType: "order",
      refId: updated.id,
      description: `${updated.kind} order ${updated.paymentLinkId}`,
    });
    await changeStatus(tx, { ...updated, status: "PENDING" }, updated);
    return updated;
  });
  if (result) return result;
  const current = await orderById(db(), orderId);
  if (!current) throw new NotFound("Order not found");
  if (current.status === "PENDING") {
    await expireOrders([current.id]);
    throw new Conflict("Order expired before it was paid");
  }
  throw new Conflict(`Order is ${current.status}, not PENDING`);
}

/**
 * PENDING orders past their expiry become CANCELLED, each with its event. `ids` narrows it to some
 * orders (expire-on-read); otherwise it sweeps a batch. Rows locked by another sweeper are skipped.
 */
export async function expireOrders(ids?: string[], batch = 500): Promise<number> {
  return db().transaction(async (tx) => {
    const due = await lockExpiredPending(tx, ids, batch);
    if (due.length === 0) return 0;
    const updated = await markCancelled(
      tx,
      due.map((o) => o.id),
    );
    for (const after of updated) await changeStatus(tx, { ...after, status: "PENDING" as OrderStatus }, after);
    return updated.length;
  });
}

export async function lightningProviderDetails(order: Order) {
  const status = order.status === "COMPLETED" || order.status === "REFUND" ? "paid" : order.status === "PENDING" ? "unpaid" : "expired";
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
