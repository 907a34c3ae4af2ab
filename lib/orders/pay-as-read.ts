import { sql } from "drizzle-orm";
import { preparedStatement } from "@/db/prepared";
import { orders, type Order, type PixReceipt } from "@/db/schema";
import { eventCtes } from "@/lib/events/outbox";
import { creditCtes } from "@/lib/ledger/ledger";
import type { ReceivedPix } from "@/lib/providers/pix/types";
import { payableAt } from "./queries";
import { orderCredit, statusChangedEvent } from "./service";

// A received PIX that pays an order the caller has just read (the sandbox's payment), written by ONE
// statement: the order PENDING → COMPLETED, its receipt, its ledger credit and its event with the
// webhook deliveries. A statement is a transaction of its own, so all of it commits or none does, as
// in applyReceivedPix's transaction, but in one round trip where that transaction takes seven (BEGIN,
// lock, receipt, update, credit, event with its deliveries, COMMIT): the round trips, with the pool
// connection held through all of them, are what kept a merchant's payments below half its order
// creations (issue 15). It is prepared once per connection: PostgreSQL does not re-plan it per payment.
//
// The order must still be exactly as read: the update matches only its version, so everything known
// from the read (the payment's verdict, the event's data, the credit) still holds when it commits;
// when another change came first, nothing is written and the caller takes the locked path. The
// credit only ever inserts rows (lib/ledger: no merchant row, no lock), so the balance shown equals
// the ledger sum at every moment here too.

const p = sql.placeholder;

const payStatement = () =>
  preparedStatement<{ version: number; updated_at: string }>("pay_pix_order_as_read", () => {
    const paid = sql`paid`;
    return sql`
      with paid as (
        update orders set status = 'COMPLETED', paid_at = ${p("paidAt")}, version = version + 1, updated_at = now()
        where ${orders.id} = ${p("orderId")} and ${orders.version} = ${p("version")} and ${payableAt(p("paidAt"))}
        returning id, version, updated_at
      ),
      -- No ON CONFLICT: an end-to-end id recorded before fails the whole statement, so nothing else is written.
      receipt as (
        insert into pix_receipts (end_to_end_id, txid, order_id, merchant_id, value_centavos, paid_at, applied, source)
        select ${p("endToEndId")}, ${p("txid")}, paid.id, ${p("merchantId")}, ${p("valueCentavos")}, ${p("paidAt")}, true, ${p("source")}
        from paid
      ),
      ${creditCtes(
        {
          merchantId: p("creditMerchantId"),
          kind: p("creditKind"),
          amountCentavos: p("creditAmount"),
          refType: p("creditRefType"),
          refId: p("creditRefId"),
          description: p("creditDescription"),
        },
        paid,
      )},
      ${eventCtes(
        { merchantId: p("eventMerchantId"), type: p("eventType"), subjectType: p("eventSubjectType"), subjectId: p("eventSubjectId"), data: p("eventData") },
        paid,
      )}
      select paid.version, paid.updated_at, (select count(*) from event_notified) as notified from paid`;
  });

/** The unique violation a receipt's end-to-end id recorded before raises. */
function isDuplicateReceipt(err: unknown): boolean {
  const e = err as { code?: string; constraint_name?: string };
  return e.code === "23505" && e.constraint_name === "pix_receipts_pkey";
}

/**
 * Pays `order`, as read, with `pix` (which the caller judged to pay it: its txid, its value, within
 * its expiry). Returns the paid order; "duplicate" when the end-to-end id was recorded before;
 * undefined when the order changed since it was read. Only the paid order has anything written.
 */
export async function payOrderAsRead(order: Order, pix: ReceivedPix, source: PixReceipt["source"]): Promise<Order | "duplicate" | undefined> {
  // What the row becomes, but for the two columns PostgreSQL decides (read back below).
  const after: Order = { ...order, status: "COMPLETED", paidAt: pix.paidAt };
  const credit = orderCredit(after);
  const event = statusChangedEvent(order, after);
  let rows;
  try {
    rows = await payStatement().execute({
      orderId: order.id,
      version: order.version,
      merchantId: order.merchantId,
      // Bare parameters reach postgres.js untyped: the time goes as ISO text for PostgreSQL to parse.
      paidAt: pix.paidAt.toISOString(),
      endToEndId: pix.endToEndId,
      txid: pix.txid,
      valueCentavos: pix.valueCentavos,
      source,
      creditMerchantId: credit.merchantId,
      creditKind: credit.kind,
      creditAmount: credit.amountCentavos,
      creditRefType: credit.refType,
      creditRefId: credit.refId,
      creditDescription: credit.description ?? null,
      eventMerchantId: event.merchantId,
      eventType: event.type,
      eventSubjectType: event.subjectType,
      eventSubjectId: event.subjectId,
      eventData: JSON.stringify(event.data),
    });
  } catch (err) {
    if (isDuplicateReceipt(err)) return "duplicate";
    throw err;
  }
  if (rows.length === 0) return undefined;
  return { ...after, version: rows[0].version, updatedAt: orders.updatedAt.mapFromDriverValue(rows[0].updated_at) as Date };
}
