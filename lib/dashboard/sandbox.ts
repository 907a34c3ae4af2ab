import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { db } from "@/db";
import { cryptoPixPayments, onchainOrders, orders } from "@/db/schema";
import { applyCryptoPixTransfer, settleCryptoPixPayment } from "@/lib/crypto-pix/service";
import { env } from "@/lib/env";
import { Conflict, NotFound } from "@/lib/errors";
import { Decimal } from "@/lib/money";
import { applyDepositTransfer } from "@/lib/onchain/service";
import { completeOrder, findOrder } from "@/lib/orders/service";
import { SANDBOX_PAYER_ADDRESS } from "@/lib/sandbox/handlers";

// The dashboard's "simulate payment" (sandbox only): the same service calls the sandbox API helpers
// make (CONTRACT §8), so a simulated payment credits, emits events and sends webhooks like a real one.

function fullTransfer(target: { network: string; address: string; tokenAddress: string; cryptoAmount: string; receivedAmount: string }) {
  const amount = Decimal.max(0, new Decimal(target.cryptoAmount).minus(target.receivedAmount));
  if (!amount.gt(0)) throw new Conflict("Nothing is left to pay on this order");
  return {
    network: target.network,
    txHash: `0x${randomBytes(32).toString("hex")}`,
    logIndex: 0,
    fromAddress: SANDBOX_PAYER_ADDRESS,
    toAddress: target.address,
    tokenAddress: target.tokenAddress,
    amount: amount.toFixed(),
  };
}

/** Pays what is still due on one of the merchant's orders, whatever its kind. */
export async function simulatePayment(merchantId: string, id: string): Promise<void> {
  if (env().PAYMENTS_MODE !== "sandbox") throw new NotFound("Order not found");
  const [order] = await db().select({ id: orders.id }).from(orders).where(and(eq(orders.merchantId, merchantId), eq(orders.id, id)));
  if (order) {
    const found = await findOrder(merchantId, id);
    await completeOrder(found.id);
    return;
  }
  const [dep] = await db().select().from(onchainOrders).where(and(eq(onchainOrders.merchantId, merchantId), eq(onchainOrders.id, id)));
  if (dep) {
    await applyDepositTransfer(dep.id, fullTransfer(dep));
    return;
  }
  const [pay] = await db().select().from(cryptoPixPayments).where(and(eq(cryptoPixPayments.merchantId, merchantId), eq(cryptoPixPayments.id, id)));
  if (pay) {
    const result = await applyCryptoPixTransfer(pay.id, fullTransfer(pay));
    if (result.fullyPaid) await settleCryptoPixPayment(pay.id);
    return;
  }
  throw new NotFound("Order not found");
}
