import QRCode from "qrcode";
import { anyone, merchantKey } from "@/lib/identity/api-keys/callers";
import { addressBucket, clientAddress } from "@/lib/http/client-address";
import { defineEndpoint } from "@/lib/http/endpoint";
import { messageBody } from "@/lib/http/error-body";
import { NotFound } from "@/lib/errors";
import { enforceRateLimit } from "@/lib/http/rate-limit";
import {
  paymentLinkExample,
  paymentLinksExample,
  publicPaymentLinkExample,
  salesExample,
  sellExample,
} from "./examples";
import {
  createPaymentLinkBody,
  listPaymentLinksQuery,
  listPaymentLinksResponse,
  listSalesQuery,
  listSalesResponse,
  paymentLinkResponse,
  publicPaymentLinkResponse,
  sellBody,
  sellResponse,
  updatePaymentLinkBody,
} from "./schemas";
import { isSlug, publicPaymentLink, sell } from "./sell";
import {
  createPaymentLink,
  getPaymentLink,
  listPaymentLinks,
  listSales,
  setPaymentLinkStatus,
  updatePaymentLink,
} from "./service";
import { linkPageUrl } from "./views";

// Reusable payment links (docs/api.md#payment-links): the merchant's API, and the payer's two public calls.

const TAG = "Payment links";
const params = { id: "Payment link id (UUID)" };
const notFound = { 404: { message: "Payment link not found" } };

/** Orders a payer's address may make from one link per minute: enough for a family at one phone, not for a script. */
export const SALES_PER_MINUTE_PER_ADDRESS = 10;

const requestExample = {
  title: "Bolo de cenoura",
  description: "Com cobertura de chocolate, 1 kg",
  price: 45,
  maxQuantity: 5,
  rails: ["pix", "lightning", "onchain"],
  onchain: [{ network: "polygon", asset: "USDC" }],
  payerFields: ["name", "phone"],
  maxPayments: 30,
  reference: "bolos-dezembro",
  metadata: { loja: "centro" },
};

export const createPaymentLinkEndpoint = defineEndpoint({
  method: "POST",
  path: "/api/v1/payment-links",
  caller: merchantKey,
  scope: "payments",
  errorBody: messageBody,
  body: createPaymentLinkBody,
  response: {
    status: 201,
    description: "Payment link created",
    schema: paymentLinkResponse,
    example: paymentLinkExample,
  },
  docs: {
    summary: "Create a payment link",
    description:
      "A reusable page (`url`) that sells one thing: a fixed `price` (optionally up to `maxQuantity` units per payment) or an amount the payer types between `minAmount` and `maxAmount`, on the `rails` offered. " +
      "Every payer who opens it and chooses a rail gets an order of their own (a PIX, Lightning, exchange-wallet or on-chain order like any other), carrying the link's id and `reference`. " +
      "Limits: `availableUntil`, and `maxPayments` (orders paid or awaiting payment; at the limit new orders are refused). `payerFields` are asked of the payer before the order is made.",
    tag: TAG,
    requestExample,
    errors: [400],
    errorExamples: { 400: { message: "Invalid request: rails: must offer at least one rail" } },
  },
  handle: async ({ merchant, body }) => ({ paymentLink: await createPaymentLink(merchant.id, body) }),
  replay: async ({ merchant, resource }) => ({ paymentLink: await getPaymentLink(merchant.id, resource.id) }),
});

export const listPaymentLinksEndpoint = defineEndpoint({
  method: "GET",
  path: "/api/v1/payment-links",
  caller: merchantKey,
  scope: "read",
  errorBody: messageBody,
  query: listPaymentLinksQuery,
  response: {
    status: 200,
    description: "A page of payment links",
    schema: listPaymentLinksResponse,
    example: paymentLinksExample,
  },
  docs: {
    summary: "List payment links",
    description:
      "Newest first, keyset-paginated like GET /api/v1/orders: pass `nextCursor` back as `cursor`. Filter by `status` or `reference`.",
    tag: TAG,
    errors: [400],
    errorExamples: { 400: { message: "Invalid cursor" } },
  },
  handle: ({ merchant, query }) => listPaymentLinks(merchant.id, query),
});

export const getPaymentLinkEndpoint = defineEndpoint({
  method: "GET",
  path: "/api/v1/payment-links/{id}",
  caller: merchantKey,
  scope: "read",
  errorBody: messageBody,
  response: { status: 200, description: "The payment link", schema: paymentLinkResponse, example: paymentLinkExample },
  docs: {
    summary: "Look up a payment link",
    description: "With how many of its orders are paid and how many await payment, and whether it sells now.",
    tag: TAG,
    params,
    errors: [404],
    errorExamples: notFound,
  },
  handle: async ({ merchant, params }) => ({ paymentLink: await getPaymentLink(merchant.id, params.id) }),
});

export const updatePaymentLinkEndpoint = defineEndpoint({
  method: "PATCH",
  path: "/api/v1/payment-links/{id}",
  caller: merchantKey,
  scope: "payments",
  errorBody: messageBody,
  body: updatePaymentLinkBody,
  response: {
    status: 200,
    description: "The payment link as edited",
    schema: paymentLinkResponse,
    example: paymentLinkExample,
  },
  docs: {
    summary: "Edit a payment link",
    description:
      "Only the fields sent change; `null` clears an optional one (`price: null` makes the amount the payer's; a `price` ends the payer's bounds). " +
      "What was already sold is untouched: each order keeps its own value, and each sale records the `version` it was made under.",
    tag: TAG,
    params,
    requestExample: { price: 49.9, maxPayments: 40 },
    errors: [400, 404],
    errorExamples: { 400: { message: "minAmount must not be greater than maxAmount" }, ...notFound },
  },
  handle: async ({ merchant, params, body }) => ({
    paymentLink: await updatePaymentLink(merchant.id, params.id, body),
  }),
});

function statusEndpoint(action: "pause" | "resume") {
  return defineEndpoint({
    method: "POST",
    path: `/api/v1/payment-links/{id}/${action}`,
    caller: merchantKey,
    scope: "payments",
    errorBody: messageBody,
    response: {
      status: 200,
      description: action === "pause" ? "The link, PAUSED" : "The link, ACTIVE",
      schema: paymentLinkResponse,
      example: paymentLinkExample,
    },
    docs: {
      summary: action === "pause" ? "Pause a payment link" : "Resume a payment link",
      description:
        action === "pause"
          ? "A PAUSED link makes no new order (its page says so; a sale is a 409); orders already made can still be paid and complete as usual. Pausing a paused link changes nothing."
          : "The link sells again (within its limits). Resuming an active link changes nothing.",
      tag: TAG,
      params,
      errors: [404],
      errorExamples: notFound,
    },
    handle: async ({ merchant, params }) => ({
      paymentLink: await setPaymentLinkStatus(merchant.id, params.id, action === "pause" ? "PAUSED" : "ACTIVE"),
    }),
    replay: async ({ merchant, resource }) => ({ paymentLink: await getPaymentLink(merchant.id, resource.id) }),
  });
}
export const pausePaymentLinkEndpoint = statusEndpoint("pause");
export const resumePaymentLinkEndpoint = statusEndpoint("resume");

export const listSalesEndpoint = defineEndpoint({
  method: "GET",
  path: "/api/v1/payment-links/{id}/sales",
  caller: merchantKey,
  scope: "read",
  errorBody: messageBody,
  query: listSalesQuery,
  response: {
    status: 200,
    description: "A page of the link's sales",
    schema: listSalesResponse,
    example: salesExample,
  },
  docs: {
    summary: "List a payment link's sales",
    description:
      "Every order the link made, newest first, with its status as it stands, the value it was sold at, the quantity and what the payer gave. Each is an order: GET /api/v1/order/{id} (or /onchain/order/{id}) shows it whole.",
    tag: TAG,
    params,
    errors: [400, 404],
    errorExamples: { 400: { message: "Invalid cursor" }, ...notFound },
  },
  handle: ({ merchant, params, query }) => listSales(merchant.id, params.id, query),
});

const publicParams = { slug: "The link's public id (the last part of its `url`)" };

export const publicPaymentLinkEndpoint = defineEndpoint({
  method: "GET",
  path: "/api/v1/public/payment-links/{slug}",
  caller: anyone,
  errorBody: messageBody,
  response: {
    status: 200,
    description: "The link, as a payer sees it",
    schema: publicPaymentLinkResponse,
    example: publicPaymentLinkExample,
  },
  docs: {
    summary: "A payment link, as the payer sees it",
    description:
      "What is sold, for how much, on which rails, and whether it sells now; nothing private to the merchant. Reading it makes no order.",
    tag: "Public",
    params: publicParams,
    errors: [404],
    errorExamples: { 404: { message: "Payment link not found" } },
  },
  handle: async ({ params }) => ({ paymentLink: await publicPaymentLink(params.slug) }),
});

export const sellEndpoint = defineEndpoint({
  method: "POST",
  path: "/api/v1/public/payment-links/{slug}/orders",
  caller: anyone,
  errorBody: messageBody,
  body: sellBody,
  response: { status: 201, description: "The payer's order", schema: sellResponse, example: sellExample },
  docs: {
    summary: "Buy from a payment link",
    description:
      `The payer's own order of the chosen \`rail\` (with \`network\` and \`asset\` for onchain), for the link's price times \`quantity\` or the payer's \`amount\` within the link's bounds, with the \`payer\` fields the link asks for. Its page is \`link\`. ` +
      `At most ${SALES_PER_MINUTE_PER_ADDRESS} per minute per link and client address (429). 409 when the link is paused, past its date or at its number of payments.`,
    tag: "Public",
    params: publicParams,
    requestExample: { rail: "pix", quantity: 2, payer: { name: "Maria Souza", phone: "+55 11 98765-4321" } },
    errors: [400, 404, 409],
    errorExamples: {
      400: { message: "amount must be at least 10 (R$ 10,00)" },
      404: { message: "Payment link not found" },
      409: { message: "This payment link is paused: it takes no new orders" },
    },
  },
  async handle({ params, body, req }) {
    // Only a slug that can exist gets a bucket: the limiter's keys are not the client's to choose.
    if (!isSlug(params.slug)) throw new NotFound("Payment link not found");
    await enforceRateLimit(
      `plink:${params.slug}:${addressBucket(clientAddress(req.headers))}`,
      SALES_PER_MINUTE_PER_ADDRESS,
    );
    return { order: await sell(params.slug, body) };
  },
});

export const paymentLinkQrEndpoint = defineEndpoint({
  method: "GET",
  path: "/api/v1/public/payment-links/{slug}/qr.png",
  caller: anyone,
  errorBody: messageBody,
  response: { status: 200, description: "PNG image", contentType: "image/png" },
  docs: {
    summary: "QR code image of a payment link",
    description: "The link's `url` as a PNG, to print for a shop's counter.",
    tag: "Public",
    params: publicParams,
    errors: [404],
    errorExamples: { 404: { message: "Payment link not found" } },
  },
  async handle({ params }) {
    const link = await publicPaymentLink(params.slug);
    const png = await QRCode.toBuffer(linkPageUrl(link.slug), {
      type: "png",
      errorCorrectionLevel: "M",
      margin: 2,
      width: 480,
    });
    return new Response(new Uint8Array(png), {
      status: 200,
      headers: {
        "content-type": "image/png",
        "cache-control": "public, max-age=300",
        "content-length": String(png.length),
      },
    });
  },
});

export const PAYMENT_LINK_ENDPOINTS = [
  createPaymentLinkEndpoint,
  listPaymentLinksEndpoint,
  getPaymentLinkEndpoint,
  updatePaymentLinkEndpoint,
  pausePaymentLinkEndpoint,
  resumePaymentLinkEndpoint,
  listSalesEndpoint,
  publicPaymentLinkEndpoint,
  sellEndpoint,
  paymentLinkQrEndpoint,
];
