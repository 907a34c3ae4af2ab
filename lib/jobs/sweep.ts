import { and, isNull, sql } from "drizzle-orm";
import { db } from "@/db";
import { cryptoPixPayments } from "@/db/schema";
import { expireCryptoPixPayments, settleCryptoPixPayment } from "@/lib/crypto-pix/service";
import { purgeExpiredIdempotencyKeys } from "@/lib/http/idempotency";
import { purgeOldRateLimitWindows } from "@/lib/http/rate-limit";
import { log } from "@/lib/log";
import { expireDeposits } from "@/lib/onchain/service";
import { expireOrders } from "@/lib/orders/service";
import { pendingWithdrawalIds, processWithdrawal } from "@/lib/withdrawals/service";

/**
 * The periodic pass that keeps states true even when a job or a process was lost: expires what is
 * due, settles fully paid Crypto-PIX payments whose payout was never requested, and moves PENDING
 * withdrawals forward. Every step is idempotent and skips rows another instance holds.
 */
export async function runSweep(): Promise<Record<string, number>> {
  const counts = { orders: 0, deposits: 0, cryptoPix: 0, settled: 0, withdrawals: 0 };
  for (let n = -1; n !== 0; ) counts.orders += n = await expireOrders();
  for (let n = -1; n !== 0; ) counts.deposits += n = await expireDeposits();
  for (let n = -1; n !== 0; ) counts.cryptoPix += n = await expireCryptoPixPayments();

  const unsettled = await db()
    .select({ id: cryptoPixPayments.id })
    .from(cryptoPixPayments)
    .where(
      and(
        isNull(cryptoPixPayments.closedAt),
        isNull(cryptoPixPayments.pixPayoutId),
        sql`${cryptoPixPayments.receivedAmount} >= ${cryptoPixPayments.cryptoAmount}`,
      ),
    )
    .limit(100);
  for (const { id } of unsettled) {
    await settleCryptoPixPayment(id);
    counts.settled++;
  }
  for (const id of await pendingWithdrawalIds(0)) {
    try {
      if (await processWithdrawal(id)) counts.withdrawals++;
    } catch (err) {
      log.error("withdrawal processing failed in sweep", { withdrawalId: id, err });
    }
  }
  await purgeExpiredIdempotencyKeys();
  await purgeOldRateLimitWindows();
  return counts;
}
