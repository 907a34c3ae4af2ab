"use server";

import { merchantAction } from "@/lib/dashboard/server/merchant-action";
import { NotFound } from "@/lib/errors";
import { sandboxUnavailable } from "@/lib/sandbox/service";
import { asEngineWork, chargeDueCycles } from "@/lib/subscriptions/engine";
import { sandboxAuthorise, sandboxSettleCycle } from "@/lib/subscriptions/sandbox";
import { cancelSubscription, createSubscription, updateSubscription } from "@/lib/subscriptions/service";
import {
  SUBSCRIPTION_DECIMAL_FIELDS,
  SUBSCRIPTION_FORM_LABELS,
  subscriptionAmountForm,
  subscriptionCycleForm,
  subscriptionForm,
  subscriptionIdForm,
} from "../schemas";

// Subscriptions through the same service calls as POST /api/v1/subscriptions and its cancel, with the
// signed-in merchant; the sandbox's payer and bank as its API helpers play them.

export const createSubscriptionAction = merchantAction(
  subscriptionForm,
  async (input, { merchant }) => ({
    redirectTo: `/dashboard/subscriptions/${(await createSubscription(merchant, input)).id}`,
  }),
  { decimalFields: SUBSCRIPTION_DECIMAL_FIELDS, labels: SUBSCRIPTION_FORM_LABELS, permission: "orders.create" },
);

export const cancelSubscriptionAction = merchantAction(
  subscriptionIdForm,
  async ({ id }, { merchant }) => {
    await cancelSubscription(merchant.id, id);
    return { data: { id }, message: "sub.detail.cancelled" as const };
  },
  { permission: "orders.create" },
);

export const changeSubscriptionAmountAction = merchantAction(
  subscriptionAmountForm,
  async ({ id, value }, { merchant }) => {
    await updateSubscription(merchant.id, id, { amount: { value } });
    return { data: { id }, message: "sub.detail.amountChanged" as const };
  },
  { decimalFields: ["value"], labels: { value: "sub.detail.newAmount" }, permission: "orders.create" },
);

/** Sandbox only: the payer authorises in the bank app, like POST /api/v1/sandbox/subscriptions/{id}/authorize. */
export const simulateAuthorisationAction = merchantAction(
  subscriptionIdForm,
  async ({ id }, { merchant }) => {
    if (sandboxUnavailable()) throw new NotFound("Subscription not found");
    await sandboxAuthorise(merchant.id, id);
    // What the worker's next sweep would do: the first cycle whose send window is open is charged now.
    await asEngineWork(() => chargeDueCycles(id));
    return { data: { id }, message: "sub.detail.simulatedAuthorisation" as const };
  },
  { permission: "orders.create" },
);

/** Sandbox only: a cycle's attempt settles at the payer's bank, paid or rejected. */
export const simulateCycleAction = merchantAction(
  subscriptionCycleForm,
  async ({ id, cycle, outcome }, { merchant }) => {
    if (sandboxUnavailable()) throw new NotFound("Subscription not found");
    await sandboxSettleCycle(merchant.id, id, cycle, outcome);
    return { data: { id }, message: "sub.detail.simulatedCycle" as const };
  },
  { permission: "orders.create" },
);
