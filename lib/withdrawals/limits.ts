import { eq, sql } from "drizzle-orm";
import type { Tx } from "@/db";
import { prepared } from "@/db/prepared";
import { merchants, type Merchant } from "@/db/schema";
import { coverDebit, lockBalance, shownBalance } from "@/lib/ledger/ledger";
import { LimitExceeded, NotFound } from "@/lib/errors";
import { formatBrl, saoPauloDay, WITHDRAWAL_LIMITS } from "@/lib/money";

/**
 * Locks the merchant row (folding its unfolded credits into it: lib/ledger), then checks the
 * per-transaction limit, the São Paulo daily limit (every withdrawal of the day that has not failed)
 * and the balance. Holding the lock until commit is what makes 50 simultaneous withdrawals unable to
 * overdraw or pass a limit together; credits arriving meanwhile do not wait for it.
 */
export async function lockAndCheck(tx: Tx, merchantId: string, valueCentavos: number, debitCentavos: number) {
  const balance = await lockBalance(tx, merchantId);
  const day = saoPauloDay();
  const [{ merchant: m, used }] = await tx
    .select({
      merchant: merchants,
      used: sql<string>`(select coalesce(sum(w.value_centavos), 0) from withdrawals w
        where w.merchant_id = merchants.id and w.limit_day = ${day} and w.status <> 'FAILED')`,
    })
    .from(merchants)
    .where(eq(merchants.id, merchantId));
  const limits = WITHDRAWAL_LIMITS[m.accountType];
  const left = limits.daily - Number(used);
  if (valueCentavos > limits.perTransaction) {
    // The message names the limit and what is left (docs/api.md#states-expiry-and-money).
    throw new LimitExceeded(
      `Per-transaction withdrawal limit exceeded: the ${m.accountType} account limit is ${formatBrl(limits.perTransaction)} per withdrawal ` +
        `(${formatBrl(Math.max(0, left))} of the ${formatBrl(limits.daily)} daily limit is left today)`,
      {
        code: "limit.perTransaction",
        values: { limit: limits.perTransaction, left: Math.max(0, left), daily: limits.daily },
      },
    );
  }
  if (valueCentavos > left) {
    throw new LimitExceeded(
      `Daily withdrawal limit exceeded: the ${m.accountType} account limit is ${formatBrl(limits.daily)} per day and ${formatBrl(Math.max(0, left))} is left today`,
      { code: "limit.daily", values: { daily: limits.daily, left: Math.max(0, left) } },
    );
  }
  coverDebit(balance, debitCentavos, "withdrawal");
  // The row as locked, for checks on what it holds (the payout key's hold).
  return { day, merchant: m };
}

function limitsLeft(accountType: Merchant["accountType"], used: number) {
  const limits = WITHDRAWAL_LIMITS[accountType];
  return {
    perTransaction: limits.perTransaction,
    daily: limits.daily,
    usedToday: used,
    remainingToday: Math.max(0, limits.daily - used),
  };
}

/** What a merchant can still withdraw today and per transaction, for forms. */
export async function remainingLimits(m: Pick<Merchant, "id" | "accountType">) {
  const { used } = await balanceAndUsedToday(m.id);
  return limitsLeft(m.accountType, used);
}

/** GET /account: the balance as committed now, and what is left to withdraw, in one round trip. */
export async function balanceAndLimits(m: Pick<Merchant, "id" | "accountType">) {
  const { balanceCentavos, used } = await balanceAndUsedToday(m.id);
  return { balanceCentavos, limits: limitsLeft(m.accountType, used) };
}

async function balanceAndUsedToday(merchantId: string) {
  const [row] = await balanceAndUsedTodayQuery().execute({ merchantId, day: saoPauloDay() });
  if (!row) throw new NotFound("Merchant not found");
  return { balanceCentavos: row.balanceCentavos, used: Number(row.used) };
}

// GET /account runs this on every call: prepared once per pool.
const balanceAndUsedTodayQuery = () =>
  prepared("balance_and_used_today", (d) =>
    d
      .select({
        balanceCentavos: shownBalance(),
        // Spelled out with an alias: Drizzle leaves single-table columns unqualified, and a bare "id"
        // inside the subquery would mean the withdrawal's.
        used: sql<string>`(select coalesce(sum(w.value_centavos), 0) from withdrawals w
          where w.merchant_id = merchants.id and w.limit_day = ${sql.placeholder("day")} and w.status <> 'FAILED')`,
      })
      .from(merchants)
      .where(eq(merchants.id, sql.placeholder("merchantId")))
      .prepare("balance_and_used_today"),
  );
