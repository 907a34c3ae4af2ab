import { endpoint } from "@/lib/api/handler";
import { messageBody, successFalseBody } from "@/lib/api/error-body";
import { json } from "@/lib/api/respond";
import {
  createExchangeOrderBody,
  createLightningOrderBody,
  createPixOrderBody,
  type CreateExchangeOrderResponse,
  type CreateLightningOrderResponse,
  type CreatePixOrderResponse,
  type GetOrderResponse,
} from "./schemas";
import { createExchangeOrder, createLightningOrder, createPixOrder, findOrder, lightningProviderDetails } from "./service";
import { exchangeOrderView, lightningOrderView, orderView, pixOrderView } from "./views";
import { listOrders, listOrdersQuery } from "./list";
import { InvalidInput } from "@/lib/errors";
import { describeZodError } from "@/lib/api/validation";

/** POST /api/v1/order/create/pix */
export const createPixOrderHandler = endpoint({
  auth: "merchant",
  errorBody: messageBody,
  body: createPixOrderBody,
  async handle({ merchant, body }) {
    const order = await createPixOrder(merchant, body);
    const res: CreatePixOrderResponse = { message: "PIX order created successfully", pixOrder: pixOrderView(order), qrCode: order.brcode! };
    return json(200, res);
  },
});

/** POST /api/v1/order/create (exchange wallet) */
export const createExchangeOrderHandler = endpoint({
  auth: "merchant",
  errorBody: successFalseBody,
  body: createExchangeOrderBody,
  async handle({ merchant, body }) {
    const order = await createExchangeOrder(merchant, body);
    const res: CreateExchangeOrderResponse = { message: "Order created successfully", order: exchangeOrderView(order) };
    return json(201, res);
  },
});

/** POST /api/v1/order/create/lightning */
export const createLightningOrderHandler = endpoint({
  auth: "merchant",
  errorBody: successFalseBody,
  body: createLightningOrderBody,
  async handle({ merchant, body }) {
    const order = await createLightningOrder(merchant, body);
    const res: CreateLightningOrderResponse = { message: "Lightning invoice created successfully", order: lightningOrderView(order) };
    return json(201, res);
  },
});

/** GET /api/v1/order/{id}: by order id or payment link id. */
export const getOrderHandler = endpoint({
  auth: "merchant",
  errorBody: successFalseBody,
  async handle({ merchant, params }) {
    const order = await findOrder(merchant.id, params.id);
    const body: GetOrderResponse = {
      message: "Order retrieved successfully",
      order: orderView(order),
      ...(order.kind === "lightning" ? { providerDetails: await lightningProviderDetails(order) } : {}),
    };
    return json(200, body);
  },
});

/** GET /api/v1/orders?type=&status=&limit=&cursor= (CONTRACT §9) */
export const listOrdersHandler = endpoint({
  auth: "merchant",
  errorBody: messageBody,
  async handle({ merchant, req }) {
    const q = listOrdersQuery.safeParse(Object.fromEntries(new URL(req.url).searchParams));
    if (!q.success) throw new InvalidInput(describeZodError(q.error));
    return json(200, await listOrders(merchant.id, q.data));
  },
});
