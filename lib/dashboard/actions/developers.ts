"use server";

import { revalidatePath } from "next/cache";
import { createApiKey, revokeApiKey } from "@/lib/merchants/service";
import { merchantAction } from "@/lib/dashboard/server/merchant-action";
import { redeliver } from "@/lib/webhooks/deliveries";
import { createEndpoint, deleteEndpoint } from "@/lib/webhooks/registry";
import { apiKeyForm, orderIdForm, redeliverForm, webhookForm } from "../schemas";

/** The full key is returned to the browser once, in this response; only its hash is stored. */
export const createApiKeyAction = merchantAction(
  apiKeyForm,
  async ({ name }, { merchant }) => {
    const key = await createApiKey(merchant.id, name);
    revalidatePath("/dashboard/developers");
    return { data: { key: key.key, name: key.name } };
  },
  // `name` is the key's name here, not a customer's.
  { labels: { name: "developers.keyName" } },
);

export const revokeApiKeyAction = merchantAction(orderIdForm, async ({ id }, { merchant }) => {
  await revokeApiKey(merchant.id, id);
  revalidatePath("/dashboard/developers");
  return { data: { id } };
});

/** The signing secret is returned to the browser once, in this response. */
export const createWebhookAction = merchantAction(webhookForm, async (input, { merchant }) => {
  const created = await createEndpoint(merchant.id, input);
  revalidatePath("/dashboard/developers");
  return { data: { url: created.url, secret: created.secret } };
});

export const deleteWebhookAction = merchantAction(orderIdForm, async ({ id }, { merchant }) => {
  await deleteEndpoint(merchant.id, id);
  revalidatePath("/dashboard/developers");
  return { data: { id } };
});

export const redeliverAction = merchantAction(redeliverForm, async ({ endpointId, deliveryId }, { merchant }) => {
  await redeliver(merchant.id, endpointId, deliveryId);
  return { data: { deliveryId }, message: "developers.redelivered" as const };
});
