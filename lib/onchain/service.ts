import { db, type Executor, type Tx } from "@/db";
import type { MerchantProfile, OnchainOrder } from "@/db/schema";
import { newPaymentLinkId } from "@/lib/ids";
import { allocateDepositAddress } from "@/lib/chain/addresses";
import { ALL_NETWORKS, belowMinimum, minimumDeposit, resolveToken } from "@/lib/chain/networks";
import { recordTransfer, type IncomingTransfer, noteTransferUse, recordStrayTransfer } from "@/lib/chain/transfers";
import type { StrayReason } from "@/lib/chain-watcher/receiver";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { InvalidInput, NotFound } from "@/lib/errors";
import { recordEvent } from "@/lib/events/outbox";
import { bindIdempotencyKey } from "@/lib/idempotency-binding";
import { postLedgerEntry } from "@/lib/ledger/ledger";
import { centavosForCrypto, cryptoAdd, cryptoCompare, cryptoDueFor, cryptoMin, cryptoSub } from "@/lib/money";
import { providers } from "@/lib/providers";
import {
  addUnapplied,
  closeAtExpiry,
  depositById,
  depositByLink,
  expiredOpenIds,
  insertDeposit,
  lockDeposit,
  lockExpiredOpen,
  merchantDepositById,
  recordReceived,
} from "./queries";
import type { CreateDepositInput } from "./schemas";
import { depositView } from "./views";
import { requireRail } from "@/lib/providers/rails";
import type { OrderMaker } from "@/lib/order-maker";
import type { SplitView } from "@/lib/splits/schemas";
import { checkSplits, creditSplits, depositSplitViews, insertSplits } from "@/lib/splits/service";

/** `maker`: who makes it on a payer's behalf (a payment link's sale), as for orders (lib/orders/service.ts). */
export async function createDeposit(
  merchant: MerchantProfile,
  input: CreateDepositInput,
  maker?: OrderMaker,
): Promise<OnchainOrder> {
  requireRail("onchain");
  const { network, asset, token } = resolveToken(String(input.network ?? ""), String(input.asset ?? ""), ALL_NETWORKS, {
    networkExtra: () => ({ supportedNetworks: [...ALL_NETWORKS] }),
  });
  const quote = await providers().rates.quote(asset);
  const amount = cryptoDueFor(input.value, quote.rate);
  if (belowMinimum(amount, network)) {
    const min = minimumDeposit(network);
    throw new InvalidInput(
      `Computed crypto value is invalid: ${amount} ${asset} is below the minimum deposit of ${min} ${asset} on ${network}`,
      {
        code: "amount.belowMinimum",
        values: { min, asset, network },
      },
    );
  }
  await checkSplits(db(), merchant.id, input.splits ?? [], input.value);
  return db().transaction(async (tx) => {
    const insert = () => insertNewDeposit(tx, merchant, input, { network, asset, token, amount, quote });
    return maker ? maker.record(tx, "onchain", insert) : insert();
  });
}

async function insertNewDeposit(
  tx: Tx,
  merchant: MerchantProfile,
  input: CreateDepositInput,
  d: {
    network: string;
    asset: string;
    token: { address: string; decimals: number };
    amount: string;
    quote: { rate: string; source: string; at: Date };
  },
): Promise<OnchainOrder> {
  const { network, asset, token, amount, quote } = d;
  const { walletIndex, address } = await allocateDepositAddress(tx, "onchain_order");
  const order = await insertDeposit(tx, {
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
    metadata: input.metadata ?? {},
    splitCount: input.splits?.length ?? 0,
  });
  await insertSplits(tx, { onchainOrderId: order.id }, order.merchantId, input.splits ?? [], order.valueCentavos);
  await bindIdempotencyKey(tx, { type: "onchain_order", id: order.id });
  return order;
}

export async function findDeposit(merchantId: string, paymentLinkId: string): Promise<OnchainOrder> {
  // Anything that cannot be a payment link id is simply not found (a NUL byte would otherwise reach
  // PostgreSQL, which refuses it with an error that surfaced as a 500).
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(paymentLinkId)) throw new NotFound("On-chain order not found");
  const row = await depositByLink(db(), merchantId, paymentLinkId);
  if (!row) throw new NotFound("On-chain order not found");
  return depositExpiredOnRead(row);
}

/** One of the merchant's deposits by its id (a UUID), as it stands; null when there is none. */
export async function findDepositById(merchantId: string, id: string): Promise<OnchainOrder | null> {
  const row = await merchantDepositById(db(), merchantId, id);
  return row ? depositExpiredOnRead(row) : null;
}

/** The deposit as it stands: an open one past its expiry is closed first, since the sweep may not have run yet. */
export async function depositExpiredOnRead(order: OnchainOrder): Promise<OnchainOrder> {
  if (order.closedAt || order.expiresAt.getTime() >= Date.now()) return order;
  await expireDeposits([order.id]);
  return (await depositById(db(), order.id))!;
}

/** The deposit's split as every merchant view shows it; [] (and no query) for a deposit without one. */
export function splitsOfDeposit(ex: Executor, o: OnchainOrder): Promise<SplitView[]> {
  return depositSplitViews(ex, o);
}

async function emit(tx: Tx, o: OnchainOrder, previousStatus: string) {
  await recordEvent(tx, {
    merchantId: o.merchantId,
    type: "onchain.deposit.status_changed",
    subjectType: "onchain_order",
    subjectId: o.id,
    data: { ...depositView(o, await splitsOfDeposit(tx, o)), previousStatus },
  });
}

/**
 * A deposit's credit, in the transaction that made it final (once: behind its row lock and closedAt):
 * a split deposit's parts are shares of the BRL accepted as payment (`credited`), the merchant gets the rest.
 */
async function creditDeposit(
  tx: Tx,
  o: OnchainOrder,
  credited: number,
  kind: "deposit_credit" | "partial_deposit_credit",
  description: string,
) {
  const merchantPart = await creditSplits(tx, { onchainOrderId: o.id }, o, credited, "onchain");
  if (merchantPart <= 0) return;
  await postLedgerEntry(tx, {
    merchantId: o.merchantId,
    kind,
    amountCentavos: merchantPart,
    refType: "onchain_order",
    refId: o.id,
    description,
  });
}

/**
 * Closes an expired, still-open deposit in the caller's transaction: nothing received → FAILED;
 * partially paid → stays PARTIAL_ORDER, becomes final, and is credited what arrived at the locked
 * rate, rounded down to the centavo (docs/api.md#states-expiry-and-money).
 */
async function closeExpired(tx: Tx, o: OnchainOrder): Promise<OnchainOrder> {
  const partial = o.status === "PARTIAL_ORDER";
  const credit = partial ? centavosForCrypto(o.receivedAmount, o.rate) : 0;
  const after = await closeAtExpiry(tx, o.id, {
    status: partial ? "PARTIAL_ORDER" : "FAILED",
    creditedCentavos: credit,
  });
  if (!after) return o;
  if (credit > 0)
    await creditDeposit(tx, o, credit, "partial_deposit_credit", `partial deposit ${o.paymentLinkId} closed at expiry`);
  await emit(tx, after, o.status);
  return after;
}

/**
 * Open deposits past their expiry by payment time (on a network with a node: once the watcher has
 * read past it), each closed in its own transaction, so one that fails is logged and the others go on.
 */
export async function expireDeposits(ids?: string[], batch = 500): Promise<number> {
  let closed = 0;
  for (const id of await expiredOpenIds(db(), ids, batch)) {
    try {
      const done = await db().transaction(async (tx) => {
        const o = await lockExpiredOpen(tx, id);
        if (!o) return false;
        await closeExpired(tx, o);
        return true;
      });
      if (done) closed++;
    } catch (err) {
      log.error("deposit expiry failed for one order; the next sweep tries again", { orderId: id, err });
    }
  }
  return closed;
}

export type ApplyResult = { order: OnchainOrder; duplicate: boolean; applied: string; unapplied: string };

/**
 * Applies one confirmed token transfer to a deposit order, once, judged by its payment time (its
 * block's timestamp). Enough in total → COMPLETED and credited; less → PARTIAL_ORDER. Money beyond
 * what is due, or paid after the order's expiry or finality, is kept as unapplied funds with an
 * event: never dropped, never credited twice.
 */
export async function applyDepositTransfer(orderId: string, transfer: IncomingTransfer): Promise<ApplyResult> {
  return db().transaction(async (tx) => {
    let order = await lockDeposit(tx, orderId);
    if (!order) throw new NotFound("On-chain order not found");
    const paidAt = transfer.blockTime ?? new Date();
    const transferId = await recordTransfer(tx, {
      ...transfer,
      blockTime: paidAt,
      ownerKind: "onchain_order",
      ownerId: order.id,
    });
    if (!transferId) return { order, duplicate: true, applied: "0", unapplied: "0" };
    // A transfer made through the sandbox's API: its Idempotency-Key, if any, is bound to it.
    await bindIdempotencyKey(tx, { type: "chain_transfer", id: transferId });

    // Paid after the expiry: the order closes at its expiry first, as the sweep would have closed it.
    if (!order.closedAt && paidAt.getTime() > order.expiresAt.getTime()) order = await closeExpired(tx, order);

    const remaining = order.closedAt ? "0" : cryptoSub(order.cryptoAmount, order.receivedAmount);
    const applied = cryptoCompare(remaining, "0") > 0 ? cryptoMin(transfer.amount, remaining) : "0";
    const unapplied = cryptoSub(transfer.amount, applied);
    const received = cryptoAdd(order.receivedAmount, applied);
    const complete = cryptoCompare(applied, "0") > 0 && cryptoCompare(received, order.cryptoAmount) >= 0;

    let after = order;
    if (cryptoCompare(applied, "0") > 0) {
      after = await recordReceived(tx, order, received, complete);
      if (complete)
        await creditDeposit(tx, order, order.valueCentavos, "deposit_credit", `deposit ${order.paymentLinkId}`);
      await emit(tx, after, order.status);
    }
    if (cryptoCompare(unapplied, "0") > 0) {
      after = await addUnapplied(tx, order, cryptoAdd(after.unappliedAmount, unapplied));
      await noteTransferUse(tx, transferId, {
        applied,
        unapplied,
        note: order.closedAt ? "arrived after the order was final" : "overpayment",
      });
      await recordEvent(tx, {
        merchantId: order.merchantId,
        type: "onchain.deposit.funds_unapplied",
        subjectType: "onchain_order",
        subjectId: order.id,
        data: {
          ...depositView(after, await splitsOfDeposit(tx, after)),
          unappliedAmount: Number(unapplied),
          txHash: transfer.txHash,
          reason: order.closedAt ? "after_final" : "overpayment",
        },
      });
    } else {
      await noteTransferUse(tx, transferId, { applied });
    }
    return { order: after, duplicate: false, applied, unapplied };
  });
}

/**
 * A transfer to the order's address of another token, or on another network: recorded with an
 * event and shown to the merchant, never applied. False when it had been recorded before.
 */
export async function recordStrayDeposit(
  orderId: string,
  transfer: IncomingTransfer,
  reason: StrayReason,
): Promise<boolean> {
  return db().transaction(async (tx) => {
    const order = await lockDeposit(tx, orderId);
    if (!order) throw new NotFound("On-chain order not found");
    const owner = { kind: "onchain_order" as const, id: order.id, network: order.network, asset: order.asset };
    if (!(await recordStrayTransfer(tx, transfer, owner, reason))) return false;
    await recordEvent(tx, {
      merchantId: order.merchantId,
      type: "onchain.deposit.funds_unapplied",
      subjectType: "onchain_order",
      subjectId: order.id,
      data: {
        ...depositView(order, await splitsOfDeposit(tx, order)),
        unappliedAmount: Number(transfer.amount),
        txHash: transfer.txHash,
        reason,
        transferNetwork: transfer.network,
        transferToken: transfer.tokenAddress,
      },
    });
    return true;
  });
}
