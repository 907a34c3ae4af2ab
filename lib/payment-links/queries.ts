import { and, desc, eq, sql } from "drizzle-orm";
import type { Executor } from "@/db";
import { paymentLinks, paymentLinkSales, type PaymentLink, type PaymentLinkSale } from "@/db/schema";
import { keysetBefore } from "@/lib/paging";
import type { ListPaymentLinksQuery, ListSalesQuery } from "./schemas";

// The payment links' SQL, executor first. Every merchant read filters by merchant: a foreign id answers
// like an unknown one.

export type SaleCounts = { paid: number; pending: number };

export async function insertLink(ex: Executor, values: typeof paymentLinks.$inferInsert): Promise<PaymentLink> {
  const [row] = await ex.insert(paymentLinks).values(values).returning();
  return row;
}

export async function merchantLink(ex: Executor, merchantId: string, id: string): Promise<PaymentLink | undefined> {
  const [row] = await ex
    .select()
    .from(paymentLinks)
    .where(and(eq(paymentLinks.id, id), eq(paymentLinks.merchantId, merchantId)));
  return row;
}

export async function linkBySlug(ex: Executor, slug: string): Promise<PaymentLink | undefined> {
  const [row] = await ex.select().from(paymentLinks).where(eq(paymentLinks.slug, slug));
  return row;
}

/** The link's row lock: every sale of it is decided while holding it, so its count is exact. */
export async function lockLink(ex: Executor, id: string): Promise<PaymentLink | undefined> {
  const [row] = await ex.select().from(paymentLinks).where(eq(paymentLinks.id, id)).for("update");
  return row;
}

export async function updateLink(
  ex: Executor,
  merchantId: string,
  id: string,
  set: Partial<typeof paymentLinks.$inferInsert>,
): Promise<PaymentLink | undefined> {
  const [row] = await ex
    .update(paymentLinks)
    .set({ ...set, updatedAt: sql`now()` })
    .where(and(eq(paymentLinks.id, id), eq(paymentLinks.merchantId, merchantId)))
    .returning();
  return row;
}

export function linksPage(ex: Executor, merchantId: string, q: ListPaymentLinksQuery): Promise<PaymentLink[]> {
  return ex
    .select()
    .from(paymentLinks)
    .where(
      and(
        eq(paymentLinks.merchantId, merchantId),
        q.status ? eq(paymentLinks.status, q.status) : undefined,
        q.reference ? eq(paymentLinks.reference, q.reference) : undefined,
        keysetBefore(q.cursor, paymentLinks.createdAt, paymentLinks.id),
      ),
    )
    .orderBy(desc(paymentLinks.createdAt), desc(paymentLinks.id))
    .limit(q.limit + 1);
}

export async function insertSale(ex: Executor, values: typeof paymentLinkSales.$inferInsert): Promise<PaymentLinkSale> {
  const [row] = await ex.insert(paymentLinkSales).values(values).returning();
  return row;
}

// A sale's order as its table keeps it: paid (COMPLETED, or refunded after it was paid; a chain
// deposit closed partial was credited what arrived) or pending (still payable: a PENDING order, until
// the sweep cancels it, or a chain deposit not yet closed).
const SALE_STATE = sql.raw(`
  case
    when s.order_type = 'onchain' then
      case when d.status = 'COMPLETED' or (d.status = 'PARTIAL_ORDER' and d.closed_at is not null) then 'paid'
           when d.closed_at is null then 'pending' end
    else
      case when o.status in ('COMPLETED', 'REFUND') then 'paid' when o.status = 'PENDING' then 'pending' end
  end`);
const SALE_JOINS = sql.raw(`
  left join orders o on s.order_type <> 'onchain' and o.id = s.order_id
  left join onchain_orders d on s.order_type = 'onchain' and d.id = s.order_id`);

/** How many of the link's orders are paid and how many still payable: what the N-payment limit counts. */
export async function saleCounts(ex: Executor, linkId: string): Promise<SaleCounts> {
  const rows = await ex.execute<{ paid: string; pending: string }>(sql`
    select count(*) filter (where state = 'paid') as paid, count(*) filter (where state = 'pending') as pending
    from (select ${SALE_STATE} as state from payment_link_sales s ${SALE_JOINS} where s.link_id = ${linkId}) x`);
  const r = rows[0];
  return { paid: Number(r?.paid ?? 0), pending: Number(r?.pending ?? 0) };
}

/** The same for many links at once (a page of the list). */
export async function saleCountsOf(ex: Executor, linkIds: string[]): Promise<Map<string, SaleCounts>> {
  const out = new Map<string, SaleCounts>();
  if (linkIds.length === 0) return out;
  const rows = await ex.execute<{ link_id: string; paid: string; pending: string }>(sql`
    select link_id, count(*) filter (where state = 'paid') as paid, count(*) filter (where state = 'pending') as pending
    from (select s.link_id, ${SALE_STATE} as state from payment_link_sales s ${SALE_JOINS}
          where s.link_id in (${sql.join(
            linkIds.map((id) => sql`${id}::uuid`),
            sql`, `,
          )})) x
    group by link_id`);
  for (const r of rows) out.set(r.link_id, { paid: Number(r.paid), pending: Number(r.pending) });
  return out;
}

export type SaleRow = {
  sale: PaymentLinkSale;
  paymentLinkId: string;
  status: string;
  paidAt: Date | null;
};

/** A page of the link's sales, newest first, each with its order's state as it stands. */
export async function salesPage(ex: Executor, linkId: string, q: ListSalesQuery): Promise<SaleRow[]> {
  const after = keysetBefore(q.cursor, sql.raw("s.created_at"), sql.raw("s.id"));
  const rows = await ex.execute<{
    id: string;
    link_id: string;
    merchant_id: string;
    order_type: PaymentLinkSale["orderType"];
    order_id: string;
    value_centavos: string;
    quantity: number;
    payer: PaymentLinkSale["payer"];
    link_version: number;
    created_at: string;
    payment_link_id: string;
    status: string;
    paid_at: string | null;
  }>(sql`
    select s.*, coalesce(o.payment_link_id, d.payment_link_id) as payment_link_id,
           coalesce(o.status, d.status) as status, coalesce(o.paid_at, d.completed_at) as paid_at
    from payment_link_sales s ${SALE_JOINS}
    where s.link_id = ${linkId} ${after ? sql`and ${after}` : sql``}
    order by s.created_at desc, s.id desc
    limit ${q.limit + 1}`);
  return rows.map((r) => ({
    sale: {
      id: r.id,
      linkId: r.link_id,
      merchantId: r.merchant_id,
      orderType: r.order_type,
      orderId: r.order_id,
      valueCentavos: Number(r.value_centavos),
      quantity: r.quantity,
      payer: r.payer,
      linkVersion: r.link_version,
      createdAt: new Date(r.created_at),
    },
    paymentLinkId: r.payment_link_id,
    status: r.status,
    paidAt: r.paid_at ? new Date(r.paid_at) : null,
  }));
}
