import { z } from "zod";
import { db } from "@/db";
import { env } from "@/lib/env";
import { NotFound } from "@/lib/errors";
import { defineEndpoint } from "@/lib/http/endpoint";
import { messageBody } from "@/lib/http/error-body";
import { providerCallback } from "@/lib/http/provider-caller";
import { merchantKey } from "@/lib/identity/api-keys/callers";
import type { IdempotentResource } from "@/lib/idempotency-binding";
import { tokenMatches } from "@/lib/pix-collection/endpoints";
import { railEnabled } from "@/lib/providers/rails";
import { sandboxUnavailable } from "@/lib/sandbox/service";
import { acceptRecurringNotification } from "./receiver";
import { activeSubscriptionExample, subscriptionExample, subscriptionsExample } from "./examples";
import { subscriptionOfOrder } from "./queries";
import { sandboxAuthorise, sandboxPayerCancel, sandboxSettleCycle } from "./sandbox";
import {
  createSubscriptionBody,
  listSubscriptionsQuery,
  listSubscriptionsResponse,
  sandboxFailCycleBody,
  subscriptionResponse,
  updateSubscriptionBody,
} from "./schemas";
import {
  cancelSubscription,
  createSubscription,
  findSubscription,
  listSubscriptions,
  updateSubscription,
} from "./service";

// Subscriptions by Pix Automático (docs/api.md#subscriptions): an API Pix recurrence the payer
// authorises once, and a charge (cobr) per cycle. Sandbox helpers play the payer's bank.

const TAG = "Subscriptions";
const SANDBOX_TAG = "Sandbox";

// Dates years ahead: the document (and the SDK's types made from it) must not change with the day it
// is built, and the documented request must stay one the API takes.
const requestExample = {
  payer: { name: "Maria Souza", cpf: "529.982.247-25" },
  description: "Plano mensal Academia Centro",
  reference: "contrato-2291",
  amount: { type: "FIXED", value: 89.9 },
  periodicity: "MENSAL",
  firstDate: "2030-01-10",
  retryPolicy: "PERMITE_3R_7D",
  journey: "JORNADA_3",
};

const found = async (merchantId: string, resource: IdempotentResource) => {
  // A sandbox payment binds its key to the cycle's order (lib/orders/service.ts markOrderPaid).
  const id = resource.type === "order" ? await subscriptionOfOrder(db(), resource.id) : resource.id;
  if (!id) throw new NotFound("Subscription not found");
  return { subscription: await findSubscription(merchantId, id) };
};

export const createSubscriptionEndpoint = defineEndpoint({
  method: "POST",
  path: "/api/v1/subscriptions",
  caller: merchantKey,
  scope: "payments",
  errorBody: messageBody,
  body: createSubscriptionBody,
  response: {
    status: 201,
    description: "Subscription created, awaiting the payer's authorisation",
    schema: subscriptionResponse,
    example: subscriptionExample,
  },
  docs: {
    summary: "Create a subscription (Pix Automático)",
    description:
      "A recurrence at the PSP (API Pix rec) the payer authorises once in their bank app, by reading `brcode` (or opening `link`). " +
      "JORNADA_3 (default): the same code pays `amount.value` now (cycle 0) and authorises the rest; JORNADA_2: it only authorises. " +
      "From then on each cycle's charge is sent to the PSP 2 to 10 days before its due date and debited on it; each paid cycle completes its own PIX order, credited to the balance. " +
      "Events: `subscription.status_changed`, `subscription.charge.status_changed`.",
    tag: TAG,
    requestExample,
    errors: [400],
    errorExamples: {
      400: { message: "firstDate must be 2030-01-03 or later: a cycle is charged 2 to 10 days before its due date" },
    },
  },
  async handle({ merchant, body }) {
    return { subscription: await createSubscription(merchant, body) };
  },
  replay: ({ merchant, resource }) => found(merchant.id, resource),
});

export const listSubscriptionsEndpoint = defineEndpoint({
  method: "GET",
  path: "/api/v1/subscriptions",
  caller: merchantKey,
  scope: "read",
  errorBody: messageBody,
  query: listSubscriptionsQuery,
  response: {
    status: 200,
    description: "A page of subscriptions",
    schema: listSubscriptionsResponse,
    example: subscriptionsExample,
  },
  docs: {
    summary: "List subscriptions",
    description:
      "The merchant's subscriptions, newest first, keyset-paginated like GET /api/v1/orders: pass `nextCursor` back as `cursor`. Filter by `status` or `reference`.",
    tag: TAG,
    errors: [400],
    errorExamples: { 400: { message: "Invalid cursor" } },
  },
  handle: ({ merchant, query }) => listSubscriptions(merchant.id, query),
});

export const getSubscriptionEndpoint = defineEndpoint({
  method: "GET",
  path: "/api/v1/subscriptions/{id}",
  caller: merchantKey,
  scope: "read",
  errorBody: messageBody,
  response: {
    status: 200,
    description: "The subscription and its cycles",
    schema: subscriptionResponse,
    example: activeSubscriptionExample,
  },
  docs: {
    summary: "Look up a subscription",
    description: "With every cycle charged so far, oldest first: its due date, status, attempts and order.",
    tag: TAG,
    params: { id: "Subscription id (UUID)" },
    errors: [404],
    errorExamples: { 404: { message: "Subscription not found" } },
  },
  handle: async ({ merchant, params }) => ({ subscription: await findSubscription(merchant.id, params.id) }),
});

export const updateSubscriptionEndpoint = defineEndpoint({
  method: "PATCH",
  path: "/api/v1/subscriptions/{id}",
  caller: merchantKey,
  scope: "payments",
  errorBody: messageBody,
  body: updateSubscriptionBody,
  response: {
    status: 200,
    description: "The subscription with its new amount",
    schema: subscriptionResponse,
    example: activeSubscriptionExample,
  },
  docs: {
    summary: "Change a subscription's amount",
    description:
      "A VARIABLE subscription's `amount.value` (API Pix: each charge's `valor.original`): every cycle recorded from now on asks it; cycles already sent to the PSP keep theirs. " +
      "Not below `amount.minimum` (400). A FIXED amount is the payer's authorisation (`valor.valorRec`), which the document's `PATCH /rec` cannot change: 409, cancel and create a new subscription. " +
      "409 when the subscription has ended. Event: `subscription.amount_changed`.",
    tag: TAG,
    params: { id: "Subscription id (UUID)" },
    requestExample: { amount: { value: 119.9 } },
    errors: [400, 404, 409],
    errorExamples: {
      400: { message: "amount.value: value must not be below minimum" },
      404: { message: "Subscription not found" },
      409: {
        message:
          "A FIXED amount is part of the payer's authorisation (API Pix valor.valorRec), which the PSP lets no one change: cancel this subscription and create one with the new amount",
      },
    },
  },
  handle: async ({ merchant, params, body }) => ({
    subscription: await updateSubscription(merchant.id, params.id, body),
  }),
  replay: ({ merchant, resource }) => found(merchant.id, resource),
});

export const cancelSubscriptionEndpoint = defineEndpoint({
  method: "POST",
  path: "/api/v1/subscriptions/{id}/cancel",
  caller: merchantKey,
  scope: "payments",
  errorBody: messageBody,
  response: {
    status: 200,
    description: "The subscription, CANCELLED",
    schema: subscriptionResponse,
    example: subscriptionExample,
  },
  docs: {
    summary: "Cancel a subscription",
    description:
      "The recurrence is cancelled at the PSP and no further cycle is charged; cycles not yet settling are cancelled with their orders. " +
      "A cycle whose debit is already under way on its due date (the document forbids cancelling it then) keeps its outcome. 409 when it has already ended.",
    tag: TAG,
    params: { id: "Subscription id (UUID)" },
    errors: [404, 409],
    errorExamples: {
      404: { message: "Subscription not found" },
      409: { message: "Subscription is CANCELLED: it has already ended" },
    },
  },
  handle: async ({ merchant, params }) => ({ subscription: await cancelSubscription(merchant.id, params.id) }),
  replay: ({ merchant, resource }) => found(merchant.id, resource),
});

const cycleNumber = (s: string): number => {
  if (!/^\d{1,4}$/.test(s)) throw new NotFound("Cycle not found");
  return Number(s);
};

export const sandboxAuthoriseSubscriptionEndpoint = defineEndpoint({
  method: "POST",
  path: "/api/v1/sandbox/subscriptions/{id}/authorize",
  caller: merchantKey,
  scope: "payments",
  errorBody: messageBody,
  unavailable: sandboxUnavailable,
  response: {
    status: 200,
    description: "The subscription, ACTIVE",
    schema: subscriptionResponse,
    example: activeSubscriptionExample,
  },
  docs: {
    summary: "Authorise a subscription as the payer (sandbox)",
    description:
      "The payer authorises the recurrence in their bank app; for JORNADA_3 the first payment (cycle 0) is made with it and credited. 409 when it is not awaiting authorisation.",
    tag: SANDBOX_TAG,
    params: { id: "Subscription id (UUID)" },
    errors: [404, 409],
    errorExamples: {
      404: { message: "Subscription not found" },
      409: { message: "Subscription is ACTIVE: it is not waiting for the payer's authorisation" },
    },
  },
  handle: async ({ merchant, params }) => ({ subscription: await sandboxAuthorise(merchant.id, params.id) }),
  replay: ({ merchant, resource }) => found(merchant.id, resource),
});

export const sandboxPayerCancelSubscriptionEndpoint = defineEndpoint({
  method: "POST",
  path: "/api/v1/sandbox/subscriptions/{id}/payer-cancel",
  caller: merchantKey,
  scope: "payments",
  errorBody: messageBody,
  unavailable: sandboxUnavailable,
  response: {
    status: 200,
    description: "The subscription, CANCELLED by the payer",
    schema: subscriptionResponse,
    example: subscriptionExample,
  },
  docs: {
    summary: "Cancel a subscription at the payer's bank (sandbox)",
    description:
      "The payer cancels the authorisation in their bank app: the PSP's recurrence is CANCELADA and its open charges with it; the subscription becomes CANCELLED with `cancelledBy: payer`.",
    tag: SANDBOX_TAG,
    params: { id: "Subscription id (UUID)" },
    errors: [404, 409],
    errorExamples: {
      404: { message: "Subscription not found" },
      409: { message: "Subscription is CANCELLED: it has already ended" },
    },
  },
  handle: async ({ merchant, params }) => ({ subscription: await sandboxPayerCancel(merchant.id, params.id) }),
  replay: ({ merchant, resource }) => found(merchant.id, resource),
});

export const sandboxPayCycleEndpoint = defineEndpoint({
  method: "POST",
  path: "/api/v1/sandbox/subscriptions/{id}/cycles/{cycle}/pay",
  caller: merchantKey,
  scope: "payments",
  errorBody: messageBody,
  unavailable: sandboxUnavailable,
  response: {
    status: 200,
    description: "The subscription, its cycle PAID",
    schema: subscriptionResponse,
    example: activeSubscriptionExample,
  },
  docs: {
    summary: "Debit a cycle (sandbox)",
    description:
      "The cycle's scheduled attempt is paid by the payer's bank; its order completes and the balance is credited. 409 when the cycle has no attempt waiting.",
    tag: SANDBOX_TAG,
    params: { id: "Subscription id (UUID)", cycle: "Cycle number (1, 2, …)" },
    errors: [404, 409],
    errorExamples: {
      404: { message: "Cycle not found" },
      409: { message: "Cycle 1 is PAID: it has no attempt waiting to settle" },
    },
  },
  handle: async ({ merchant, params }) => ({
    subscription: await sandboxSettleCycle(merchant.id, params.id, cycleNumber(params.cycle), "paid"),
  }),
  replay: ({ merchant, resource }) => found(merchant.id, resource),
});

export const sandboxFailCycleEndpoint = defineEndpoint({
  method: "POST",
  path: "/api/v1/sandbox/subscriptions/{id}/cycles/{cycle}/fail",
  caller: merchantKey,
  scope: "payments",
  errorBody: messageBody,
  unavailable: sandboxUnavailable,
  body: sandboxFailCycleBody,
  response: {
    status: 200,
    description: "The subscription, its cycle RETRYING or FAILED",
    schema: subscriptionResponse,
    example: activeSubscriptionExample,
  },
  docs: {
    summary: "Fail a cycle's attempt (sandbox)",
    description:
      "The payer's bank rejects the cycle's scheduled attempt (insufficient funds). Under PERMITE_3R_7D a retry is asked for the next day (RETRYING), up to 3 within 7 days of the due date; otherwise, or with `final`, the cycle FAILS and its order is cancelled.",
    tag: SANDBOX_TAG,
    params: { id: "Subscription id (UUID)", cycle: "Cycle number (1, 2, …)" },
    requestExample: { final: false },
    errors: [400, 404, 409],
    errorExamples: {
      404: { message: "Cycle not found" },
      409: { message: "Cycle 1 is FAILED: it has no attempt waiting to settle" },
    },
  },
  handle: async ({ merchant, params, body }) => ({
    subscription: await sandboxSettleCycle(merchant.id, params.id, cycleNumber(params.cycle), "rejected", body.final),
  }),
  replay: ({ merchant, resource }) => found(merchant.id, resource),
});

const noticeUnavailable = () =>
  railEnabled("pix") && env().PIX_WEBHOOK_TOKEN ? null : "PIX notifications are not configured on this server";

function noticeEndpoint(kind: "rec" | "cobr") {
  const list = kind === "rec" ? "recs" : "cobsr";
  const example =
    kind === "rec"
      ? { recs: [{ idRec: "RR1234567820240115abcdefghijk", status: "APROVADA", atualizacao: [] }] }
      : {
          cobsr: [
            { idRec: "RR1234567820240115abcdefghijk", txid: "7978c0c97ea847e78e8849634473c1f1", status: "CONCLUIDA" },
          ],
        };
  return defineEndpoint({
    method: "POST",
    path: `/api/v1/providers/pix/{token}/${kind}`,
    caller: providerCallback("pix"),
    secretParams: ["token"],
    errorBody: messageBody,
    body: z
      .looseObject({ [list]: z.array(z.unknown()).max(1000).optional() })
      .meta({ description: `API Pix Webhook${kind === "rec" ? "Rec" : "CobR"}Body: \`{ ${list}: [...] }\`` }),
    unavailable: noticeUnavailable,
    response: {
      status: 200,
      description: "Received: each one named is read back from the PSP before anything counts",
      schema: z.strictObject({ received: z.number().int() }),
      example: { received: 1 },
    },
    docs: {
      summary: `API Pix ${kind === "rec" ? "recurrence" : "recurring charge"} notification receiver (for the PSP)`,
      description: `Where the PSP posts Pix Automático ${kind === "rec" ? "recurrence" : "charge"} notifications (register \`{PUBLIC_BASE_URL}/api/v1/providers/pix/{PIX_WEBHOOK_TOKEN}\` with \`PUT /webhook${kind}\`; the PSP appends \`/${kind}\`). Nothing in the body is trusted: each ${kind === "rec" ? "idRec" : "txid"} is read back (\`GET /${kind}/{id}\`) and only what the PSP answers is applied.`,
      tag: "Provider callbacks",
      params: { token: "PIX_WEBHOOK_TOKEN" },
      requestExample: example,
      errors: [400, 404],
      errorExamples: { 404: { message: "Not found" } },
    },
    async handle({ params, body }) {
      if (!tokenMatches(params.token)) throw new NotFound("Not found");
      return { received: await acceptRecurringNotification(body) };
    },
  });
}

export const recNotificationEndpoint = noticeEndpoint("rec");
export const cobrNotificationEndpoint = noticeEndpoint("cobr");

export const SUBSCRIPTION_ENDPOINTS = [
  createSubscriptionEndpoint,
  listSubscriptionsEndpoint,
  getSubscriptionEndpoint,
  updateSubscriptionEndpoint,
  cancelSubscriptionEndpoint,
  recNotificationEndpoint,
  cobrNotificationEndpoint,
];

export const SANDBOX_SUBSCRIPTION_ENDPOINTS = [
  sandboxAuthoriseSubscriptionEndpoint,
  sandboxPayerCancelSubscriptionEndpoint,
  sandboxPayCycleEndpoint,
  sandboxFailCycleEndpoint,
];
