import "server-only";
import { sql } from "drizzle-orm";
import { db } from "@/db";

// The first steps an empty dashboard lists, each read from what the merchant has actually done (never
// a flag the checklist keeps for itself), so a step done through the API or by another member ticks too.

export type FirstStepsState = {
  payoutKey: boolean;
  firstOrder: boolean;
  firstPayment: boolean;
  apiKey: boolean;
  webhook: boolean;
};

/** One round trip: each answer is an EXISTS on an index that leads with merchant_id. */
export async function firstStepsState(merchantId: string, payoutKey: string | null): Promise<FirstStepsState> {
  const [row] = await db().execute<{
    first_order: boolean;
    first_payment: boolean;
    api_key: boolean;
    webhook: boolean;
  }>(sql`
    select
      exists (select 1 from orders where merchant_id = ${merchantId})
        or exists (select 1 from onchain_orders where merchant_id = ${merchantId})
        or exists (select 1 from crypto_pix_payments where merchant_id = ${merchantId}) as first_order,
      exists (select 1 from ledger_entries where merchant_id = ${merchantId} and kind in ('order_credit', 'deposit_credit', 'partial_deposit_credit')) as first_payment,
      exists (select 1 from api_keys where merchant_id = ${merchantId} and revoked_at is null) as api_key,
      exists (select 1 from webhook_endpoints where merchant_id = ${merchantId} and deleted_at is null) as webhook`);
  return {
    payoutKey: Boolean(payoutKey),
    firstOrder: row.first_order,
    firstPayment: row.first_payment,
    apiKey: row.api_key,
    webhook: row.webhook,
  };
}
