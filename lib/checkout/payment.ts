import { db } from "@/db";
import { paymentLink, qrCodeLink } from "@/lib/links";
import { NotFound } from "@/lib/errors";
import { depositTransferUri } from "@/lib/chain/payment-uri";
import { centavosToBrl, cryptoToNumber, Decimal } from "@/lib/money";
import type { Asset, Network } from "@/lib/chain/tokens";
import { merchantById } from "@/lib/merchants/queries";
import { findOrderByPaymentLink } from "@/lib/orders/any-order";
import { disputesOfOrder } from "@/lib/med/returns";
import { refundsOfOrder } from "@/lib/orders/queries";
import { invoiceOfOrder } from "@/lib/invoices/queries";
import { invoiceCode, publicInvoiceView } from "@/lib/invoice-state/views";
import { parseBrCode } from "@/lib/pix/brcode";
import { env } from "@/lib/env";
import { resolutionsOf } from "@/lib/onchain/unapplied-queries";
import type { UnappliedResolution } from "@/db/schema";
import { receiptParts } from "@/lib/splits/service";
import type { PublicPayment } from "./schemas";

export type { PublicPayment } from "./schemas";

/**
 * What a payer may see of one payment, by its payment link id: amount, method, how to pay, status
 * and expiry, what was refunded, and what arrived that the order could not take. Nothing private to
 * the merchant (no ids, references, customer data or balance); of what the merchant sent, only the
 * PIX order's `description`, which is written for the payer.
 */
export async function publicPayment(paymentLinkId: string): Promise<PublicPayment> {
  const found = await findOrderByPaymentLink(paymentLinkId);
  if (!found) throw new NotFound("Payment not found");
  const merchant = await merchantById(db(), found.order.merchantId);
  const merchantName = merchant?.companyName ?? "";
  const link = paymentLink(paymentLinkId);
  // The split only where the merchant chose to show it (Settings); absent otherwise, as from an unsplit order.
  const parts = merchant?.receiptShowsSplits
    ? await receiptParts(
        db(),
        found.kind === "order" ? { orderId: found.order.id } : { onchainOrderId: found.order.id },
        found.order.splitCount,
      )
    : [];
  const splits = parts.length > 0 ? { splits: parts } : {};
  if (found.kind === "order") {
    const order = found.order;
    // Only concluded refunds: a pending one may still fail, and the payer must not be told the money is back.
    const refunds = (await refundsOfOrder(db(), order.id)).filter((r) => r.status === "COMPLETED");
    const refundedCentavos = refunds.reduce((sum, r) => sum + r.valueCentavos, 0);
    const lastRefundAt = refunds
      .map((r) => r.decidedAt ?? r.updatedAt)
      .sort((a, b) => a.getTime() - b.getTime())
      .at(-1);
    const base = {
      paymentLinkId,
      merchantName,
      method: order.kind,
      status: order.status,
      value: centavosToBrl(order.valueCentavos),
      currency: "BRL" as const,
      createdAt: order.createdAt.toISOString(),
      expiresAt: order.expiresAt ? order.expiresAt.toISOString() : null,
      paidAt: order.paidAt ? order.paidAt.toISOString() : null,
      link,
      ...splits,
      ...(refundedCentavos > 0 && lastRefundAt
        ? { refunded: { value: centavosToBrl(refundedCentavos), at: lastRefundAt.toISOString() } }
        : {}),
    };
    // Re-stating `method` narrows it for the type without moving it: a key that is already there keeps its place.
    if (order.kind === "pix") {
      // What the payer's bank took back through the MED: their receipt says so.
      const returned = (await disputesOfOrder(order.id)).filter((d) => d.status === "DEVOLVIDO");
      const total = returned.reduce((sum, d) => sum + d.valueCentavos, 0);
      const at = returned.at(-1)?.returnedAt ?? returned.at(-1)?.updatedAt;
      // An invoice's order: today's amount and code, until the invoice's last payable day.
      const invoice = order.reference.invoiceId ? await invoiceOfOrder(db(), order.id) : null;
      const shown = invoice ? publicInvoiceView(invoice) : null;
      const code = invoice ? (invoiceCode(invoice, order) ?? order.brcode!) : order.brcode!;
      return {
        ...base,
        ...(invoice && shown
          ? {
              value: shown.amountDue?.value ?? base.value,
              expiresAt: invoice.expiresAt.toISOString(),
            }
          : {}),
        method: "pix",
        payment: { brcode: code, qrContent: code, recipientName: recipientNameOf(code) },
        ...(order.reference.description ? { description: order.reference.description } : {}),
        ...(total > 0 && at ? { returned: { value: centavosToBrl(total), at: at.toISOString() } } : {}),
        ...(shown ? { invoice: shown } : {}),
      };
    }
    if (order.kind === "lightning") {
      return {
        ...base,
        method: "lightning",
        payment: {
          invoice: order.invoice!,
          satoshis: order.satoshis!,
          qrContent: `lightning:${order.invoice!.toUpperCase()}`,
        },
      };
    }
    // A provider's own payment (Binance Pay): its QR, checkout page and app link; the sandbox's: this page.
    const links = order.payLinks ?? {};
    return {
      ...base,
      method: "exchange",
      payment: {
        qrCodeLink: links.qrcodeLink ?? qrCodeLink(paymentLinkId),
        qrContent: links.qrContent ?? link,
        ...(links.checkoutUrl ? { checkoutUrl: links.checkoutUrl } : {}),
        ...(links.deeplink ? { deeplink: links.deeplink } : {}),
      },
    };
  }
  const dep = found.order;
  // Exact decimals (docs/api.md#amounts): float subtraction would show a payer 8.518519000000001.
  const remaining = cryptoToNumber(Decimal.max(0, new Decimal(dep.cryptoAmount).minus(dep.receivedAmount)).toFixed());
  return {
    paymentLinkId,
    merchantName,
    method: "onchain" as const,
    status: dep.status,
    value: centavosToBrl(dep.valueCentavos),
    currency: "BRL",
    createdAt: dep.createdAt.toISOString(),
    expiresAt: dep.expiresAt.toISOString(),
    paidAt: dep.completedAt ? dep.completedAt.toISOString() : null,
    link,
    ...splits,
    payment: {
      address: dep.address,
      network: dep.network as Network,
      asset: dep.asset as Asset,
      tokenAddress: dep.tokenAddress,
      amount: cryptoToNumber(dep.cryptoAmount),
      received: cryptoToNumber(dep.receivedAmount),
      remaining,
      unapplied: cryptoToNumber(dep.unappliedAmount),
      unappliedResolutions: new Decimal(dep.unappliedAmount).gt(0)
        ? (await resolutionsOf(db(), dep.id)).map(publicResolution)
        : [],
      qrContent: depositTransferUri(dep),
    },
    final: dep.closedAt !== null,
  };
}

/** Of a resolution, what the payer may know: what became of the money, and the return's transaction once mined (never the address). */
function publicResolution(r: UnappliedResolution) {
  const returned = r.kind === "return";
  return {
    kind: r.kind,
    status: r.status,
    amount: cryptoToNumber(r.amount),
    ...(returned ? { sent: cryptoToNumber(r.sentAmount ?? "0") } : {}),
    ...(returned && r.status === "COMPLETED" && r.txHash ? { txHash: r.txHash } : {}),
  };
}

/** The recipient the payer's bank shows: the name in the code itself (the service's), else the configured one. */
/** The name the payer's bank app shows as the recipient: the BR Code's (the service's), not the shop's. */
export function recipientNameOf(brcode: string): string {
  try {
    return parseBrCode(brcode).merchantName;
  } catch {
    return env().PIX_RECEIVER_NAME;
  }
}
