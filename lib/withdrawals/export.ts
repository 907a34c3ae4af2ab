import { and, asc, eq, sql } from "drizzle-orm";
import type { Executor } from "@/db";
import { withdrawals, type Withdrawal } from "@/db/schema";
import { saoPauloDayRange } from "@/lib/day-range";

/**
 * A merchant's withdrawals created within São Paulo days (inclusive), oldest first, in keyset pages of
 * `pageSize` on (created_at, id): what the CSV export streams.
 */
export async function* withdrawalPages(
  ex: Executor,
  f: { merchantId: string; from?: string; to?: string },
  pageSize = 1000,
): AsyncGenerator<Withdrawal[]> {
  let after: { at: Date; id: string } | null = null;
  for (;;) {
    const rows: Withdrawal[] = await ex
      .select()
      .from(withdrawals)
      .where(
        and(
          eq(withdrawals.merchantId, f.merchantId),
          saoPauloDayRange(withdrawals.createdAt, f.from, f.to),
          after
            ? sql`(${withdrawals.createdAt}, ${withdrawals.id}) > (${after.at.toISOString()}::timestamptz, ${after.id}::uuid)`
            : undefined,
        ),
      )
      .orderBy(asc(withdrawals.createdAt), asc(withdrawals.id))
      .limit(pageSize);
    if (rows.length > 0) yield rows;
    if (rows.length < pageSize) return;
    const last = rows[rows.length - 1];
    after = { at: last.createdAt, id: last.id };
  }
}
