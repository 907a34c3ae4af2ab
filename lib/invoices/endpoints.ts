import { merchantKey } from "@/lib/identity/api-keys/callers";
import { defineEndpoint } from "@/lib/http/endpoint";
import { messageBody } from "@/lib/http/error-body";
import { batchExample, invoiceExample, invoicesExample } from "./examples";
import { batchView, createBatch, findBatch } from "./batches";
import {
  batchResponse,
  createBatchBody,
  createInvoiceBody,
  invoiceResponse,
  listInvoicesQuery,
  listInvoicesResponse,
} from "./schemas";
import { cancelInvoice, createInvoice, findInvoice, listInvoices } from "./service";
import { invoiceView } from "@/lib/invoice-state/views";

// Invoices with a due date (docs/api.md#invoices): an API Pix cobv at the PSP, paid through the PIX
// order it owns. Batches (docs/api.md#invoice-batches): API Pix lotecobv, with a result per invoice.

const TAG = "Invoices";

// A due date years ahead: the document (and the SDK's types made from it) must not change with the
// day it is built, and the documented request must stay one the API takes.
const requestExample = {
  value: 150,
  dueDate: "2030-01-10",
  daysAfterDue: 30,
  payer: { name: "Maria Souza", cpf: "529.982.247-25", email: "maria@example.com" },
  fine: { modalidade: 2, percent: 2 },
  interest: { modalidade: 3, percent: 1 },
  discount: { modalidade: 1, dates: [{ date: "2030-01-05", value: 10 }] },
  reference: "contrato-2291/12",
  description: "Mensalidade de dezembro",
  notifyPayer: false,
};

const found = (r: Awaited<ReturnType<typeof findInvoice>>) => ({ invoice: invoiceView(r.invoice, r.order) });

export const createInvoiceEndpoint = defineEndpoint({
  method: "POST",
  path: "/api/v1/invoices",
  caller: merchantKey,
  scope: "payments",
  errorBody: messageBody,
  body: createInvoiceBody,
  response: { status: 201, description: "Invoice created", schema: invoiceResponse, example: invoiceExample },
  docs: {
    summary: "Create an invoice with a due date",
    description:
      "A charge with a due date at the PSP (API Pix cobv): the payer (name, CPF or CNPJ), the value, the due date and the days it can still be paid after it, and optionally a fine, interest, an abatement and discounts, each with the document's `modalidade`. " +
      "`amountDue` is what paying today takes; the payer's page (`link`) and the BR Code show the day's amount. Paid, the invoice's PIX order (`order`) is credited what was paid. " +
      "With `notifyPayer` the payer is e-mailed the link. Refusals of the terms are 400s naming the field.",
    tag: TAG,
    requestExample,
    errors: [400],
    errorExamples: { 400: { message: "dueDate must be today (2026-11-24) or later" } },
  },
  async handle({ merchant, body }) {
    return found(await createInvoice(merchant, body));
  },
  replay: async ({ merchant, resource }) => found(await findInvoice(merchant.id, resource.id)),
});

export const listInvoicesEndpoint = defineEndpoint({
  method: "GET",
  path: "/api/v1/invoices",
  caller: merchantKey,
  scope: "read",
  errorBody: messageBody,
  query: listInvoicesQuery,
  response: { status: 200, description: "A page of invoices", schema: listInvoicesResponse, example: invoicesExample },
  docs: {
    summary: "List invoices",
    description:
      "The merchant's invoices, newest first, keyset-paginated like GET /api/v1/orders: pass `nextCursor` back as `cursor`. Filter by `status`, `reference` or `batchId`.",
    tag: TAG,
    errors: [400],
    errorExamples: { 400: { message: "Invalid cursor" } },
  },
  handle: ({ merchant, query }) => listInvoices(merchant.id, query),
});

export const getInvoiceEndpoint = defineEndpoint({
  method: "GET",
  path: "/api/v1/invoices/{id}",
  caller: merchantKey,
  scope: "read",
  errorBody: messageBody,
  response: { status: 200, description: "The invoice", schema: invoiceResponse, example: invoiceExample },
  docs: {
    summary: "Look up an invoice",
    description: "As it stands: an OPEN invoice past its last payable day is EXPIRED by this read.",
    tag: TAG,
    params: { id: "Invoice id (UUID)" },
    errors: [404],
    errorExamples: { 404: { message: "Invoice not found" } },
  },
  handle: async ({ merchant, params }) => found(await findInvoice(merchant.id, params.id)),
});

export const cancelInvoiceEndpoint = defineEndpoint({
  method: "POST",
  path: "/api/v1/invoices/{id}/cancel",
  caller: merchantKey,
  scope: "payments",
  errorBody: messageBody,
  response: { status: 200, description: "The invoice, CANCELLED", schema: invoiceResponse, example: invoiceExample },
  docs: {
    summary: "Cancel an invoice",
    description:
      "An OPEN invoice's charge is removed at the PSP and its order cancelled. 409 when it is not OPEN, or when the PSP says the payer has already paid (the payment is then applied).",
    tag: TAG,
    params: { id: "Invoice id (UUID)" },
    errors: [404, 409],
    errorExamples: {
      404: { message: "Invoice not found" },
      409: { message: "Invoice is PAID: only an OPEN invoice can be cancelled" },
    },
  },
  handle: async ({ merchant, params }) => found(await cancelInvoice(merchant.id, params.id)),
  replay: async ({ merchant, resource }) => found(await findInvoice(merchant.id, resource.id)),
});

export const createBatchEndpoint = defineEndpoint({
  method: "POST",
  path: "/api/v1/invoices/batches",
  caller: merchantKey,
  scope: "payments",
  errorBody: messageBody,
  body: createBatchBody,
  response: { status: 201, description: "Batch recorded and sent", schema: batchResponse, example: batchExample },
  docs: {
    summary: "Create a batch of invoices",
    description:
      "Up to 100 invoices (the request body's 64 KiB holds about that many), each as POST /api/v1/invoices takes it, sent to the PSP together (API Pix lotecobv). Each is checked on its own: `items` says, at each place of `invoices`, whether it was REFUSED (and why), is PROCESSING at the PSP or was CREATED. " +
      "The PSP makes them one by one; GET /api/v1/invoices/batches/{id} follows them, and each invoice that becomes OPEN or REFUSED sends `invoice.status_changed`.",
    tag: TAG,
    requestExample: {
      description: "Mensalidades de dezembro",
      invoices: [
        requestExample,
        { ...requestExample, payer: { name: "João Lima", cnpj: "11.222.333/0001-81" }, reference: "contrato-2292/12" },
      ],
    },
    errors: [400],
    errorExamples: { 400: { message: "Invalid request: invoices: must have at least one invoice" } },
  },
  async handle({ merchant, body }) {
    return { batch: await batchView(await createBatch(merchant, body)) };
  },
  replay: async ({ merchant, resource }) => ({ batch: await batchView(await findBatch(merchant.id, resource.id)) }),
});

export const getBatchEndpoint = defineEndpoint({
  method: "GET",
  path: "/api/v1/invoices/batches/{id}",
  caller: merchantKey,
  scope: "read",
  errorBody: messageBody,
  response: { status: 200, description: "The batch", schema: batchResponse, example: batchExample },
  docs: {
    summary: "Look up a batch of invoices",
    description:
      "Each invoice of the request at its place: PROCESSING, CREATED (with the invoice) or REFUSED (with why).",
    tag: TAG,
    params: { id: "Batch id (UUID)" },
    errors: [404],
    errorExamples: { 404: { message: "Invoice batch not found" } },
  },
  handle: async ({ merchant, params }) => ({ batch: await batchView(await findBatch(merchant.id, params.id)) }),
});

export const INVOICE_ENDPOINTS = [
  createInvoiceEndpoint,
  listInvoicesEndpoint,
  createBatchEndpoint,
  getBatchEndpoint,
  getInvoiceEndpoint,
  cancelInvoiceEndpoint,
];
