import "server-only";
import { sql } from "drizzle-orm";
import { z } from "zod";
import { onReadReplica } from "@/db/replica";
import { isStorableText } from "@/lib/storable-text";
import { isCalendarDay } from "@/lib/dashboard/days";
import { merchantOrders } from "@/lib/orders/every-order";
import { ORDER_LIST_TYPES } from "@/lib/orders/list";
import { orderSearchCondition, parseOrderSearch } from "@/lib/orders/search";
import { orderNaming, type OrderTitle } from "@/lib/orders/title";

// The dashboard's order list: every kind in one UNION like GET /api/v1/orders, plus what a person
// filters by (São Paulo calendar days, search by reference, partial id or amount: lib/orders/search.ts) and page
// numbers. Always scoped to one merchant in each branch of the UNION.

export const ORDER_STATUS_FILTERS = [
  "PENDING",
  "COMPLETED",
  "PARTIAL_ORDER",
  "CANCELLED",
  "FAILED",
  "REFUND",
  "REFUNDED",
] as const;
export const PAGE_SIZE = 20;
export type OrderListKind = (typeof ORDER_LIST_TYPES)[number];

const day = z.string().refine(isCalendarDay);

/** Query parameters holding text PostgreSQL cannot store (NUL) are dropped, like any other malformed filter. */
const storableOnly = (input: unknown) =>
  input && typeof input === "object"
    ? Object.fromEntries(
        Object.entries(input).filter(([k, v]) => isStorableText(k) && (typeof v !== "string" || isStorableText(v))),
      )
    : input;

/** Query-string filters; anything malformed is dropped rather than failing the page. */
export const dashboardOrdersQuery = z.preprocess(
  storableOnly,
  z.object({
    kind: z.enum(ORDER_LIST_TYPES).optional().catch(undefined),
    status: z.enum(ORDER_STATUS_FILTERS).optional().catch(undefined),
    from: day.optional().catch(undefined),
    to: day.optional().catch(undefined),
    q: z
      .string()
      .trim()
      .max(100)
      .optional()
      .catch(undefined)
      .transform((s) => (s ? s : undefined)),
    page: z.coerce.number().int().min(1).max(10_000).catch(1).default(1),
    limit: z.coerce.number().int().min(1).max(100).catch(PAGE_SIZE).default(PAGE_SIZE),
  }),
);
export type DashboardOrdersQuery = Partial<Omit<z.output<typeof dashboardOrdersQuery>, "page" | "limit">> & {
  page: number;
  limit: number;
};

export type OrderRow = {
  id: string;
  kind: OrderListKind;
  paymentLinkId: string | null;
  status: string;
  valueCentavos: number;
  createdAt: string;
  /** What the merchant knows the order by (lib/orders/title.ts), and its customer when the title is not already the customer. */
  title: OrderTitle;
  customer: string | null;
};

type Raw = {
  id: string;
  kind: OrderListKind;
  payment_link_id: string | null;
  status: string;
  value_centavos: string;
  created_at: Date | string;
  reference: Record<string, string> | null;
};

export async function listDashboardOrders(
  merchantId: string,
  q: DashboardOrdersQuery,
): Promise<{ orders: OrderRow[]; page: number; hasNext: boolean }> {
  const search = q.q ? orderSearchCondition(parseOrderSearch(q.q)) : undefined;
  if (q.q && !search) return { orders: [], page: q.page, hasNext: false };
  const localDay = sql`(created_at at time zone 'America/Sao_Paulo')::date`;
  // A list, not a decision: the replica when one is close enough (db/replica.ts).
  const rows = await onReadReplica((ex) =>
    ex.execute<Raw>(sql`
    select id, type as kind, payment_link_id, status, value_centavos, created_at, reference from ${merchantOrders(merchantId)}
    where true
      ${q.kind ? sql`and type = ${q.kind}` : sql``}
      ${q.status ? sql`and status = ${q.status}` : sql``}
      ${q.from ? sql`and ${localDay} >= ${q.from}::date` : sql``}
      ${q.to ? sql`and ${localDay} <= ${q.to}::date` : sql``}
      ${search ? sql`and ${search}` : sql``}
    order by created_at desc, id desc
    limit ${q.limit + 1} offset ${(q.page - 1) * q.limit}`),
  );
  return {
    orders: rows.slice(0, q.limit).map((r) => {
      const valueCentavos = Number(r.value_centavos);
      const naming = orderNaming({
        id: r.id,
        kind: r.kind,
        paymentLinkId: r.payment_link_id,
        valueCentavos,
        reference: r.reference,
      });
      return {
        id: r.id,
        kind: r.kind,
        paymentLinkId: r.payment_link_id,
        status: r.status,
        valueCentavos,
        createdAt: new Date(r.created_at).toISOString(),
        ...naming,
      };
    }),
    page: q.page,
    hasNext: rows.length > q.limit,
  };
}

/** PENDING orders of the kinds a sandbox helper can pay, newest first (Developers page). */
export async function pendingOrders(merchantId: string, limit = 10): Promise<OrderRow[]> {
  const { orders } = await listDashboardOrders(merchantId, { status: "PENDING", page: 1, limit });
  return orders;
}
