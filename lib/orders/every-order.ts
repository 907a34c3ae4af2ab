import { sql } from "drizzle-orm";
import { ORDER_SEARCH_TEXT, ORDER_SEARCHABLE } from "@/db/schema";

// Every kind of order (PIX, exchange wallet, Lightning; on-chain deposits; Crypto-PIX payments) as one
// relation, the one place the three tables are put together: the API's and the dashboard's lists, the
// search and the CSV export all read it. Finding one order by id or payment link id is
// ./any-order.ts, which goes to each table's primary key or unique index instead.

const transfersOf = sql.raw(
  "(select string_agg(t.tx_hash, ' ' order by t.created_at) from chain_transfers t where t.owner_id = o.id)",
);

/**
 * Every kind of order of one merchant as one relation `all_orders`, with these columns:
 * - id, type (`orders.kind`, `onchain` or `crypto_pix`), payment_link_id, status, value_centavos, created_at,
 *   paid_at;
 * - reference: the client's references (`orders.reference`; a Crypto-PIX payment's recipient name and PIX key);
 * - metadata: the merchant's own key-value pairs sent at creation (`{}` when none);
 * - split_count: how many parts its split has (order_splits; 0 for Crypto-PIX payments, which have none);
 * - search_text, the expression each table's trigram index is built on, and searchable, that index's
 *   predicate (db/schema/orders.ts ORDER_SEARCH_TEXT, ORDER_SEARCHABLE);
 * - what the export adds: crypto_amount and received_amount (in `asset`, BTC for Lightning), asset,
 *   network, rate, rate_source, address and tx_hashes (the payer's transactions).
 * A query pays only for the columns it reads: PostgreSQL leaves the others out of each branch.
 *
 * The merchant is filtered on the UNION, not inside each branch: only then does PostgreSQL know every
 * branch is one merchant's and read them in (created_at, id) order through their
 * (merchant_id, created_at, id) indexes, merged, stopping after a page (measured on a 1M-order
 * merchant: 0.1 ms instead of 240 ms for the first page). Other conditions are pushed into each branch.
 */
export function merchantOrders(merchantId: string) {
  return sql`(
      select * from (
        select o.merchant_id, o.id, o.kind as type, o.payment_link_id, o.status, o.value_centavos, o.created_at, o.paid_at, o.reference, o.metadata, o.split_count,
               ${ORDER_SEARCH_TEXT.orders} as search_text, ${ORDER_SEARCHABLE.orders} as searchable,
               case when o.kind = 'lightning' then (o.satoshis::numeric / 100000000)::text end as crypto_amount, null as received_amount,
               case when o.kind = 'lightning' then 'BTC' end as asset, case when o.kind = 'lightning' then 'lightning' end as network,
               o.rate::text as rate, o.rate_source, null as address, null as tx_hashes
        from orders o
        union all
        select o.merchant_id, o.id, 'onchain', o.payment_link_id, o.status, o.value_centavos, o.created_at, o.completed_at, null, o.metadata, o.split_count,
               ${ORDER_SEARCH_TEXT.onchain_orders}, ${ORDER_SEARCHABLE.onchain_orders},
               o.crypto_amount::text, o.received_amount::text, o.asset, o.network, o.rate::text, o.rate_source, o.address, ${transfersOf}
        from onchain_orders o
        union all
        select o.merchant_id, o.id, 'crypto_pix', null, o.status, o.value_centavos, o.created_at, o.paid_at,
               jsonb_build_object('recipientName', o.recipient_name, 'pixKey', o.pix_key), o.metadata, 0,
               ${ORDER_SEARCH_TEXT.crypto_pix_payments}, ${ORDER_SEARCHABLE.crypto_pix_payments},
               o.crypto_amount::text, o.received_amount::text, o.asset, o.network, o.rate::text, o.rate_source, o.address,
               coalesce(o.tx_hash, ${transfersOf})
        from crypto_pix_payments o
      ) every_order where merchant_id = ${merchantId}
    ) all_orders`;
}
