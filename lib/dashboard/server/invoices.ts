import "server-only";
import { env } from "@/lib/env";
import { NotFound } from "@/lib/errors";
import { INVOICE_STATUSES, type InvoiceStatus } from "@/db/schema";
import { findInvoice, listInvoices } from "@/lib/invoices/service";
import type { InvoiceView, PublicInvoice } from "@/lib/invoice-state/schemas";
import { invoiceView, publicInvoiceView } from "@/lib/invoice-state/views";

// The dashboard's invoices: the API's own views (lib/invoices), the list filtered and paged as
// GET /api/v1/invoices pages it, and one invoice with the payer's view of it beside (what its page says).

export type InvoiceDetail = {
  invoice: InvoiceView;
  /** The payer's view: today, on the due date, after it. */
  shown: PublicInvoice;
  sandbox: boolean;
};

export function dashboardInvoicesQuery(raw: Record<string, string | undefined>) {
  const status = INVOICE_STATUSES.includes(raw.status as InvoiceStatus) ? (raw.status as InvoiceStatus) : undefined;
  const cursor = raw.cursor && raw.cursor.length <= 200 ? raw.cursor : undefined;
  return { status, cursor, limit: 20 };
}

export async function listDashboardInvoices(merchantId: string, q: ReturnType<typeof dashboardInvoicesQuery>) {
  try {
    return await listInvoices(merchantId, q);
  } catch {
    // A cursor that is not one of ours: the first page.
    return listInvoices(merchantId, { ...q, cursor: undefined });
  }
}

/** One of the merchant's invoices, or null (another merchant's id answers like an unknown one). */
export async function getInvoiceDetail(merchantId: string, id: string): Promise<InvoiceDetail | null> {
  try {
    const { invoice, order } = await findInvoice(merchantId, id);
    return {
      invoice: invoiceView(invoice, order),
      shown: publicInvoiceView(invoice),
      sandbox: env().PAYMENTS_MODE === "sandbox",
    };
  } catch (err) {
    if (err instanceof NotFound) return null;
    throw err;
  }
}
