import { merchantKey } from "@/lib/identity/api-keys/callers";
import { depositSplitViews, orderSplitViews } from "@/lib/splits/service";
import { NotFound } from "@/lib/errors";
import { cryptoPixView } from "@/lib/crypto-pix/views";
import { defineEndpoint } from "@/lib/http/endpoint";
import { messageBody } from "@/lib/http/error-body";
import { decodeCryptoPixId } from "@/lib/ids";
import { depositView } from "@/lib/onchain/views";
import { findOrder } from "@/lib/orders/service";
import { orderView } from "@/lib/orders/views";
import { paidInvoiceExample } from "@/lib/invoices/examples";
import { invoiceResponse, sandboxPayInvoiceBody } from "@/lib/invoices/schemas";
import { db } from "@/db";
import { invoiceOfOrder } from "@/lib/invoices/queries";
import { findInvoice } from "@/lib/invoices/service";
import { invoiceView } from "@/lib/invoice-state/views";
import { cryptoPixTransferExample, depositTransferExample, sandboxPayExample } from "./examples";
import {
  sandboxCryptoPixTransferResponse,
  sandboxOnchainTransferResponse,
  sandboxPayOrderResponse,
  transferBody,
} from "./schemas";
import {
  payInvoice,
  payOrder,
  recordedCryptoPixTransfer,
  recordedDepositTransfer,
  sandboxUnavailable,
  transferToCryptoPix,
  transferToDeposit,
} from "./service";

// Sandbox helpers (docs/api.md#sandbox-helpers): drive an order through its life without real money.

const TAG = "Sandbox";

export const sandboxPayOrderEndpoint = defineEndpoint({
  method: "POST",
  path: "/api/v1/sandbox/orders/{id}/pay",
  caller: merchantKey,
  scope: "payments",
  errorBody: messageBody,
  unavailable: sandboxUnavailable,
  response: { status: 200, description: "The paid order", schema: sandboxPayOrderResponse, example: sandboxPayExample },
  docs: {
    summary: "Pay an order (sandbox)",
    description:
      "A PENDING PIX, exchange-wallet or Lightning order becomes COMPLETED and the balance is credited, as a real payment would.",
    tag: TAG,
    params: { id: "Order id (UUID) or payment link id" },
    errors: [404],
    errorExamples: { 409: { message: "Order is not PENDING (it is COMPLETED)" }, 404: { message: "Order not found" } },
  },
  async handle({ merchant, params }) {
    const order = await payOrder(merchant.id, params.id);
    return { order: orderView(order, await orderSplitViews(db(), order)) };
  },
  replay: async ({ merchant, resource }) => {
    const order = await findOrder(merchant.id, resource.id);
    return { order: orderView(order, await orderSplitViews(db(), order)) };
  },
});

export const sandboxPayInvoiceEndpoint = defineEndpoint({
  method: "POST",
  path: "/api/v1/sandbox/invoices/{id}/pay",
  caller: merchantKey,
  scope: "payments",
  errorBody: messageBody,
  unavailable: sandboxUnavailable,
  body: sandboxPayInvoiceBody,
  response: { status: 200, description: "The paid invoice", schema: invoiceResponse, example: paidInvoiceExample },
  docs: {
    summary: "Pay an invoice on a chosen day (sandbox)",
    description:
      "The payer pays an OPEN invoice on `date` (a São Paulo day, default today, not before the invoice was made): the amount due that day, with its discount, or its fine and interest, as the PSP would report it. Its order is credited what was paid. 409 when it cannot be paid that day (after its last payable day) or is not OPEN.",
    tag: TAG,
    params: { id: "Invoice id (UUID)" },
    // A day the documented invoice (lib/invoices/endpoints.ts, due 2030-01-10) can be paid on, with its discount.
    requestExample: { date: "2030-01-03" },
    errors: [400, 404, 409],
    errorExamples: {
      404: { message: "Invoice not found" },
      409: { message: "The invoice cannot be paid on 2027-01-20: its last payable day is 2027-01-11" },
    },
  },
  async handle({ merchant, params, body }) {
    const { invoice, order } = await payInvoice(merchant.id, params.id, body.date);
    return { invoice: invoiceView(invoice, order) };
  },
  // The payment binds the request's key to the order it completed (lib/orders/service.ts markOrderPaid).
  replay: async ({ merchant, resource }) => {
    const paid = resource.type === "order" ? await invoiceOfOrder(db(), resource.id) : null;
    const { invoice, order } = await findInvoice(merchant.id, paid?.id ?? resource.id);
    return { invoice: invoiceView(invoice, order) };
  },
});

export const sandboxOnchainTransferEndpoint = defineEndpoint({
  method: "POST",
  path: "/api/v1/sandbox/onchain/{paymentLinkId}/transfer",
  caller: merchantKey,
  scope: "payments",
  errorBody: messageBody,
  unavailable: sandboxUnavailable,
  body: transferBody,
  response: {
    status: 200,
    description: "The order after the transfer",
    schema: sandboxOnchainTransferResponse,
    example: depositTransferExample,
  },
  docs: {
    summary: "Send tokens to a deposit (sandbox)",
    description:
      "A confirmed transfer of `amount` to the order's address: enough in total gives COMPLETED, less gives PARTIAL_ORDER.",
    tag: TAG,
    params: { paymentLinkId: "Payment link id of the deposit order" },
    requestExample: { amount: "10" },
    errors: [404],
    errorExamples: { 404: { message: "On-chain order not found" } },
  },
  async handle({ merchant, params, body }) {
    const result = await transferToDeposit(merchant.id, params.paymentLinkId, body);
    return {
      order: depositView(result.order, await depositSplitViews(db(), result.order)),
      transfer: {
        txHash: result.txHash,
        amount: Number(body.amount),
        applied: Number(result.applied),
        unapplied: Number(result.unapplied),
        duplicate: result.duplicate,
      },
    };
  },
  async replay({ merchant, body, resource }) {
    const { order, transfer } = await recordedDepositTransfer(merchant.id, resource.id);
    return {
      order: depositView(order, await depositSplitViews(db(), order)),
      // A hash the client gave is answered as given; the stored one is lowercased.
      transfer: {
        txHash: body.txHash ?? transfer.txHash,
        amount: Number(body.amount),
        applied: Number(transfer.appliedAmount),
        unapplied: Number(transfer.unappliedAmount),
        duplicate: false,
      },
    };
  },
});

export const sandboxCryptoPixTransferEndpoint = defineEndpoint({
  method: "POST",
  path: "/api/v1/sandbox/crypto-pix/{payCryptoPixId}/transfer",
  caller: merchantKey,
  scope: "payments",
  errorBody: messageBody,
  unavailable: sandboxUnavailable,
  body: transferBody,
  response: {
    status: 200,
    description: "The payment after the transfer",
    schema: sandboxCryptoPixTransferResponse,
    example: cryptoPixTransferExample,
  },
  docs: {
    summary: "Send tokens to a Crypto-PIX payment (sandbox)",
    description:
      "The full amount pays the PIX (COMPLETED); `failPix: true` makes the PIX fail so the crypto is refunded (REFUNDED).",
    tag: TAG,
    params: { payCryptoPixId: "payCryptoPixId" },
    requestExample: { amount: "9.240741" },
    errors: [404],
    errorExamples: { 404: { message: "Crypto-PIX payment not found" } },
  },
  async handle({ merchant, params, body }) {
    const id = decodeCryptoPixId(params.payCryptoPixId ?? "");
    if (!id) throw new NotFound("Crypto-PIX payment not found");
    const result = await transferToCryptoPix(merchant.id, id, body);
    return {
      payment: cryptoPixView(result.payment),
      transfer: { txHash: result.txHash, amount: Number(body.amount), duplicate: result.duplicate },
    };
  },
  async replay({ merchant, body, resource }) {
    const { payment, txHash } = await recordedCryptoPixTransfer(merchant.id, resource, body.txHash);
    return { payment: cryptoPixView(payment), transfer: { txHash, amount: Number(body.amount), duplicate: false } };
  },
});

export const SANDBOX_ENDPOINTS = [
  sandboxPayOrderEndpoint,
  sandboxPayInvoiceEndpoint,
  sandboxOnchainTransferEndpoint,
  sandboxCryptoPixTransferEndpoint,
];
