import { sql } from "drizzle-orm";
import { onReadReplica } from "@/db/replica";
import { keysetBefore, keysetPage } from "@/lib/paging";
import { encodeCryptoPixId } from "@/lib/ids";
import { paymentLink } from "@/lib/links";
import { centavosToBrl } from "@/lib/money";
import { splitsOfDeposits, splitsOfOrders, splitViews } from "@/lib/splits/service";
import { merchantOrders } from "./every-order";
import { orderSearchCondition, parseOrderSearch } from "./search";
import type { AnyOrderStatus, ListOrdersQuery, OrderList, OrderListType } from "./schemas";

// The query and response schemas live with the other order schemas; re-exported for existing importers.
export { ORDER_LIST_TYPES, type ListOrdersQuery } from "./schemas";

const GENERAL_KINDS = new Set<OrderListType>(["pix", "exchange", "lightning"]);

type Row = {
  id: string;
  type: OrderListType;
  payment_link_id: string | null;
  status: AnyOrderStatus;
  value_centavos: string;
  created_at: Date;
  reference: Record<string, string> | null;
  metadata: Record<string, string>;
  split_count: number;
};

/**
 * Every kind of order of one merchant, newest first, as one keyset-paginated list. The three tables
 * are read through one UNION so a page is consistent and the cursor is (created_at, id).
 */
export async function listOrders(merchantId: string, q: ListOrdersQuery): Promise<OrderList> {
  const after = keysetBefore(q.cursor, sql`created_at`, sql`id`);
  const search = q.q ? orderSearchCondition(parseOrderSearch(q.q)) : undefined;
  if (q.q && !search) return { orders: [], nextCursor: null };
  // A list, not a decision: the replica when one is close enough (db/replica.ts).
  const rows = await onReadReplica((ex) =>
    ex.execute<Row>(sql`
    select id, type, payment_link_id, status, value_centavos, created_at, reference, metadata, split_count from ${merchantOrders(merchantId)}
    where true
      ${q.type ? sql`and type = ${q.type}` : sql``}
      ${q.status ? sql`and status = ${q.status}` : sql``}
      ${search ? sql`and ${search}` : sql``}
      ${after ? sql`and ${after}` : sql``}
    order by created_at desc, id desc
    limit ${q.limit + 1}`),
  );
  const { page, nextCursor } = keysetPage([...rows], q.limit, (r) => ({ at: new Date(r.created_at), id: r.id }));
  // Split orders' parts, one query per table that has any on the page.
  const split = page.filter((r) => Number(r.split_count) > 0);
  const [ofOrders, ofDeposits] = await Promise.all([
    onReadReplica((ex) =>
      splitsOfOrders(
        ex,
        split.filter((r) => r.type !== "onchain").map((r) => r.id),
      ),
    ),
    onReadReplica((ex) =>
      splitsOfDeposits(
        ex,
        split.filter((r) => r.type === "onchain").map((r) => r.id),
      ),
    ),
  ]);
  return {
    orders: page.map((r) => ({
      id: r.id,
      type: r.type,
      paymentLinkId: r.payment_link_id,
      status: r.status,
      value: centavosToBrl(Number(r.value_centavos)),
      createdAt: new Date(r.created_at).toISOString(),
      ...(r.payment_link_id ? { link: paymentLink(r.payment_link_id) } : {}),
      // The id GET /api/v1/crypto-pix/order/{id} takes (docs/api.md#identifiers), so a listed payment can be looked up.
      ...(r.type === "crypto_pix" ? { payCryptoPixId: encodeCryptoPixId(r.id) } : {}),
      // The client's references exist only on general orders (a Crypto-PIX row's are its recipient's).
      ...(GENERAL_KINDS.has(r.type) ? { reference: r.reference ?? {} } : {}),
      metadata: r.metadata,
      splits: splitViews(
        (r.type === "onchain" ? ofDeposits : ofOrders).get(r.id) ?? [],
        r.status === "CANCELLED" || r.status === "FAILED",
      ),
    })),
    nextCursor,
  };
}
