import { eq } from "drizzle-orm";
import { db } from "@/db";
import { merchants, onchainOrders, orders } from "@/db/schema";
import { paymentLink, qrCodeLink } from "@/lib/links";
import { NotFound } from "@/lib/errors";
import { depositTransferUri } from "@/lib/chain/payment-uri";
import { centavosToBrl, cryptoToNumber, Decimal } from "@/lib/money";
import type { Asset, Network } from "@/lib/chain/tokens";
import { expireDeposits } from "@/lib/onchain/service";
import { expireOrders } from "@/lib/orders/service";
import type { PublicPayment } from "./schemas";

export type { PublicPayment } from "./schemas";

/**
 * What a payer may see of one payment, by its payment link id: amount, method, how to pay, status
 * and expiry. Nothing private to the merchant (no ids, references, customer data or balance).
 */
export async function publicPayment(paymentLinkId: string): Promise<PublicPayment> {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(paymentLinkId)) throw new NotFound("Payment not found");
  const [o] = await db()
    .select({ order: orders, merchantName: merchants.companyName })
    .from(orders)
    .innerJoin(merchants, eq(merchants.id, orders.merchantId))
    .where(eq(orders.paymentLinkId, paymentLinkId));
  if (o) {
    let order = o.order;
    if (order.status === "PENDING" && order.expiresAt && order.expiresAt.getTime() < Date.now()) {
      await expireOrders([order.id]);
      [order] = await db().select().from(orders).where(eq(orders.id, order.id));
    }
    const base = {
      paymentLinkId,
      merchantName: o.merchantName,
      method: order.kind,
      status: order.status,
      value: centavosToBrl(order.valueCentavos),
      currency: "BRL" as const,
      createdAt: order.createdAt.toISOString(),
      expiresAt: order.expiresAt ? order.expiresAt.toISOString() : null,
      paidAt: order.paidAt ? order.paidAt.toISOString() : null,
      link: paymentLink(paymentLinkId),
    };
    // Re-stating `method` narrows it for the type without moving it: a key that is already there keeps its place.
    if (order.kind === "pix") return { ...base, method: "pix", payment: { brcode: order.brcode!, qrContent: order.brcode! } };
    if (order.kind === "lightning") {
      return {
        ...base,
        method: "lightning",
        payment: { invoice: order.invoice!, satoshis: order.satoshis!, qrContent: `lightning:${order.invoice!.toUpperCase()}` },
      };
    }
    return { ...base, method: "exchange", payment: { qrCodeLink: qrCodeLink(paymentLinkId), qrContent: paymentLink(paymentLinkId) } };
  }
  const [d] = await db()
    .select({ order: onchainOrders, merchantName: merchants.companyName })
    .from(onchainOrders)
    .innerJoin(merchants, eq(merchants.id, onchainOrders.merchantId))
    .where(eq(onchainOrders.paymentLinkId, paymentLinkId));
  if (!d) throw new NotFound("Payment not found");
  let dep = d.order;
  if (!dep.closedAt && dep.expiresAt.getTime() < Date.now()) {
    await expireDeposits([dep.id]);
    [dep] = await db().select().from(onchainOrders).where(eq(onchainOrders.id, dep.id));
  }
  // Exact decimals (CONTRACT §5): float subtraction would show a payer 8.518519000000001.
  const remaining = cryptoToNumber(Decimal.max(0, new Decimal(dep.cryptoAmount).minus(dep.receivedAmount)).toFixed());
  const uri = depositTransferUri(dep);
  return {
    paymentLinkId,
    merchantName: d.merchantName,
    method: "onchain" as const,
    status: dep.status,
    value: centavosToBrl(dep.valueCentavos),
    currency: "BRL",
    createdAt: dep.createdAt.toISOString(),
    expiresAt: dep.expiresAt.toISOString(),
    paidAt: dep.completedAt ? dep.completedAt.toISOString() : null,
    link: paymentLink(paymentLinkId),
    payment: {
      address: dep.address,
      network: dep.network as Network,
      asset: dep.asset as Asset,
      tokenAddress: dep.tokenAddress,
      amount: cryptoToNumber(dep.cryptoAmount),
      received: cryptoToNumber(dep.receivedAmount),
      remaining,
      qrContent: uri,
    },
  };
}
