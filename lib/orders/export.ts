import { sql } from "drizzle-orm";
import type { Executor } from "@/db";
import { saoPauloDayRange } from "@/lib/day-range";
import type { OrderListType } from "./schemas";

// Every kind of order as one row shape for the CSV export: BRL and crypto amounts, the fixed rate,
// the payer's transaction(s) and the client's references. Read like merchantOrders (lib/orders/list.ts):
// the merchant filter on the UNION lets PostgreSQL merge each table's (merchant_id, created_at, id)
// index in order, so each page is a short index range.

export type OrderExportRow = {
  id: string;
  type: OrderListType;
  status: string;
  createdAt: Date;
  paidAt: Date | null;
  valueCentavos: number;
  paymentLinkId: string | null;
  reference: Record<string, string>;
  /** What the payer was asked to send, in `asset` (BTC for Lightning). */
  cryptoAmount: string | null;
  receivedAmount: string | null;
  asset: string | null;
  network: string | null;
  /** BRL per unit of `asset`, fixed at creation. */
  rate: string | null;
  rateSource: string | null;
  address: string | null;
  txHashes: string | null;
};

type Raw = {
  id: string;
  type: OrderListType;
  status: string;
  created_at: string;
  paid_at: string | null;
  value_centavos: string;
  payment_link_id: string | null;
  reference: Record<string, string> | null;
  crypto_amount: string | null;
  received_amount: string | null;
  asset: string | null;
  network: string | null;
  rate: string | null;
  rate_source: string | null;
  address: string | null;
  tx_hashes: string | null;
};

const transfersOf = sql.raw("(select string_agg(t.tx_hash, ' ' order by t.created_at) from chain_transfers t where t.owner_id = o.id)");

export async function* orderExportPages(ex: Executor, f: { merchantId: string; from?: string; to?: string }, pageSize = 1000): AsyncGenerator<OrderExportRow[]> {
  let after: { at: string; id: string } | null = null;
  for (;;) {
    const rows: Raw[] = await ex.execute<Raw>(sql`
      select id, type, status, created_at, paid_at, value_centavos, payment_link_id, reference, crypto_amount, received_amount,
             asset, network, rate, rate_source, address, tx_hashes
      from (
        select o.merchant_id, o.id, o.kind as type, o.status, o.created_at, o.paid_at, o.value_centavos, o.payment_link_id, o.reference,
               case when o.kind = 'lightning' then (o.satoshis::numeric / 100000000)::text end as crypto_amount, null as received_amount,
               case when o.kind = 'lightning' then 'BTC' end as asset, case when o.kind = 'lightning' then 'lightning' end as network,
               o.rate::text as rate, o.rate_source, null as address, null as tx_hashes
        from orders o
        union all
        select o.merchant_id, o.id, 'onchain', o.status, o.created_at, o.completed_at, o.value_centavos, o.payment_link_id, null,
               o.crypto_amount::text, o.received_amount::text, o.asset, o.network, o.rate::text, o.rate_source, o.address, ${transfersOf}
        from onchain_orders o
        union all
        select o.merchant_id, o.id, 'crypto_pix', o.status, o.created_at, o.paid_at, o.value_centavos, null,
               jsonb_build_object('recipientName', o.recipient_name, 'pixKey', o.pix_key),
               o.crypto_amount::text, o.received_amount::text, o.asset, o.network, o.rate::text, o.rate_source, o.address,
               coalesce(o.tx_hash, ${transfersOf})
        from crypto_pix_payments o
      ) every_order
      where merchant_id = ${f.merchantId}
        ${saoPauloDayRange(sql`created_at`, f.from, f.to) ? sql`and ${saoPauloDayRange(sql`created_at`, f.from, f.to)}` : sql``}
        ${after ? sql`and (created_at, id) > (${after.at}::timestamptz, ${after.id}::uuid)` : sql``}
      order by created_at, id
      limit ${pageSize}`);
    if (rows.length > 0) {
      yield rows.map((r) => ({
        id: r.id,
        type: r.type,
        status: r.status,
        createdAt: new Date(r.created_at),
        paidAt: r.paid_at ? new Date(r.paid_at) : null,
        valueCentavos: Number(r.value_centavos),
        paymentLinkId: r.payment_link_id,
        reference: r.reference ?? {},
        cryptoAmount: r.crypto_amount,
        receivedAmount: r.received_amount,
        asset: r.asset,
        network: r.network,
        rate: r.rate,
        rateSource: r.rate_source,
        address: r.address,
        txHashes: r.tx_hashes,
      }));
    }
    if (rows.length < pageSize) return;
    const last = rows[rows.length - 1];
    after = { at: new Date(last.created_at).toISOString(), id: last.id };
  }
}
