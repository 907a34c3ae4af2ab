import "server-only";
import { eq, sql } from "drizzle-orm";
import { db } from "@/db";
import { merchants } from "@/db/schema";
import { shownBalance } from "@/lib/ledger/ledger";
import { heldFunds } from "@/lib/med/holds";
import { saoPauloDay } from "@/lib/money";
import { fillDays, lastDays } from "@/lib/dashboard/days";
import { listDashboardOrders, type OrderRow } from "./orders";
import { subscriptionFigures } from "./subscriptions";

// The overview's figures come from the ledger, the same source as the balance: "received" is every
// credit for a payment (orders, deposits, partial deposits), dated by when it was credited. The kinds
// are counted by FILTER, not in WHERE: with them in WHERE and no statistics, PostgreSQL guessed the
// kinds rare and read every credit of every merchant through the (kind, ref) index.

const RECEIVED_KINDS = sql`('order_credit', 'deposit_credit', 'partial_deposit_credit', 'unapplied_credit')`;
const DAYS = 30;

export type Overview = {
  balanceCentavos: number;
  /** Held out of the balance for open MED infractions, soonest deadline first (lib/med/holds.ts). */
  held: { orderId: string; valueCentavos: number; deadline: string }[];
  today: { centavos: number; count: number };
  days: { day: string; centavos: number; count: number }[];
  latest: OrderRow[];
  /** Monthly recurring revenue of the ACTIVE subscriptions, and cycles that failed in the last 30 days. */
  subscriptions: { mrrCentavos: number; failedCycles: number; active: number };
};

export async function getOverview(merchantId: string): Promise<Overview> {
  const today = saoPauloDay();
  const days = lastDays(today, DAYS);
  const [[merchant], rows, latest, held, recurring] = await Promise.all([
    db().select({ balance: shownBalance() }).from(merchants).where(eq(merchants.id, merchantId)),
    db().execute<{ day: string; total: string; n: string }>(sql`
      select to_char((created_at at time zone 'America/Sao_Paulo')::date, 'YYYY-MM-DD') as day,
             coalesce(sum(amount_centavos) filter (where kind in ${RECEIVED_KINDS}), 0) as total,
             count(*) filter (where kind in ${RECEIVED_KINDS}) as n
      from ledger_entries
      where merchant_id = ${merchantId} and created_at >= (${days[0]}::date::timestamp at time zone 'America/Sao_Paulo')
      group by 1`),
    listDashboardOrders(merchantId, { page: 1, limit: 5 }),
    heldFunds(merchantId),
    subscriptionFigures(merchantId),
  ]);
  const totals = new Map(rows.map((r) => [r.day, { centavos: Number(r.total), count: Number(r.n) }]));
  const filled = fillDays(days, totals);
  return {
    balanceCentavos: merchant?.balance ?? 0,
    held: held.map((h) => ({ orderId: h.orderId, valueCentavos: h.valueCentavos, deadline: h.deadline.toISOString() })),
    today: filled[filled.length - 1],
    days: filled,
    latest: latest.orders,
    subscriptions: recurring,
  };
}
