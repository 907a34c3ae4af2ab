import { sql } from "drizzle-orm";
import type { Executor } from "@/db";
import { saoPauloDayRange } from "@/lib/day-range";
import { merchantOrders } from "./every-order";
import type { OrderListType } from "./schemas";

// Every kind of order as one row shape for the CSV export: BRL and crypto amounts, the fixed rate,
// the payer's transaction(s) and the client's references, read from the one relation of every kind of
// order (./every-order.ts), whose merchant filter on the UNION lets PostgreSQL merge each table's
// (merchant_id, created_at, id) index in order, so each page is a short index range.

export type OrderExportRow = {
  id: string;
  type: OrderListType;
  status: string;
  createdAt: Date;
  paidAt: Date | null;
  valueCentavos: number;
  paymentLinkId: string | null;
  reference: Record<string, string>;
  /** The merchant's own key-value pairs sent at creation. */
  metadata: Record<string, string>;
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
  metadata: Record<string, string>;
  crypto_amount: string | null;
  received_amount: string | null;
  asset: string | null;
  network: string | null;
  rate: string | null;
  rate_source: string | null;
  address: string | null;
  tx_hashes: string | null;
};

export async function* orderExportPages(
  ex: Executor,
  f: { merchantId: string; from?: string; to?: string },
  pageSize = 1000,
): AsyncGenerator<OrderExportRow[]> {
  let after: { at: string; id: string } | null = null;
  for (;;) {
    const rows: Raw[] = await ex.execute<Raw>(sql`
      select id, type, status, created_at, paid_at, value_centavos, payment_link_id, reference, metadata, crypto_amount, received_amount,
             asset, network, rate, rate_source, address, tx_hashes
      from ${merchantOrders(f.merchantId)}
      where true
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
        metadata: r.metadata,
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
