import "server-only";
import { db } from "@/db";
import type { Order } from "@/db/schema";
import { transfersOf } from "@/lib/chain/transfers";
import { overLightning } from "@/lib/crypto-pix/kinds";
import { invoiceOf } from "@/lib/crypto-pix/queries";
import { env } from "@/lib/env";
import { subjectEvents } from "@/lib/events/queries";
import { isUuid } from "@/lib/ids";
import { disputesOfOrder } from "@/lib/med/returns";
import { findAnyOrder } from "@/lib/orders/any-order";
import { refundsOfOrder } from "@/lib/orders/queries";
import { refundableNow } from "@/lib/refunds/rule";
import { subjectDeliveries } from "@/lib/webhooks/queries";
import {
  fromCryptoPix,
  fromDeposit,
  fromOrder,
  transferLine,
  type OrderBase,
  type OrderDetail,
} from "@/lib/dashboard/order-views";
import { unappliedLines } from "./unapplied";

// One order of any kind for the dashboard's order page and its polling (lib/dashboard/order-views.ts
// says what it holds): found among the merchant's orders of every kind, with its transfers, refunds,
// MED devoluções, events and webhook deliveries.

export type { OrderDetail };

/** The order with this id among the merchant's orders of every kind (expired on read), or null. */
async function loadOrder(
  merchantId: string,
  id: string,
): Promise<(OrderBase & Pick<OrderDetail, "transfers" | "refunds" | "refundable" | "unapplied">) | null> {
  const found = await findAnyOrder(merchantId, id);
  if (!found) return null;
  if (found.kind === "order")
    return { ...fromOrder(found.order), transfers: [], ...(await refundsOf(found.order)), unapplied: [] };
  const order = found.order;
  const rows = await transfersOf(db(), order.id);
  const transfers = rows.map((t) => transferLine(t, order));
  if (found.kind === "onchain")
    return {
      ...fromDeposit(found.order),
      transfers,
      refunds: [],
      refundable: null,
      unapplied: await unappliedLines(found.order, rows),
    };
  const invoice = overLightning(found.order) ? await invoiceOf(db(), found.order.id) : undefined;
  return { ...fromCryptoPix(found.order, invoice), transfers, refunds: [], refundable: null, unapplied: [] };
}

/**
 * A paid PIX or exchange-wallet order's refunds, and what is left to refund (docs/api.md#refunds): a preview
 * for the form; the service decides again under the order's row lock.
 */
async function refundsOf(o: Order): Promise<Pick<OrderDetail, "refunds" | "refundable">> {
  if (o.kind === "lightning" || (o.status !== "COMPLETED" && o.status !== "REFUND"))
    return { refunds: [], refundable: null };
  const [rows, left] = await Promise.all([refundsOfOrder(db(), o.id), refundableNow(db(), o)]);
  return {
    refunds: rows.map((r) => ({
      id: r.id,
      valueCentavos: r.valueCentavos,
      status: r.status,
      reason: r.reason,
      failureReason: r.failureReason,
      createdAt: r.createdAt.toISOString(),
    })),
    refundable: left > 0 ? { leftCentavos: left, sandbox: env().PAYMENTS_MODE === "sandbox" } : null,
  };
}

export async function getOrderDetail(merchantId: string, id: string): Promise<OrderDetail | null> {
  // Not a UUID → not an order: answered like an unknown id, never a database error.
  if (!isUuid(id) || !isUuid(merchantId)) return null;
  const base = await loadOrder(merchantId, id.toLowerCase());
  if (!base) return null;
  const [eventRows, deliveryRows] = await Promise.all([
    subjectEvents(db(), merchantId, base.id),
    subjectDeliveries(db(), merchantId, base.id),
  ]);
  const disputes = base.kind === "pix" ? await disputesOfOrder(base.id) : [];
  return {
    ...base,
    disputes: disputes.map((d) => ({
      id: d.id,
      valueCentavos: d.valueCentavos,
      natureza: d.natureza,
      status: d.status,
      debited: d.debitedAt !== null,
      at: (d.returnedAt ?? d.createdAt).toISOString(),
    })),
    events: eventRows.map((e) => ({ ...e, at: e.at.toISOString() })),
    deliveries: deliveryRows.map((d) => ({ ...d, at: d.at.toISOString() })),
    canSimulate: env().PAYMENTS_MODE === "sandbox" && base.payment !== null,
  };
}
