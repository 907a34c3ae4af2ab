import type { Order, OrderRefund } from "@/db/schema";
import { paymentLink, qrCodeLink } from "@/lib/links";
import { centavosToBrl } from "@/lib/money";
import type { SplitView } from "@/lib/splits/schemas";
import type { ExchangeOrderView, LightningOrderView, OrderView, PixOrderView, RefundView } from "./schemas";

// `splits`: the order's parts as lib/splits shows them (splitsOfOrder), [] for an order without a split.

/** The generic lookup view (docs/api.md#endpoints). Kind-specific fields are omitted for other kinds, never null. */
export function orderView(o: Order, splits: SplitView[]): OrderView {
  return {
    id: o.id,
    paymentLinkId: o.paymentLinkId,
    type: o.kind,
    value: centavosToBrl(o.valueCentavos),
    status: o.status,
    createdAt: o.createdAt.toISOString(),
    ...(o.kind === "pix" ? { brcode: o.brcode! } : {}),
    ...(o.kind === "exchange" ? { qrCodeLink: o.payLinks?.qrcodeLink ?? qrCodeLink(o.paymentLinkId) } : {}),
    ...(o.kind === "lightning" ? { invoice: o.invoice!, satoshis: o.satoshis! } : {}),
    link: paymentLink(o.paymentLinkId),
    ...(o.expiresAt ? { expiresAt: o.expiresAt.toISOString() } : {}),
    ...(o.paidAt ? { paidAt: o.paidAt.toISOString() } : {}),
    reference: o.reference,
    metadata: o.metadata,
    splits,
  };
}

/** The PIX creation view (`pixOrder`), in the provider's document style. */
export function pixOrderView(o: Order, splits: SplitView[]): PixOrderView {
  return {
    provider: o.provider,
    hash: o.hash,
    merchant: o.merchantId,
    value: centavosToBrl(o.valueCentavos),
    status: o.status,
    currency: "BRL",
    universalUrl: paymentLink(o.paymentLinkId),
    removedAt: null,
    _id: o.id,
    paymentLinkId: o.paymentLinkId,
    splits,
    createdAt: o.createdAt.toISOString(),
    updatedAt: o.updatedAt.toISOString(),
    __v: o.version,
    ...(o.expiresAt ? { expiresAt: o.expiresAt.toISOString() } : {}),
    reference: o.reference,
    metadata: o.metadata,
  };
}

/** The fields exchange-wallet and Lightning creation views share. */
function createdOrderBase(o: Order, splits: SplitView[]) {
  return {
    id: o.id,
    paymentLinkId: o.paymentLinkId,
    value: centavosToBrl(o.valueCentavos),
    status: o.status,
    link: paymentLink(o.paymentLinkId),
    createdAt: o.createdAt.toISOString(),
    ...(o.expiresAt ? { expiresAt: o.expiresAt.toISOString() } : {}),
    reference: o.reference,
    metadata: o.metadata,
    splits,
  };
}

/** The exchange-wallet creation view. */
export function exchangeOrderView(o: Order, splits: SplitView[]): ExchangeOrderView {
  // The provider's own QR image where it gave one (Binance Pay's qrcodeLink), else ours.
  return { ...createdOrderBase(o, splits), qrCodeLink: o.payLinks?.qrcodeLink ?? qrCodeLink(o.paymentLinkId) };
}

/** The Lightning creation view; `satoshis` is the exact amount to pay (docs/api.md#amounts). */
export function lightningOrderView(o: Order, splits: SplitView[]): LightningOrderView {
  return { ...createdOrderBase(o, splits), invoice: o.invoice!, satoshis: o.satoshis! };
}

/** A refund as its 201, the order lookup and its events show it (docs/api.md#refunds). */
export function refundView(r: OrderRefund): RefundView {
  return {
    id: r.id,
    orderId: r.orderId,
    value: centavosToBrl(r.valueCentavos),
    status: r.status,
    createdAt: r.createdAt.toISOString(),
    metadata: r.metadata,
  };
}
