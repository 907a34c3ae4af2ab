import { sql } from "drizzle-orm";
import { batched } from "@/db/batch";
import { preparedStatement } from "@/db/prepared";
import { orders, type Order, type PixReceipt } from "@/db/schema";
import { eventCtes } from "@/lib/events/outbox";
import { creditCtes } from "@/lib/ledger/ledger";
import type { ReceivedPix } from "@/lib/providers/pix/types";
import { payableAt } from "./queries";
import { orderCredit, statusChangedEvent } from "./service";

// Received PIX that pay orders their callers have just read (the sandbox's payments), written by ONE
// statement: each order PENDING → COMPLETED, its receipt, its ledger credit and its event with the
// webhook deliveries. A statement is a transaction of its own, so all of it commits or none does, as
// in applyReceivedPix's transaction, but in one round trip where that transaction takes seven (BEGIN,
// lock, receipt, update, credit, event with its deliveries, COMMIT): the round trips, with the pool
// connection held through all of them, are what kept a merchant's payments below half its order
// creations (docs/performance.md, "A sandbox payment in one statement"). It is prepared once per connection: PostgreSQL does not re-plan it per payment.
//
// Payments arriving while earlier ones are in flight go out together in the next statement, as order
// creations do (db/batch.ts): most of a payment's cost in PostgreSQL was per statement, not per row
// (the executor's start over six tables and their indexes and constraints, the commit). A batch that
// fails writes nothing and each of its payments is retried alone, so a duplicate end-to-end id fails
// only its own.
//
// Each order must still be exactly as read: the update matches only its version, so everything known
// from the read (the payment's verdict, the event's data, the credit) still holds when it commits;
// when another change came first, nothing is written for it and its caller takes the locked path. The
// same order twice in one batch is updated once, for one of them; the other finds it changed. The
// credit only ever inserts rows (lib/ledger: no merchant row, no lock), so the balance shown equals
// the ledger sum at every moment here too.

const p = sql.placeholder;

/** As order creations' (lib/orders/queries.ts): two batches in flight leave the pool to the rest. */
export const PAY_BATCH = { concurrency: 2, maxBatch: 16 };

/** One payment's row of the batch (element i of each array), with its column's type. */
const COLUMNS = {
  order_id: "uuid",
  version: "int",
  paid_at: "timestamptz",
  end_to_end_id: "text",
  txid: "text",
  merchant_id: "uuid",
  value_centavos: "bigint",
  source: "text",
  credit_merchant_id: "uuid",
  credit_kind: "text",
  credit_amount: "bigint",
  credit_ref_type: "text",
  credit_ref_id: "text",
  credit_description: "text",
  event_merchant_id: "uuid",
  event_type: "text",
  event_subject_type: "text",
  event_subject_id: "text",
  event_data: "text",
} as const;
type Column = keyof typeof COLUMNS;
const NAMES = Object.keys(COLUMNS) as Column[];

/**
 * The statement for a batch of `rows` payments, prepared once per pool and size. Each order is updated
 * by its own UPDATE, which finds it by primary key (`id =` its element of the array): one UPDATE
 * joining every order to the batch's rows was planned, while the table still looked empty, as one
 * sequential scan of orders, and that generic plan stayed in use at any size (tests/query-plans.test.ts).
 */
const payStatement = (rows: number) =>
  preparedStatement<{ n: string; version: number; updated_at: string }>(`pay_pix_orders_as_read_${rows}`, () => {
    // Every array goes as text[]: postgres.js serialises arrays only of the element types it knows
    // (not uuid or bigint), and PostgreSQL casts each element to its column's type here.
    const arrays = sql.join(
      NAMES.map((name) => sql`${p(name)}::text[]`),
      sql`, `,
    );
    const typed = sql.raw(NAMES.map((name) => `${name}::${COLUMNS[name]} as ${name}`).join(", "));
    const row = (name: Column) => sql.raw(`i.${name}`);
    const each = sql`paid join input i on i.n = paid.n`;
    // The same order twice in a batch: the second UPDATE finds the row already changed by this
    // statement and leaves it, so it is paid once and the other payment finds it changed.
    const updates = Array.from(
      { length: rows },
      (_, k) => sql`
      ${sql.raw(`paid_${k + 1}`)} as (
        update orders set status = 'COMPLETED', paid_at = i.paid_at, version = ${orders.version} + 1, updated_at = now()
        from input i
        where i.n = ${sql.raw(String(k + 1))} and ${orders.id} = (${p("order_id")}::text[])[${sql.raw(String(k + 1))}]::uuid
          and ${orders.version} = i.version and ${payableAt(sql`i.paid_at`)}
        returning ${orders.id}, ${orders.version}, ${orders.updatedAt}, i.n
      ),`,
    );
    const paid = sql.raw(Array.from({ length: rows }, (_, k) => `select * from paid_${k + 1}`).join(" union all "));
    return sql`
      with input as (
        select ${typed}, n from unnest(${arrays}) with ordinality as u(${sql.raw(NAMES.join(", "))}, n)
      ),
      ${sql.join(updates, sql``)}
      paid as (${paid}),
      -- No ON CONFLICT: an end-to-end id recorded before fails the whole statement, so nothing else is written.
      receipt as (
        insert into pix_receipts (end_to_end_id, txid, order_id, merchant_id, value_centavos, paid_at, applied, source)
        select i.end_to_end_id, i.txid, paid.id, i.merchant_id, i.value_centavos, i.paid_at, true, i.source
        from ${each}
      ),
      ${creditCtes(
        {
          merchantId: row("credit_merchant_id"),
          kind: row("credit_kind"),
          amountCentavos: row("credit_amount"),
          refType: row("credit_ref_type"),
          refId: row("credit_ref_id"),
          description: row("credit_description"),
        },
        each,
      )},
      ${eventCtes(
        {
          merchantId: row("event_merchant_id"),
          type: row("event_type"),
          subjectType: row("event_subject_type"),
          subjectId: row("event_subject_id"),
          data: row("event_data"),
        },
        each,
      )}
      select paid.n, paid.version, paid.updated_at, (select count(*) from event_notified) as notified from paid`;
  });

type Payment = { order: Order; pix: ReceivedPix; source: PixReceipt["source"] };
type Paid = { version: number; updatedAt: Date };

/** A payment's element of every array; a literal with every column, so none can be left out and shift the rest. */
function rowOf({ order, pix, source }: Payment): Record<Column, unknown> {
  const after: Order = { ...order, status: "COMPLETED", paidAt: pix.paidAt };
  const credit = orderCredit(after);
  const event = statusChangedEvent(order, after);
  return {
    order_id: order.id,
    version: order.version,
    paid_at: pix.paidAt.toISOString(),
    end_to_end_id: pix.endToEndId,
    txid: pix.txid,
    merchant_id: order.merchantId,
    value_centavos: pix.valueCentavos,
    source,
    credit_merchant_id: credit.merchantId,
    credit_kind: credit.kind,
    credit_amount: credit.amountCentavos,
    credit_ref_type: credit.refType,
    credit_ref_id: credit.refId,
    credit_description: credit.description ?? null,
    event_merchant_id: event.merchantId,
    event_type: event.type,
    event_subject_type: event.subjectType,
    event_subject_id: event.subjectId,
    event_data: JSON.stringify(event.data),
  };
}

/** A batch's payments each get their paid row's version and time, or undefined when nothing was written for them. */
const payBatch = batched(async (payments: Payment[]): Promise<(Paid | undefined)[]> => {
  const elements = payments.map(rowOf);
  const values = Object.fromEntries(NAMES.map((name) => [name, elements.map((e) => e[name])]));
  const rows = await payStatement(payments.length).execute(values);
  const byRow = new Map(rows.map((r) => [Number(r.n), r]));
  return payments.map((_, i) => {
    const r = byRow.get(i + 1);
    return r && { version: r.version, updatedAt: orders.updatedAt.mapFromDriverValue(r.updated_at) as Date };
  });
}, PAY_BATCH);

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
export async function payOrderAsRead(
  order: Order,
  pix: ReceivedPix,
  source: PixReceipt["source"],
): Promise<Order | "duplicate" | undefined> {
  let paid;
  try {
    paid = await payBatch({ order, pix, source });
  } catch (err) {
    if (isDuplicateReceipt(err)) return "duplicate";
    throw err;
  }
  if (!paid) return undefined;
  return { ...order, status: "COMPLETED", paidAt: pix.paidAt, ...paid };
}
