import { eq, sql } from "drizzle-orm";
import type { Executor, Tx } from "@/db";
import { recipientLedgerEntries, recipients, type Recipient } from "@/db/schema";

// A recipient's balance is an account on the merchant's ledger, apart from the merchant's
// own: recipients.balance_centavos always equals the sum of its recipient_ledger_entries, because the
// entry and the balance move in one statement, and an entry is unique per (kind, ref_type, ref_id) so
// a split part (ref = its order_splits row) is credited once however often the payment is confirmed.
// Unlike the merchant's, a recipient's balance has no CHECK ≥ 0: a refund or MED return taken back
// pro rata may leave it negative until later credits cover it (what the statement then shows).

export type RecipientPosting = {
  merchantId: string;
  recipientId: string;
  kind: string;
  amountCentavos: number;
  refType: string;
  refId: string;
  description?: string;
};

/** Appends one entry and moves the recipient's balance by it; false when that (kind, ref) was posted. */
export async function postRecipientEntry(tx: Tx, p: RecipientPosting): Promise<boolean> {
  const rows = await tx.execute(sql`
    with entry as (
      insert into recipient_ledger_entries (merchant_id, recipient_id, kind, amount_centavos, ref_type, ref_id, description)
      values (${p.merchantId}, ${p.recipientId}, ${p.kind}, ${p.amountCentavos}, ${p.refType}, ${p.refId}, ${p.description ?? null})
      on conflict do nothing
      returning recipient_id, amount_centavos
    )
    update recipients r set balance_centavos = r.balance_centavos + entry.amount_centavos, updated_at = now()
    from entry where r.id = entry.recipient_id and r.merchant_id = ${p.merchantId}
    returning r.id`);
  return rows.length > 0;
}

/** The merchant's recipient, or null for an unknown id or another merchant's (answered alike: 404). */
export async function recipientOf(ex: Executor, merchantId: string, id: string): Promise<Recipient | null> {
  // By id alone, the merchant checked on the row, like lockRecipient (./queries.ts).
  const [row] = await ex.select().from(recipients).where(eq(recipients.id, id));
  return row?.merchantId === merchantId ? row : null;
}

/** The recipient's ledger sum, which its balance must equal (tests compare them). */
export async function recipientLedgerSum(ex: Executor, recipientId: string): Promise<number> {
  const [row] = await ex
    .select({ n: sql<string>`coalesce(sum(${recipientLedgerEntries.amountCentavos}), 0)` })
    .from(recipientLedgerEntries)
    .where(eq(recipientLedgerEntries.recipientId, recipientId));
  return Number(row.n);
}
