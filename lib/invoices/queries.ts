import { and, asc, desc, eq, inArray, lt, sql } from "drizzle-orm";
import type { Executor } from "@/db";
import { invoiceBatches, invoices, orders, type Invoice, type InvoiceBatch, type Order } from "@/db/schema";
import { keysetBefore } from "@/lib/paging";
import type { ListInvoicesQuery } from "./schemas";

// The invoices' SQL, executor first. Every read is one merchant's: a foreign id answers like an unknown one.

export type InvoiceWithOrder = { invoice: Invoice; order: Order | null };

export async function insertInvoice(ex: Executor, values: typeof invoices.$inferInsert): Promise<Invoice> {
  const [row] = await ex.insert(invoices).values(values).returning();
  return row;
}

export async function merchantInvoice(ex: Executor, merchantId: string, id: string): Promise<InvoiceWithOrder | null> {
  const [row] = await ex
    .select({ invoice: invoices, order: orders })
    .from(invoices)
    .leftJoin(orders, eq(orders.id, invoices.orderId))
    .where(and(eq(invoices.id, id), eq(invoices.merchantId, merchantId)));
  return row ?? null;
}

export async function invoiceOfOrder(ex: Executor, orderId: string): Promise<Invoice | null> {
  const [row] = await ex.select().from(invoices).where(eq(invoices.orderId, orderId));
  return row ?? null;
}

export async function lockInvoice(ex: Executor, id: string): Promise<Invoice | undefined> {
  const [row] = await ex.select().from(invoices).where(eq(invoices.id, id)).for("update");
  return row;
}

/** One page of a merchant's invoices, newest first, with a row more than `limit` when there is a next page. */
export function invoicesPage(ex: Executor, merchantId: string, q: ListInvoicesQuery): Promise<InvoiceWithOrder[]> {
  const after = keysetBefore(q.cursor, invoices.createdAt, invoices.id);
  return ex
    .select({ invoice: invoices, order: orders })
    .from(invoices)
    .leftJoin(orders, eq(orders.id, invoices.orderId))
    .where(
      and(
        eq(invoices.merchantId, merchantId),
        q.status ? eq(invoices.status, q.status) : undefined,
        q.reference ? eq(invoices.reference, q.reference) : undefined,
        q.batchId ? eq(invoices.batchId, q.batchId) : undefined,
        after,
      ),
    )
    .orderBy(desc(invoices.createdAt), desc(invoices.id))
    .limit(q.limit + 1);
}

/** OPEN invoices past their last payable day (among `ids` when given): what the expiry sweep closes. */
export function openPastExpiry(ex: Executor, limit: number, ids?: string[]): Promise<Invoice[]> {
  return ex
    .select()
    .from(invoices)
    .where(
      // A literal, not a parameter: a generic plan can then use the partial index invoices_open_expiry.
      and(
        sql`${invoices.status} = 'OPEN'`,
        lt(invoices.expiresAt, sql`now()`),
        ids ? inArray(invoices.id, ids) : undefined,
      ),
    )
    .orderBy(asc(invoices.expiresAt))
    .limit(limit);
}

export async function insertBatch(ex: Executor, values: typeof invoiceBatches.$inferInsert): Promise<InvoiceBatch> {
  const [row] = await ex.insert(invoiceBatches).values(values).returning();
  return row;
}

export async function merchantBatch(ex: Executor, merchantId: string, id: string): Promise<InvoiceBatch | null> {
  const [row] = await ex
    .select()
    .from(invoiceBatches)
    .where(and(eq(invoiceBatches.id, id), eq(invoiceBatches.merchantId, merchantId)));
  return row ?? null;
}

export function batchInvoices(ex: Executor, batchId: string): Promise<InvoiceWithOrder[]> {
  return ex
    .select({ invoice: invoices, order: orders })
    .from(invoices)
    .leftJoin(orders, eq(orders.id, invoices.orderId))
    .where(eq(invoices.batchId, batchId))
    .orderBy(asc(invoices.batchIndex));
}

export function processingBatches(ex: Executor, limit: number): Promise<InvoiceBatch[]> {
  return (
    ex
      .select()
      .from(invoiceBatches)
      // A literal, so that a generic plan reads the partial index invoice_batches_processing.
      .where(sql`${invoiceBatches.status} = 'PROCESSING'`)
      .orderBy(asc(invoiceBatches.createdAt))
      .limit(limit)
  );
}

/** PROCESSING → DONE once none of its invoices is PROCESSING any more. */
export async function closeBatchIfDone(ex: Executor, batchId: string): Promise<void> {
  await ex
    .update(invoiceBatches)
    .set({ status: "DONE", updatedAt: sql`now()` })
    .where(
      and(
        eq(invoiceBatches.id, batchId),
        eq(invoiceBatches.status, "PROCESSING"),
        sql`not exists (select 1 from ${invoices} where ${invoices.batchId} = ${batchId} and ${invoices.status} = 'PROCESSING')`,
      ),
    );
}

export async function markMailed(ex: Executor, id: string): Promise<void> {
  await ex
    .update(invoices)
    .set({ mailedAt: sql`now()` })
    .where(eq(invoices.id, id));
}
