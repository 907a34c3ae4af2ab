import "server-only";
import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { db } from "@/db";
import { LEDGER_KINDS, merchants, orderRefunds } from "@/db/schema";
import { isCalendarDay, saoPauloMidnight } from "@/lib/day-range";
import { balanceOf, shownBalance } from "@/lib/ledger/ledger";
import { isUuid } from "@/lib/ids";
import { statementPage, type LedgerKind, type StatementEntry } from "@/lib/ledger/statement";
import { merchantOrders } from "@/lib/orders/every-order";
import type { OrderListType } from "@/lib/orders/schemas";
import { orderNaming } from "@/lib/orders/title";

// The statement page: a page of ledger entries with the balance after each, the balances the chosen
// period opens and closes with, and where each entry came from (an order, a refund's order, a
// withdrawal) so the page can link to it and name the order.

export const STATEMENT_PAGE_SIZE = 50;

const day = z.string().refine(isCalendarDay);

/** Query-string filters; anything malformed is dropped rather than failing the page (like the orders list). */
export const statementQuery = z.object({
  from: day.optional().catch(undefined),
  to: day.optional().catch(undefined),
  kind: z.enum(LEDGER_KINDS).optional().catch(undefined),
  before: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional().catch(undefined),
});
export type StatementQuery = z.output<typeof statementQuery>;

export type StatementLine = {
  id: number;
  kind: LedgerKind;
  amountCentavos: number;
  balanceAfterCentavos: number;
  createdAt: string;
  /**
   * Where it came from, for a link: an order (of any kind, named as the merchant knows it: lib/orders/title.ts)
   * or a withdrawal.
   */
  source:
    ({ type: "order"; id: string } & Partial<OrderNaming>) | { type: "withdrawal"; id: string } | { type: "other" };
};

export type Statement = {
  lines: StatementLine[];
  nextBefore: number | null;
  /** The balance before the period's first entry and after its last (whatever the kind filter). */
  openingCentavos: number | null;
  closingCentavos: number;
};

/**
 * The balance after every entry made before `instant`: the balance now less the entries made since,
 * read in one snapshot. Counted from now rather than summed from the first entry, because the
 * periods people look at are recent: the cost is the entries after `instant`, not the merchant's
 * whole history.
 */
async function balanceBefore(merchantId: string, instant: SQL): Promise<number> {
  const [row] = await db()
    .select({
      balance: sql<string>`${shownBalance()} - coalesce((select sum(e.amount_centavos) from ledger_entries e
        where e.merchant_id = merchants.id and e.created_at >= ${instant}), 0)`,
    })
    .from(merchants)
    .where(eq(merchants.id, merchantId));
  return Number(row?.balance ?? 0);
}

/** How the merchant knows an order, and whether its payment was split (the entry is then the merchant's part only). */
type OrderNaming = ReturnType<typeof orderNaming> & { split: boolean };

/** How the merchant knows each of these orders (of any kind), by id: one read of the page's orders through their primary keys. */
export async function orderNames(merchantId: string, ids: (string | undefined)[]): Promise<Map<string, OrderNaming>> {
  const unique = [...new Set(ids.filter((id): id is string => id !== undefined && isUuid(id)))];
  if (unique.length === 0) return new Map();
  const rows = await db().execute<{
    id: string;
    type: OrderListType;
    payment_link_id: string | null;
    value_centavos: string;
    reference: Record<string, string> | null;
    split_count: number;
  }>(sql`
    select id, type, payment_link_id, value_centavos, reference, split_count from ${merchantOrders(merchantId)}
    where id in (${sql.join(
      unique.map((id) => sql`${id}::uuid`),
      sql`, `,
    )})`);
  return new Map(
    rows.map((r) => [
      r.id,
      {
        ...orderNaming({
          id: r.id,
          kind: r.type,
          paymentLinkId: r.payment_link_id,
          valueCentavos: Number(r.value_centavos),
          reference: r.reference,
        }),
        split: Number(r.split_count) > 0,
      },
    ]),
  );
}

/**
 * Where each entry came from, named as the dashboard names it: the order (a refund's entry: the order
 * it refunded), a withdrawal, or nothing. The statement page and its export read the same.
 */
export async function statementSources(
  merchantId: string,
  entries: Pick<StatementEntry, "refType" | "refId">[],
): Promise<StatementLine["source"][]> {
  const refundIds = entries.filter((e) => e.refType === "refund").map((e) => e.refId);
  const refundOrders = new Map<string, string>();
  if (refundIds.length > 0) {
    const rows = await db()
      .select({ id: orderRefunds.id, orderId: orderRefunds.orderId })
      .from(orderRefunds)
      .where(and(eq(orderRefunds.merchantId, merchantId), inArray(sql`${orderRefunds.id}::text`, refundIds)));
    for (const r of rows) refundOrders.set(r.id, r.orderId);
  }
  const orderIds = entries.map((e) =>
    e.refType === "refund"
      ? refundOrders.get(e.refId)
      : e.refType === "order" || e.refType === "onchain_order"
        ? e.refId
        : undefined,
  );
  const names = await orderNames(merchantId, orderIds);
  return entries.map((e) => {
    const refundOrder = e.refType === "refund" ? refundOrders.get(e.refId) : undefined;
    return e.refType === "order" || e.refType === "onchain_order"
      ? { type: "order", id: e.refId, ...names.get(e.refId) }
      : refundOrder
        ? { type: "order", id: refundOrder, ...names.get(refundOrder) }
        : e.refType === "withdrawal"
          ? { type: "withdrawal", id: e.refId }
          : { type: "other" };
  });
}

export async function getStatement(merchantId: string, q: StatementQuery): Promise<Statement> {
  const filter = { merchantId, from: q.from, to: q.to, kinds: q.kind ? [q.kind] : undefined };
  const [{ entries, nextBefore }, openingCentavos, closingCentavos] = await Promise.all([
    statementPage(db(), filter, { before: q.before, limit: STATEMENT_PAGE_SIZE }),
    q.from ? balanceBefore(merchantId, saoPauloMidnight(q.from)) : Promise.resolve(null),
    q.to ? balanceBefore(merchantId, saoPauloMidnight(q.to, 1)) : balanceOf(db(), merchantId),
  ]);
  const sources = await statementSources(merchantId, entries);
  const lines = entries.map((e, i): StatementLine => {
    const source = sources[i];
    return {
      id: e.id,
      kind: e.kind,
      amountCentavos: e.amountCentavos,
      balanceAfterCentavos: e.balanceAfterCentavos,
      createdAt: e.createdAt.toISOString(),
      source,
    };
  });
  return { lines, nextBefore, openingCentavos, closingCentavos };
}
