import type { Asset, Network } from "@/lib/chain/tokens";
import type { PaymentLink } from "@/db/schema";
import { publicBaseUrl } from "@/lib/env";
import { paymentLink } from "@/lib/links";
import { centavosToBrl } from "@/lib/money";
import { railEnabled } from "@/lib/providers/rails";
import type { SaleCounts, SaleRow } from "./queries";
import type { PaymentLinkView, PublicPaymentLink, SaleView } from "./schemas";

/** The link's public page, and its QR image. */
export const linkPageUrl = (slug: string) => `${publicBaseUrl()}/pay/link/${slug}`;
export const linkQrUrl = (slug: string) => `${publicBaseUrl()}/api/v1/public/payment-links/${slug}/qr.png`;

export type Availability = { available: boolean; unavailableReason: "paused" | "expired" | "sold_out" | null };

/** Whether a payer can make an order of the link now: paused first, then its date, then its count. */
export function availability(link: PaymentLink, counts: SaleCounts, now = Date.now()): Availability {
  if (link.status === "PAUSED") return { available: false, unavailableReason: "paused" };
  if (link.availableUntil && link.availableUntil.getTime() <= now)
    return { available: false, unavailableReason: "expired" };
  if (link.maxPayments !== null && counts.paid + counts.pending >= link.maxPayments)
    return { available: false, unavailableReason: "sold_out" };
  return { available: true, unavailableReason: null };
}

const brlOrNull = (c: number | null) => (c === null ? null : centavosToBrl(c));
const onchainOf = (link: PaymentLink) => link.onchainOptions as { network: Network; asset: Asset }[];

export function paymentLinkView(link: PaymentLink, counts: SaleCounts): PaymentLinkView {
  return {
    id: link.id,
    url: linkPageUrl(link.slug),
    qrCodeLink: linkQrUrl(link.slug),
    status: link.status,
    ...availability(link, counts),
    title: link.title,
    description: link.description,
    imageUrl: link.imageUrl,
    price: brlOrNull(link.priceCentavos),
    minAmount: brlOrNull(link.minCentavos),
    maxAmount: brlOrNull(link.maxCentavos),
    maxQuantity: link.maxQuantity,
    rails: link.rails,
    onchain: onchainOf(link),
    payerFields: link.payerFields,
    availableUntil: link.availableUntil?.toISOString() ?? null,
    maxPayments: link.maxPayments,
    payments: counts,
    reference: link.reference,
    metadata: link.metadata,
    version: link.version,
    createdAt: link.createdAt.toISOString(),
    updatedAt: link.updatedAt.toISOString(),
  };
}

/** What a payer sees: nothing of the merchant's own (reference, metadata, counts); only rails this server has on. */
export function publicLinkView(link: PaymentLink, counts: SaleCounts, merchantName: string): PublicPaymentLink {
  const rails = link.rails.filter((r) => railEnabled(r));
  return {
    slug: link.slug,
    merchantName,
    title: link.title,
    description: link.description,
    imageUrl: link.imageUrl,
    price: brlOrNull(link.priceCentavos),
    minAmount: brlOrNull(link.minCentavos),
    maxAmount: brlOrNull(link.maxCentavos),
    maxQuantity: link.maxQuantity,
    rails,
    onchain: rails.includes("onchain") ? onchainOf(link) : [],
    payerFields: link.payerFields,
    ...availability(link, counts),
  };
}

export function saleView(r: SaleRow): SaleView {
  return {
    orderId: r.sale.orderId,
    paymentLinkId: r.paymentLinkId,
    type: r.sale.orderType,
    status: r.status,
    value: centavosToBrl(r.sale.valueCentavos),
    quantity: r.sale.quantity,
    payer: r.sale.payer as Record<string, string>,
    linkVersion: r.sale.linkVersion,
    link: paymentLink(r.paymentLinkId),
    createdAt: r.sale.createdAt.toISOString(),
    paidAt: r.paidAt?.toISOString() ?? null,
  };
}
