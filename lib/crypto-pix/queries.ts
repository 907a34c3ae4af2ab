import { and, asc, eq, gt, inArray, isNull, lt, or, sql } from "drizzle-orm";
import type { PgInsertValue, PgUpdateSetSource } from "drizzle-orm/pg-core";
import type { Executor } from "@/db";
import { chainTransfers, cryptoPixPayments, type CryptoPixPayment } from "@/db/schema";

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

export async function merchantPaymentById(ex: Executor, merchantId: string, id: string): Promise<CryptoPixPayment | undefined> {
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

/** Open payments past their expiry that are not fully paid (among `ids` when given), locked; rows another sweeper holds are skipped. */
export function lockExpiredUnpaid(ex: Executor, ids: string[] | undefined, limit: number): Promise<CryptoPixPayment[]> {
  return ex
    .select()
    .from(cryptoPixPayments)
    .where(
      and(
        isNull(cryptoPixPayments.closedAt),
        lt(cryptoPixPayments.expiresAt, sql`now()`),
        sql`${cryptoPixPayments.receivedAmount} < ${cryptoPixPayments.cryptoAmount}`,
        ids ? inArray(cryptoPixPayments.id, ids) : undefined,
      ),
    )
    .limit(limit)
    .for("update", { skipLocked: true });
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

/** Marks a fully paid, open payment's payout as requested, once: undefined when another worker got there first. */
export async function claimPayout(ex: Executor, id: string): Promise<CryptoPixPayment | undefined> {
  const [claimed] = await ex
    .update(cryptoPixPayments)
    .set({ pixPayoutId: "requested", updatedAt: sql`now()` })
    .where(
      and(
        eq(cryptoPixPayments.id, id),
        isNull(cryptoPixPayments.closedAt),
        isNull(cryptoPixPayments.pixPayoutId),
        sql`${cryptoPixPayments.receivedAmount} >= ${cryptoPixPayments.cryptoAmount}`,
      ),
    )
    .returning();
  return claimed;
}

/** Fully paid, open payments whose payout was never requested. */
export async function unsettledPaymentIds(ex: Executor, limit: number): Promise<string[]> {
  const rows = await ex
    .select({ id: cryptoPixPayments.id })
    .from(cryptoPixPayments)
    .where(and(isNull(cryptoPixPayments.closedAt), isNull(cryptoPixPayments.pixPayoutId), sql`${cryptoPixPayments.receivedAmount} >= ${cryptoPixPayments.cryptoAmount}`))
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

/** Notes on a recorded transfer how much of it counted towards the payment. */
export async function noteTransferUse(ex: Executor, transferId: string, applied: string, unapplied: string): Promise<void> {
  await ex.update(chainTransfers).set({ appliedAmount: applied, unappliedAmount: unapplied }).where(eq(chainTransfers.id, transferId));
}

/** Addresses money may still arrive at on `network`: open payments, and those closed within `lateWindowSeconds`. */
export function watchedPayments(ex: Executor, network: string, lateWindowSeconds: number) {
  const since = sql`now() - make_interval(secs => ${lateWindowSeconds})`;
  return ex
    .select({ id: cryptoPixPayments.id, address: cryptoPixPayments.address, tokenAddress: cryptoPixPayments.tokenAddress, decimals: cryptoPixPayments.tokenDecimals })
    .from(cryptoPixPayments)
    .where(and(eq(cryptoPixPayments.network, network), or(isNull(cryptoPixPayments.closedAt), gt(cryptoPixPayments.closedAt, since))));
}
