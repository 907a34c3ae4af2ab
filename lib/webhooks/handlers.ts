import type { z } from "zod";
import { endpoint } from "@/lib/api/handler";
import { messageBody } from "@/lib/api/error-body";
import { json } from "@/lib/api/respond";
import type { ApiRequest } from "@/lib/api/request";
import { describeZodError } from "@/lib/api/validation";
import { InvalidInput } from "@/lib/errors";
import { listDeliveries, redeliver } from "./deliveries";
import { createEndpoint, deleteEndpoint, listEndpoints } from "./endpoints";
import { listEvents } from "./events-api";
import { createWebhookBody, listDeliveriesQuery, listEventsQuery } from "./schemas";

// Webhook and event endpoints (CONTRACT §7). Every error answers { message }.

function query<S extends z.ZodType>(req: ApiRequest, schema: S): z.output<S> {
  const parsed = schema.safeParse(Object.fromEntries(new URL(req.url).searchParams));
  if (!parsed.success) throw new InvalidInput(describeZodError(parsed.error));
  return parsed.data;
}

/** POST /api/v1/webhooks: the secret is in this response only. */
export const createWebhookHandler = endpoint({
  auth: "merchant",
  errorBody: messageBody,
  body: createWebhookBody,
  async handle({ merchant, body }) {
    return json(201, { webhook: await createEndpoint(merchant.id, body) });
  },
});

/** GET /api/v1/webhooks */
export const listWebhooksHandler = endpoint({
  auth: "merchant",
  errorBody: messageBody,
  async handle({ merchant }) {
    return json(200, { webhooks: await listEndpoints(merchant.id) });
  },
});

/** DELETE /api/v1/webhooks/{id} */
export const deleteWebhookHandler = endpoint({
  auth: "merchant",
  errorBody: messageBody,
  async handle({ merchant, params }) {
    await deleteEndpoint(merchant.id, params.id);
    return json(204, null);
  },
});

/** GET /api/v1/webhooks/{id}/deliveries?status=&limit=&cursor= */
export const listDeliveriesHandler = endpoint({
  auth: "merchant",
  errorBody: messageBody,
  async handle({ merchant, params, req }) {
    return json(200, await listDeliveries(merchant.id, params.id, query(req, listDeliveriesQuery)));
  },
});

/** POST /api/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver */
export const redeliverHandler = endpoint({
  auth: "merchant",
  errorBody: messageBody,
  async handle({ merchant, params }) {
    return json(201, { delivery: await redeliver(merchant.id, params.id, params.deliveryId) });
  },
});

/** GET /api/v1/events?after=&limit= */
export const listEventsHandler = endpoint({
  auth: "merchant",
  errorBody: messageBody,
  async handle({ merchant, req }) {
    return json(200, await listEvents(merchant.id, query(req, listEventsQuery)));
  },
});
