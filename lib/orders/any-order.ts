import { db } from "@/db";
import type { CryptoPixPayment, OnchainOrder, Order } from "@/db/schema";
import { merchantPaymentById } from "@/lib/crypto-pix/queries";
import { paymentExpiredOnRead } from "@/lib/crypto-pix/service";
import { isUuid } from "@/lib/ids";
import { depositByLink, merchantDepositById } from "@/lib/onchain/queries";
import { depositExpiredOnRead } from "@/lib/onchain/service";
import { merchantOrderById, merchantOrderByLink, orderByLink } from "./queries";
import { expiredOnRead } from "./service";

// An order of any kind (PIX, exchange wallet, Lightning, on-chain deposit, Crypto-PIX), as it stands
// now: whoever holds an id or a payment link id and does not know the kind (the dashboard's order
// page, its "simulate payment", the payer's checkout) looks it up here, by each table's primary key or
// unique index. Lists, search and the export read every kind as one relation instead (./every-order.ts).

export type AnyOrder =
  | { kind: "order"; order: Order }
  | { kind: "onchain"; order: OnchainOrder }
  | { kind: "crypto_pix"; order: CryptoPixPayment };

/** One of the merchant's orders by id (UUID) or payment link id; null when it has none. */
export async function findAnyOrder(merchantId: string, idOrLink: string): Promise<AnyOrder | null> {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(idOrLink)) return null;
  if (isUuid(idOrLink)) {
    const id = idOrLink.toLowerCase();
    const order = await merchantOrderById(merchantId, id);
    if (order) return { kind: "order", order: await expiredOnRead(order) };
    const deposit = await merchantDepositById(db(), merchantId, id);
    if (deposit) return { kind: "onchain", order: await depositExpiredOnRead(deposit) };
    const payment = await merchantPaymentById(db(), merchantId, id);
    return payment ? { kind: "crypto_pix", order: await paymentExpiredOnRead(payment) } : null;
  }
  return byLink(await merchantOrderByLink(merchantId, idOrLink), () => depositByLink(db(), merchantId, idOrLink));
}

/** Any merchant's order by its payment link id: what a payer's link opens (Crypto-PIX has none). */
export async function findOrderByPaymentLink(
  paymentLinkId: string,
): Promise<Exclude<AnyOrder, { kind: "crypto_pix" }> | null> {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(paymentLinkId)) return null;
  return byLink(await orderByLink(db(), paymentLinkId), () => depositByLink(db(), null, paymentLinkId));
}

async function byLink(order: Order | undefined, deposit: () => Promise<OnchainOrder | undefined>) {
  if (order) return { kind: "order" as const, order: await expiredOnRead(order) };
  const d = await deposit();
  return d ? { kind: "onchain" as const, order: await depositExpiredOnRead(d) } : null;
}
