import { and, asc, eq, gt, inArray, isNull, lt, or, sql } from "drizzle-orm";
import type { PgInsertValue, PgUpdateSetSource } from "drizzle-orm/pg-core";
import type { Executor } from "@/db";
import { constant, inConstants } from "@/db/constant";
import {
  chainTransfers,
  cryptoPixInvoices,
  cryptoPixPayments,
  type CryptoPixInvoice,
  type CryptoPixPayment,
} from "@/db/schema";
import { paymentsKnownUntil } from "@/lib/chain/payment-clock";

// The SQL of Crypto-PIX payments, each query taking the executor (the pool or a transaction) first.

type NewPayment = PgInsertValue<typeof cryptoPixPayments>;
type Change = PgUpdateSetSource<typeof cryptoPixPayments>;

export async function insertPayment(ex: Executor, values: NewPayment): Promise<CryptoPixPayment> {
  const [payment] = await ex.insert(cryptoPixPayments).values(values).returning();
  return payment;
}

export async function paymentById(ex: Executor, id: string): Promise<CryptoPixPayment | undefined> {
  const [row] = await ex.select().from(cryptoPixPayments).where(eq(cryptoPixPayments.id, id));
  return row;
}

export async function merchantPaymentById(
  ex: Executor,
  merchantId: string,
  id: string,
): Promise<CryptoPixPayment | undefined> {
  const [row] = await ex
    .select()
    .from(cryptoPixPayments)
    .where(and(eq(cryptoPixPayments.merchantId, merchantId), eq(cryptoPixPayments.id, id)))
    .limit(1);
  return row;
}

/** The payment, locked until the transaction ends. */
export async function lockPayment(ex: Executor, id: string): Promise<CryptoPixPayment | undefined> {
  const [row] = await ex.select().from(cryptoPixPayments).where(eq(cryptoPixPayments.id, id)).for("update");
  return row;
}

const expiredUnpaid = (ids?: string[]) =>
  and(
    isNull(cryptoPixPayments.closedAt),
    // Past its expiry by payment time: on a network with a node, once the watcher has read past it.
    lt(cryptoPixPayments.expiresAt, paymentsKnownUntil(cryptoPixPayments.network)),
    sql`${cryptoPixPayments.receivedAmount} < ${cryptoPixPayments.cryptoAmount}`,
    ids ? inArray(cryptoPixPayments.id, ids) : undefined,
  );

/** Open, not fully paid payments past their expiry (among `ids` when given), oldest first. */
export async function expiredUnpaidIds(ex: Executor, ids: string[] | undefined, limit: number): Promise<string[]> {
  const rows = await ex
    .select({ id: cryptoPixPayments.id })
    .from(cryptoPixPayments)
    .where(expiredUnpaid(ids))
    .orderBy(asc(cryptoPixPayments.expiresAt))
    .limit(limit);
  return rows.map((r) => r.id);
}

/** One of those, locked, if it still is one and no other sweeper holds it. */
export async function lockExpiredUnpaid(ex: Executor, id: string): Promise<CryptoPixPayment | undefined> {
  const [row] = await ex
    .select()
    .from(cryptoPixPayments)
    .where(expiredUnpaid([id]))
    .for("update", { skipLocked: true });
  return row;
}

/** Changes a payment; undefined when nothing matched. */
export async function updatePayment(ex: Executor, id: string, change: Change): Promise<CryptoPixPayment | undefined> {
  const [after] = await ex
    .update(cryptoPixPayments)
    .set({ ...change, updatedAt: sql`now()` })
    .where(eq(cryptoPixPayments.id, id))
    .returning();
  return after;
}

/** Closes a still-open payment with its final fields; undefined when it was already closed. */
export async function closePayment(ex: Executor, id: string, change: Change): Promise<CryptoPixPayment | undefined> {
  const [after] = await ex
    .update(cryptoPixPayments)
    .set({ ...change, closedAt: sql`now()`, updatedAt: sql`now()` })
    .where(and(eq(cryptoPixPayments.id, id), isNull(cryptoPixPayments.closedAt)))
    .returning();
  return after;
}

/** Fully paid, open payments whose payout was never requested. */
export async function unsettledPaymentIds(ex: Executor, limit: number): Promise<string[]> {
  const rows = await ex
    .select({ id: cryptoPixPayments.id })
    .from(cryptoPixPayments)
    .where(
      and(
        isNull(cryptoPixPayments.closedAt),
        isNull(cryptoPixPayments.pixPayoutId),
        sql`${cryptoPixPayments.receivedAmount} >= ${cryptoPixPayments.cryptoAmount}`,
      ),
    )
    .limit(limit);
  return rows.map((r) => r.id);
}

/** Where the first transfer to a payment came from: where a refund goes when the payer named no address. */
export async function firstSender(ex: Executor, paymentId: string): Promise<string | null> {
  const [first] = await ex
    .select({ from: chainTransfers.fromAddress })
    .from(chainTransfers)
    .where(eq(chainTransfers.ownerId, paymentId))
    .orderBy(asc(chainTransfers.createdAt))
    .limit(1);
  return first?.from ?? null;
}

export async function setTransferRefund(
  ex: Executor,
  id: string,
  status: "COMPLETED" | "FAILED",
  note: string,
): Promise<void> {
  await ex.update(chainTransfers).set({ refundStatus: status, note }).where(eq(chainTransfers.id, id));
}

/** Refunds decided and not yet sent: payments (transferId null) and single transfers whose refund has no live transaction. */
export async function refundsToSend(
  ex: Executor,
  paymentId: string | null,
  limit: number,
): Promise<{ paymentId: string; transferId: string | null }[]> {
  const onlyPayment = paymentId ? sql`and p.id = ${paymentId}` : sql``;
  // A refund's transaction is found through its owner, the payment (a transfer's refund has both),
  // by one index probe per refund: "offset 0" keeps each NOT EXISTS a subquery run per row. As an
  // anti-join, the plan made while the tables were small read every hot-wallet transaction each sweep.
  const rows = await ex.execute<{ payment_id: string; transfer_id: string | null }>(sql`
    select p.id as payment_id, null::uuid as transfer_id from crypto_pix_payments p
    where p.refund_status = 'PENDING' ${onlyPayment}
      and not exists (select 1 from chain_txs c where c.owner_id = p.id and c.purpose = 'refund' and c.transfer_id is null and c.status in ('pending', 'confirmed') offset 0)
    union all
    select t.owner_id, t.id from chain_transfers t join crypto_pix_payments p on p.id = t.owner_id
    where t.refund_status = 'PENDING' and t.owner_kind = 'crypto_pix' ${onlyPayment}
      and not exists (select 1 from chain_txs c where c.owner_id = t.owner_id and c.transfer_id = t.id and c.status in ('pending', 'confirmed') offset 0)
    limit ${limit}`);
  return rows.map((r) => ({ paymentId: r.payment_id, transferId: r.transfer_id }));
}

/** Addresses money may still arrive at on `network`: open payments, and those closed within `lateWindowSeconds`. */
export async function watchedPayments(ex: Executor, network: string, lateWindowSeconds: number) {
  const since = sql`now() - make_interval(secs => ${lateWindowSeconds})`;
  const rows = await ex
    .select({
      id: cryptoPixPayments.id,
      address: cryptoPixPayments.address,
      tokenAddress: cryptoPixPayments.tokenAddress,
      decimals: cryptoPixPayments.tokenDecimals,
    })
    .from(cryptoPixPayments)
    .where(
      and(
        eq(cryptoPixPayments.network, network),
        or(isNull(cryptoPixPayments.closedAt), gt(cryptoPixPayments.closedAt, since)),
      ),
    );
  // A chain network's payments all have their token (only Lightning ones have none).
  return rows.flatMap((r) =>
    r.tokenAddress !== null && r.decimals !== null
      ? [{ ...r, tokenAddress: r.tokenAddress, decimals: r.decimals }]
      : [],
  );
}

export async function insertInvoice(ex: Executor, values: PgInsertValue<typeof cryptoPixInvoices>): Promise<void> {
  await ex.insert(cryptoPixInvoices).values(values);
}

export async function lockInvoiceByHash(ex: Executor, paymentHash: string): Promise<CryptoPixInvoice | undefined> {
  const [row] = await ex
    .select()
    .from(cryptoPixInvoices)
    .where(eq(cryptoPixInvoices.paymentHash, paymentHash))
    .for("update");
  return row;
}

export async function invoiceOf(ex: Executor, paymentId: string): Promise<CryptoPixInvoice | undefined> {
  const [row] = await ex.select().from(cryptoPixInvoices).where(eq(cryptoPixInvoices.paymentId, paymentId));
  return row;
}

export async function updateInvoice(
  ex: Executor,
  paymentId: string,
  change: PgUpdateSetSource<typeof cryptoPixInvoices>,
): Promise<void> {
  await ex
    .update(cryptoPixInvoices)
    .set({ ...change, updatedAt: sql`now()` })
    .where(eq(cryptoPixInvoices.paymentId, paymentId));
}

/** Hold invoices with something to do at the node (settle, cancel), oldest first. */
/** Only the given provider's: a node never hears of another's invoices (sandbox ones, or a node replaced). */
export async function invoicesWithAction(ex: Executor, provider: string, limit: number): Promise<CryptoPixInvoice[]> {
  return (
    ex
      .select()
      .from(cryptoPixInvoices)
      // The actions as crypto_pix_invoices_action's predicate names them, so every plan can use it.
      .where(and(inConstants(cryptoPixInvoices.action, ["settle", "cancel"]), eq(cryptoPixInvoices.provider, provider)))
      .orderBy(asc(cryptoPixInvoices.updatedAt))
      .limit(limit)
  );
}

/** Hold invoices of open payments not yet seen paid: what the poll asks the node about. */
export async function openInvoices(ex: Executor, provider: string, limit: number): Promise<CryptoPixInvoice[]> {
  return ex
    .select({ invoice: cryptoPixInvoices })
    .from(cryptoPixInvoices)
    .innerJoin(cryptoPixPayments, eq(cryptoPixPayments.id, cryptoPixInvoices.paymentId))
    .where(
      and(
        eq(cryptoPixInvoices.state, constant("open")),
        eq(cryptoPixInvoices.provider, provider),
        isNull(cryptoPixPayments.closedAt),
      ),
    )
    .orderBy(asc(cryptoPixInvoices.createdAt))
    .limit(limit)
    .then((rows) => rows.map((r) => r.invoice));
}
