import { and, eq } from "drizzle-orm";
import { db } from "@/db";
import { idempotencyKeys, withdrawals } from "@/db/schema";

// What the Idempotency-Key crash tests (tests/idempotency-crash.test.ts, tests/idempotency-commit.test.ts)
// send and read: an on-chain withdrawal, the key's row, and the merchant's withdrawals.

export const ONCHAIN_WITHDRAW = "/api/v1/onchain/withdraw/initiate";
export const onchainWithdrawBody = {
  toAddress: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
  value: 100,
  network: "polygon",
};

/** The key's row, as the request and its retries left it. */
export const idempotencyKeyOf = async (merchantId: string, key: string) =>
  (
    await db()
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.merchantId, merchantId), eq(idempotencyKeys.key, key)))
  )[0];

export const withdrawalsOf = (merchantId: string) =>
  db().select().from(withdrawals).where(eq(withdrawals.merchantId, merchantId));
