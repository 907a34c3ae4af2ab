"use server";

import { cancelInvoice, createInvoice } from "@/lib/invoices/service";
import { merchantAction } from "@/lib/dashboard/server/merchant-action";
import { NotFound } from "@/lib/errors";
import { payInvoice, sandboxUnavailable } from "@/lib/sandbox/service";
import { INVOICE_DECIMAL_FIELDS, INVOICE_FORM_LABELS, invoiceForm, invoiceIdForm, invoicePayForm } from "../schemas";

// Invoices through the same service calls as POST /api/v1/invoices and its cancel, with the signed-in
// merchant; the sandbox's payment as its API helper makes it.

export const createInvoiceAction = merchantAction(
  invoiceForm,
  async (input, { merchant }) => ({
    redirectTo: `/dashboard/invoices/${(await createInvoice(merchant, input)).invoice.id}`,
  }),
  { decimalFields: INVOICE_DECIMAL_FIELDS, labels: INVOICE_FORM_LABELS, permission: "orders.create" },
);

export const cancelInvoiceAction = merchantAction(
  invoiceIdForm,
  async ({ id }, { merchant }) => {
    await cancelInvoice(merchant.id, id);
    return { data: { id }, message: "invoice.detail.cancelled" as const };
  },
  { permission: "orders.create" },
);

/** Sandbox only: the payer pays on a chosen day, like POST /api/v1/sandbox/invoices/{id}/pay. */
export const simulateInvoicePaymentAction = merchantAction(
  invoicePayForm,
  async ({ id, date }, { merchant }) => {
    if (sandboxUnavailable()) throw new NotFound("Invoice not found");
    await payInvoice(merchant.id, id, date);
    return { data: { id }, message: "invoice.detail.simulated" as const };
  },
  { permission: "orders.create" },
);
