import "server-only";
import { db } from "@/db";
import { and, eq, inArray } from "drizzle-orm";
import { recipients, type Order } from "@/db/schema";
import { splitsOf, splitViews, type SplitOwner } from "@/lib/splits/service";
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
  type SplitLine,
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
): Promise<
  (OrderBase & Pick<OrderDetail, "transfers" | "refunds" | "refundable" | "unapplied"> & { split: SplitSource }) | null
> {
  const found = await findAnyOrder(merchantId, id);
  if (!found) return null;
  if (found.kind === "order") {
    const o = found.order;
    const split = {
      owner: { orderId: o.id },
      count: o.splitCount,
      unpaidFinal: o.status === "CANCELLED" || o.status === "FAILED",
    };
    return { ...fromOrder(o), transfers: [], ...(await refundsOf(o)), unapplied: [], split };
  }
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
      split: {
        owner: { onchainOrderId: found.order.id },
        count: found.order.splitCount,
        unpaidFinal: found.order.status === "FAILED",
      },
    };
  const invoice = overLightning(found.order) ? await invoiceOf(db(), found.order.id) : undefined;
  return {
    ...fromCryptoPix(found.order, invoice),
    transfers,
    refunds: [],
    refundable: null,
    unapplied: [],
    split: { owner: { orderId: found.order.id }, count: 0, unpaidFinal: false },
  };
}

/** Where an order's split is kept (lib/splits/service.ts), how many parts it has, and whether it ended unpaid. */
type SplitSource = { owner: SplitOwner; count: number; unpaidFinal: boolean };

/** The split's parts as the API shows them, each with its recipient's name (the merchant's own recipients only). */
async function splitLines(merchantId: string, src: SplitSource): Promise<SplitLine[]> {
  const rows = await splitsOf(db(), src.owner, src.count);
  if (rows.length === 0) return [];
  const names = await db()
    .select({ id: recipients.id, name: recipients.name })
    .from(recipients)
    .where(
      and(
        eq(recipients.merchantId, merchantId),
        inArray(
          recipients.id,
          rows.map((r) => r.recipientId),
        ),
      ),
    );
  const nameOf = new Map(names.map((n) => [n.id, n.name]));
  return splitViews(rows, src.unpaidFinal).map((v) => ({ ...v, recipientName: nameOf.get(v.recipientId) ?? "—" }));
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
  const [disputes, splits] = await Promise.all([
    base.kind === "pix" ? disputesOfOrder(base.id) : [],
    splitLines(merchantId, base.split),
  ]);
  const { split: _split, ...rest } = base;
  return {
    ...rest,
    splits,
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
