import { db } from "@/db";
import type { Order } from "@/db/schema";
import { merchantKey } from "@/lib/identity/api-keys/callers";
import { defineEndpoint } from "@/lib/http/endpoint";
import { messageBody, successFalseBody } from "@/lib/http/error-body";
import { exchangeExample, getOrderExample, lightningExample, ordersExample, pixExample } from "./examples";
import { listOrders } from "./list";
import {
  createExchangeOrderBody,
  createExchangeOrderResponse,
  createLightningOrderBody,
  createLightningOrderResponse,
  createPixOrderBody,
  createPixOrderError,
  createPixOrderResponse,
  getOrderResponse,
  listOrdersQuery,
  listOrdersResponse,
} from "./schemas";
import {
  createExchangeOrder,
  createLightningOrder,
  createPixOrder,
  findOrder,
  lightningProviderDetails,
  orderRefunds,
  splitsOfOrder,
} from "./service";
import { exchangeOrderView, lightningOrderView, orderView, pixOrderView, refundView } from "./views";

const TAG = "PIX and wallet orders";

const pixOrderCreated = async (order: Order) => ({
  message: "PIX order created successfully",
  pixOrder: pixOrderView(order, await splitsOfOrder(db(), order)),
  qrCode: order.brcode!,
});
const exchangeOrderCreated = async (order: Order) => ({
  message: "Order created successfully",
  order: exchangeOrderView(order, await splitsOfOrder(db(), order)),
});
const lightningOrderCreated = async (order: Order) => ({
  message: "Lightning invoice created successfully",
  order: lightningOrderView(order, await splitsOfOrder(db(), order)),
});

export const createPixOrderEndpoint = defineEndpoint({
  method: "POST",
  path: "/api/v1/order/create/pix",
  caller: merchantKey,
  scope: "payments",
  errorBody: messageBody,
  body: createPixOrderBody,
  response: { status: 200, description: "PIX order created", schema: createPixOrderResponse, example: pixExample },
  docs: {
    summary: "Create a PIX order",
    description:
      "Returns a PIX BR Code (copy and paste, or render as a QR code) and a payment link. The code pays the service, which credits the merchant's balance. A merchant without a registered PIX key gets a 400 with `details`.",
    tag: TAG,
    requestExample: {
      value: 25.9,
      orderId: "pedido-1042",
      name: "Maria Souza",
      cpf: "529.982.247-25",
      metadata: { cartId: "c-88231" },
    },
    errorSchemas: { 400: createPixOrderError },
    errorExamples: {
      400: {
        message: "Required data missing for the payment provider: register a PIX key for this merchant",
        extra: { details: { pixKey: null, identifier: "c57406aa-c731-408f-9ea5-5d708a78e91a" } },
      },
    },
  },
  async handle({ merchant, body }) {
    return pixOrderCreated(await createPixOrder(merchant, body));
  },
  replay: async ({ merchant, resource }) => pixOrderCreated(await findOrder(merchant.id, resource.id)),
});

export const createExchangeOrderEndpoint = defineEndpoint({
  method: "POST",
  path: "/api/v1/order/create",
  caller: merchantKey,
  scope: "payments",
  errorBody: successFalseBody,
  body: createExchangeOrderBody,
  response: {
    status: 201,
    description: "Order created",
    schema: createExchangeOrderResponse,
    example: exchangeExample,
  },
  docs: {
    summary: "Create an exchange-wallet order",
    description: "Returns a QR-code image link and a payment link. Expires after 30 minutes.",
    tag: TAG,
    requestExample: { value: 150, payerId: "cliente-77", merchant: { subMerchantId: "loja-centro" } },
  },
  async handle({ merchant, body }) {
    return exchangeOrderCreated(await createExchangeOrder(merchant, body));
  },
  replay: async ({ merchant, resource }) => exchangeOrderCreated(await findOrder(merchant.id, resource.id)),
});

export const createLightningOrderEndpoint = defineEndpoint({
  method: "POST",
  path: "/api/v1/order/create/lightning",
  caller: merchantKey,
  scope: "payments",
  errorBody: successFalseBody,
  body: createLightningOrderBody,
  response: {
    status: 201,
    description: "Invoice created",
    schema: createLightningOrderResponse,
    example: lightningExample,
  },
  docs: {
    summary: "Create a Lightning invoice",
    description:
      "Converts the BRL value to satoshis at the current rate (rounded up) and returns a BOLT11 invoice. Expires after 15 minutes.",
    tag: TAG,
    requestExample: { value: 35, email: "maria@example.com", name: "Maria Souza" },
  },
  async handle({ merchant, body }) {
    return lightningOrderCreated(await createLightningOrder(merchant, body));
  },
  replay: async ({ merchant, resource }) => lightningOrderCreated(await findOrder(merchant.id, resource.id)),
});

export const getOrderEndpoint = defineEndpoint({
  method: "GET",
  path: "/api/v1/order/{id}",
  caller: merchantKey,
  scope: "read",
  errorBody: successFalseBody,
  response: { status: 200, description: "The order", schema: getOrderResponse, example: getOrderExample },
  docs: {
    summary: "Look up an order",
    description:
      "PIX, exchange-wallet or Lightning order, by id or payment link id. `providerDetails` appears only for Lightning orders. `refunds` lists the order's refunds (POST /api/v1/order/{id}/refund), oldest first; [] when it has none.",
    tag: TAG,
    params: { id: "Order id (UUID) or payment link id" },
    errors: [404],
    errorExamples: { 404: { message: "Order not found" } },
  },
  async handle({ merchant, params }) {
    const order = await findOrder(merchant.id, params.id);
    return {
      message: "Order retrieved successfully",
      order: orderView(order, await splitsOfOrder(db(), order)),
      ...(order.kind === "lightning" ? { providerDetails: await lightningProviderDetails(order) } : {}),
      refunds: (await orderRefunds(order)).map(refundView),
    };
  },
});

export const listOrdersEndpoint = defineEndpoint({
  method: "GET",
  path: "/api/v1/orders",
  caller: merchantKey,
  scope: "read",
  errorBody: messageBody,
  query: listOrdersQuery,
  response: { status: 200, description: "A page of orders", schema: listOrdersResponse, example: ordersExample },
  docs: {
    summary: "List orders",
    description:
      "Every kind of order of the merchant, newest first, keyset-paginated: pass `nextCursor` back as `cursor`.",
    tag: "Account",
    errors: [400],
    errorExamples: { 400: { message: "Invalid cursor" } },
  },
  handle: ({ merchant, query }) => listOrders(merchant.id, query),
});
