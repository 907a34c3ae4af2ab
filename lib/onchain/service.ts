import { and, eq, inArray, isNull, lt, sql } from "drizzle-orm";
import { db, type Tx } from "@/db";
import { chainTransfers, onchainOrders, type MerchantProfile, type OnchainOrder } from "@/db/schema";
import { newPaymentLinkId } from "@/lib/ids";
import { allocateDepositAddress } from "@/lib/chain/addresses";
import { ALL_NETWORKS, belowMinimum, minimumDeposit, resolveToken } from "@/lib/chain/networks";
import { recordTransfer, type IncomingTransfer } from "@/lib/chain/transfers";
import { env } from "@/lib/env";
import { InvalidInput, NotFound } from "@/lib/errors";
import { recordEvent } from "@/lib/events/outbox";
import { postLedgerEntry } from "@/lib/ledger/ledger";
import { centavosForCrypto, cryptoAdd, cryptoCompare, cryptoDueFor, cryptoMin, cryptoSub } from "@/lib/money";
import { providers } from "@/lib/providers";
import type { CreateDepositInput } from "./schemas";
import { depositView } from "./views";

export async function createDeposit(merchant: MerchantProfile, input: CreateDepositInput): Promise<OnchainOrder> {
  const { network, asset, token } = resolveToken(String(input.network ?? ""), String(input.asset ?? ""), ALL_NETWORKS, {
    networkExtra: () => ({ supportedNetworks: [...ALL_NETWORKS] }),
  });
  const quote = await providers().rates.quote(asset);
  const amount = cryptoDueFor(input.value, quote.rate);
  if (belowMinimum(amount, network)) {
    throw new InvalidInput(
      `Computed crypto value is invalid: ${amount} ${asset} is below the minimum deposit of ${minimumDeposit(network)} ${asset} on ${network}`,
    );
  }
  return db().transaction(async (tx) => {
    const { walletIndex, address } = await allocateDepositAddress(tx, "onchain_order");
    const [order] = await tx
      .insert(onchainOrders)
      .values({
        merchantId: merchant.id,
        paymentLinkId: newPaymentLinkId(),
        network,
        asset,
        tokenAddress: token.address,
        tokenDecimals: token.decimals,
        address,
        walletIndex,
        valueCentavos: input.value,
        cryptoAmount: amount,
        rate: quote.rate,
        rateSource: quote.source,
        rateAt: quote.at,
        expiresAt: new Date(Date.now() + env().EXPIRY_ONCHAIN_SECONDS * 1000),
      })
      .returning();
    return order;
  });
}

export async function findDeposit(merchantId: string, paymentLinkId: string): Promise<OnchainOrder> {
  // Anything that cannot be a payment link id is simply not found (a NUL byte would otherwise reach
  // PostgreSQL, which refuses it with an error that surfaced as a 500).
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(paymentLinkId)) throw new NotFound("On-chain order not found");
  const [row] = await db()
    .select()
    .from(onchainOrders)
    .where(and(eq(onchainOrders.merchantId, merchantId), eq(onchainOrders.paymentLinkId, paymentLinkId)))
    .limit(1);
  if (!row) throw new NotFound("On-chain order not found");
  if (!row.closedAt && row.expiresAt.getTime() < Date.now()) {
    await expireDeposits([row.id]);
    return (await db().select().from(onchainOrders).where(eq(onchainOrders.id, row.id)))[0];
  }
  return row;
}

async function emit(tx: Tx, o: OnchainOrder, previousStatus: string) {
  await recordEvent(tx, {
    merchantId: o.merchantId,
    type: "onchain.deposit.status_changed",
    subjectType: "onchain_order",
    subjectId: o.id,
    data: { ...depositView(o), previousStatus },
  });
}

/**
 * Closes an expired, still-open deposit in the caller's transaction: nothing received → FAILED;
 * partially paid → stays PARTIAL_ORDER, becomes final, and is credited what arrived at the locked
 * rate, rounded down to the centavo (CONTRACT §6).
 */
async function closeExpired(tx: Tx, o: OnchainOrder): Promise<OnchainOrder> {
  const partial = o.status === "PARTIAL_ORDER";
  const credit = partial ? centavosForCrypto(o.receivedAmount, o.rate) : 0;
  const [after] = await tx
    .update(onchainOrders)
    .set({
      status: partial ? "PARTIAL_ORDER" : "FAILED",
      closedAt: sql`now()`,
      creditedCentavos: credit,
      updatedAt: sql`now()`,
    })
    .where(and(eq(onchainOrders.id, o.id), isNull(onchainOrders.closedAt), sql`${onchainOrders.status} in ('PENDING', 'PARTIAL_ORDER')`))
    .returning();
  if (!after) return o;
  if (credit > 0) {
    await postLedgerEntry(tx, {
      merchantId: o.merchantId,
      kind: "partial_deposit_credit",
      amountCentavos: credit,
      refType: "onchain_order",
      refId: o.id,
      description: `partial deposit ${o.paymentLinkId} closed at expiry`,
    });
  }
  await emit(tx, after, o.status);
  return after;
}

export async function expireDeposits(ids?: string[], batch = 500): Promise<number> {
  return db().transaction(async (tx) => {
    const due = await tx
      .select()
      .from(onchainOrders)
      .where(
        and(
          isNull(onchainOrders.closedAt),
          lt(onchainOrders.expiresAt, sql`now()`),
          ids ? inArray(onchainOrders.id, ids) : undefined,
        ),
      )
      .limit(batch)
      .for("update", { skipLocked: true });
    for (const o of due) await closeExpired(tx, o);
    return due.length;
  });
}

export type ApplyResult = { order: OnchainOrder; duplicate: boolean; applied: string; unapplied: string };

/**
 * Applies one confirmed token transfer to a deposit order, once. Enough in total → COMPLETED and
 * credited; less → PARTIAL_ORDER. Money beyond what is due, or arriving after the order is final,
 * is kept as unapplied funds with an event: never dropped, never credited twice.
 */
export async function applyDepositTransfer(orderId: string, transfer: IncomingTransfer): Promise<ApplyResult> {
  return db().transaction(async (tx) => {
    let [order] = await tx.select().from(onchainOrders).where(eq(onchainOrders.id, orderId)).for("update");
    if (!order) throw new NotFound("On-chain order not found");
    const transferId = await recordTransfer(tx, { ...transfer, ownerKind: "onchain_order", ownerId: order.id });
    if (!transferId) return { order, duplicate: true, applied: "0", unapplied: "0" };

    if (!order.closedAt && order.expiresAt.getTime() < Date.now()) order = await closeExpired(tx, order);

    const remaining = order.closedAt ? "0" : cryptoSub(order.cryptoAmount, order.receivedAmount);
    const applied = cryptoCompare(remaining, "0") > 0 ? cryptoMin(transfer.amount, remaining) : "0";
    const unapplied = cryptoSub(transfer.amount, applied);
    const received = cryptoAdd(order.receivedAmount, applied);
    const complete = cryptoCompare(applied, "0") > 0 && cryptoCompare(received, order.cryptoAmount) >= 0;

    let after = order;
    if (cryptoCompare(applied, "0") > 0) {
      [after] = await tx
        .update(onchainOrders)
        .set({
          receivedAmount: received,
          status: complete ? "COMPLETED" : "PARTIAL_ORDER",
          ...(complete ? { closedAt: sql`now()`, completedAt: sql`now()`, creditedCentavos: order.valueCentavos } : {}),
          updatedAt: sql`now()`,
        })
        .where(and(eq(onchainOrders.id, order.id), isNull(onchainOrders.closedAt)))
        .returning();
      if (complete) {
        await postLedgerEntry(tx, {
          merchantId: order.merchantId,
          kind: "deposit_credit",
          amountCentavos: order.valueCentavos,
          refType: "onchain_order",
          refId: order.id,
          description: `deposit ${order.paymentLinkId}`,
        });
      }
      await emit(tx, after, order.status);
    }
    if (cryptoCompare(unapplied, "0") > 0) {
      [after] = await tx
        .update(onchainOrders)
        .set({ unappliedAmount: cryptoAdd(after.unappliedAmount, unapplied), updatedAt: sql`now()` })
        .where(eq(onchainOrders.id, order.id))
        .returning();
      await tx
        .update(chainTransfers)
        .set({ appliedAmount: applied, unappliedAmount: unapplied, note: order.closedAt ? "arrived after the order was final" : "overpayment" })
        .where(eq(chainTransfers.id, transferId));
      await recordEvent(tx, {
        merchantId: order.merchantId,
        type: "onchain.deposit.funds_unapplied",
        subjectType: "onchain_order",
        subjectId: order.id,
        data: { ...depositView(after), unappliedAmount: Number(unapplied), txHash: transfer.txHash, reason: order.closedAt ? "after_final" : "overpayment" },
      });
    } else {
      await tx.update(chainTransfers).set({ appliedAmount: applied }).where(eq(chainTransfers.id, transferId));
    }
    return { order: after, duplicate: false, applied, unapplied };
  });
}
