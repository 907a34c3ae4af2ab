import { merchantKey } from "@/lib/identity/api-keys/callers";
import { defineEndpoint } from "@/lib/http/endpoint";
import { messageBody } from "@/lib/http/error-body";
import { clientAddress } from "@/lib/http/client-address";
import { json } from "@/lib/http/respond";
import { DEFAULT_LOCALE } from "@/lib/i18n";
import { alertAdmins } from "@/lib/identity/alerts";
import { apiKeyActor, audit } from "@/lib/identity/audit";
import { findDelivery, listDeliveries, redeliver } from "./deliveries";
import { createEndpoint, deleteEndpoint, endpointCreatedView, findEndpoint, listEndpoints } from "./registry";
import { listEvents } from "./events-api";
import {
  createWebhookBody,
  createWebhookResponse,
  listDeliveriesQuery,
  listDeliveriesResponse,
  listEventsQuery,
  listEventsResponse,
  listWebhooksResponse,
  redeliverResponse,
} from "./schemas";

// Webhook and event endpoints (docs/webhooks.md#endpoints). Every error answers { message }.

const TAG = "Webhooks";
const WEBHOOK_ID = "3f6c1c44-0b2e-4c8e-9a51-7d2b8f0e6a10";
const created = "2026-11-22T01:01:03.000Z";
const endpointExample = {
  id: WEBHOOK_ID,
  url: "https://shop.example.com/hooks/payments",
  description: "Order updates",
  status: "enabled",
  disabledAt: null,
  createdAt: created,
};
const deliveryExample = {
  id: "9a1d7c52-55f4-4f4e-8a3c-0f6f7d1b2c3e",
  eventId: "5b0f3d2e-7c41-4d8a-b1e9-2a6c4f8d0e17",
  eventType: "order.status_changed",
  status: "succeeded",
  attempts: 1,
  lastStatusCode: 200,
  lastError: null,
  lastAttemptAt: created,
  nextAttemptAt: null,
  completedAt: created,
  redeliveryOf: null,
  createdAt: created,
  attemptsLog: [
    {
      attempt: 1,
      startedAt: created,
      durationMs: 84,
      statusCode: 200,
      error: null,
      responseExcerpt: "ok",
      nextAttemptAt: null,
    },
  ],
};

export const createWebhookEndpoint = defineEndpoint({
  method: "POST",
  path: "/api/v1/webhooks",
  caller: merchantKey,
  scope: "payments",
  errorBody: messageBody,
  body: createWebhookBody,
  response: {
    status: 201,
    description: "Endpoint registered; `secret` appears in this response only",
    schema: createWebhookResponse,
    example: { webhook: { ...endpointExample, secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" } },
  },
  docs: {
    summary: "Register a webhook endpoint",
    description:
      "Events are POSTed to `url`, signed the Standard Webhooks way with the returned `secret` (shown only here).",
    tag: TAG,
    requestExample: { url: "https://shop.example.com/hooks/payments", description: "Order updates" },
  },
  async handle({ merchant, keyId, req, body }) {
    const webhook = await createEndpoint(merchant.id, body);
    // Where the merchant's data goes changed: audited and the owners told, as from the dashboard.
    const actor = apiKeyActor(merchant.id, keyId, clientAddress(req.headers));
    await audit(actor, "webhook.created", webhook.id, { url: webhook.url });
    await alertAdmins({ ...actor, merchantId: merchant.id }, "webhook", webhook.url, DEFAULT_LOCALE);
    return { webhook };
  },
  replay: async ({ merchant, resource }) => ({
    webhook: endpointCreatedView(await findEndpoint(merchant.id, resource.id)),
  }),
});

export const listWebhooksEndpoint = defineEndpoint({
  method: "GET",
  path: "/api/v1/webhooks",
  caller: merchantKey,
  scope: "read",
  errorBody: messageBody,
  response: {
    status: 200,
    description: "The merchant's endpoints, without their secrets",
    schema: listWebhooksResponse,
    example: { webhooks: [endpointExample] },
  },
  docs: { summary: "List webhook endpoints", description: "Without their secrets.", tag: TAG },
  handle: async ({ merchant }) => ({ webhooks: await listEndpoints(merchant.id) }),
});

export const deleteWebhookEndpoint = defineEndpoint({
  method: "DELETE",
  path: "/api/v1/webhooks/{id}",
  caller: merchantKey,
  scope: "payments",
  errorBody: messageBody,
  response: { status: 204, description: "Deleted" },
  docs: {
    summary: "Delete a webhook endpoint",
    description: "Pending deliveries to it are cancelled.",
    tag: TAG,
    params: { id: "Webhook id" },
    errors: [404],
    errorExamples: { 404: { message: "Webhook not found" } },
  },
  async handle({ merchant, keyId, req, params }) {
    await deleteEndpoint(merchant.id, params.id);
    await audit(apiKeyActor(merchant.id, keyId, clientAddress(req.headers)), "webhook.deleted", params.id);
    return json(204, null);
  },
});

export const listDeliveriesEndpoint = defineEndpoint({
  method: "GET",
  path: "/api/v1/webhooks/{id}/deliveries",
  caller: merchantKey,
  scope: "read",
  errorBody: messageBody,
  query: listDeliveriesQuery,
  response: {
    status: 200,
    description: "Deliveries, newest first, each with its attempts",
    schema: listDeliveriesResponse,
    example: { deliveries: [deliveryExample], nextCursor: null },
  },
  docs: {
    summary: "List deliveries of a webhook endpoint",
    description: "Each delivery with its attempts, newest first.",
    tag: TAG,
    params: { id: "Webhook id" },
    errors: [404],
    errorExamples: { 404: { message: "Webhook not found" } },
  },
  handle: ({ merchant, params, query }) => listDeliveries(merchant.id, params.id, query),
});

export const redeliverEndpoint = defineEndpoint({
  method: "POST",
  path: "/api/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver",
  caller: merchantKey,
  scope: "payments",
  errorBody: messageBody,
  response: {
    status: 201,
    description: "The new delivery, pending",
    schema: redeliverResponse,
    example: {
      delivery: {
        ...deliveryExample,
        id: "0c7e4a91-3d2f-4b6a-8e15-9f2d7a6b3c40",
        status: "pending",
        attempts: 0,
        lastStatusCode: null,
        lastAttemptAt: null,
        nextAttemptAt: created,
        completedAt: null,
        redeliveryOf: deliveryExample.id,
        attemptsLog: [],
      },
    },
  },
  docs: {
    summary: "Redeliver an event",
    description: "A new delivery of the same event to the same endpoint, pointing at the original.",
    tag: TAG,
    params: { id: "Webhook id", deliveryId: "Delivery id" },
    errors: [404],
    errorExamples: { 404: { message: "Delivery not found" } },
  },
  handle: async ({ merchant, params }) => ({ delivery: await redeliver(merchant.id, params.id, params.deliveryId) }),
  replay: async ({ merchant, params, resource }) => ({
    delivery: await findDelivery(merchant.id, params.id, resource.id),
  }),
});

export const listEventsEndpoint = defineEndpoint({
  method: "GET",
  path: "/api/v1/events",
  caller: merchantKey,
  scope: "read",
  errorBody: messageBody,
  query: listEventsQuery,
  response: {
    status: 200,
    description: "A page of events, oldest first",
    schema: listEventsResponse,
    example: {
      events: [
        {
          id: deliveryExample.eventId,
          type: "order.status_changed",
          createdAt: created,
          data: { id: "796cfaae-a257-4dff-b6d2-b02a0883eac4", status: "COMPLETED", previousStatus: "PENDING" },
        },
      ],
      nextCursor: "eyJwIjoxfQ",
      hasMore: false,
    },
  },
  docs: {
    summary: "List events",
    description: "The merchant's events oldest first, for reconciliation; pass the returned cursor as `after`.",
    tag: TAG,
    errors: [400],
  },
  handle: ({ merchant, query }) => listEvents(merchant.id, query),
});

export const WEBHOOK_ENDPOINTS = [
  createWebhookEndpoint,
  listWebhooksEndpoint,
  deleteWebhookEndpoint,
  listDeliveriesEndpoint,
  redeliverEndpoint,
  listEventsEndpoint,
];
