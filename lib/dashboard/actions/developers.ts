"use server";

import { revalidatePath } from "next/cache";
import { grantableScopes } from "@/lib/identity/api-keys/scopes";
import { actorOf } from "@/lib/identity/dashboard/session";
import { Conflict, Forbidden } from "@/lib/errors";
import { translator } from "@/lib/i18n";
import { getLocale } from "@/lib/i18n/server";
import { createApiKey, revokeApiKey } from "@/lib/merchants/service";
import { merchantAction } from "@/lib/dashboard/server/merchant-action";
import { alertAdmins } from "@/lib/identity/alerts";
import { audit } from "@/lib/identity/audit";
import { scopesText } from "@/lib/identity/audit-text";
import { redeliver } from "@/lib/webhooks/deliveries";
import { createEndpoint, deleteEndpoint } from "@/lib/webhooks/registry";
import { sendTestEvent, TestEventWaiting } from "@/lib/webhooks/test-event";
import { apiKeyForm, orderIdForm, redeliverForm, webhookForm } from "../schemas";

// A new key or webhook decides who can act for the merchant and where its data goes: developers
// and admins only, audited, and the owners and admins are told. In live mode they also take a fresh
// second factor; a sandbox deployment's keys and webhooks reach no real money (its keys are refused by
// a live server, its database by live mode, its chains are test chains), so there they do not
// (docs/security.md#sandbox-keys-and-webhooks).

/**
 * The full key is returned to the browser once, in this response; only its hash is stored. A key
 * can do no more than its creator: its scopes must be ones the creator's role grants (checked here,
 * whatever the form offered).
 */
export const createApiKeyAction = merchantAction(
  apiKeyForm,
  async ({ name, scopes }, signedIn) => {
    const allowed = grantableScopes(signedIn.role);
    if (scopes.some((s) => !allowed.includes(s))) throw Forbidden.of("developers.scopeNotAllowed");
    const key = await createApiKey(signedIn.merchant.id, name, { scopes });
    const actor = actorOf(signedIn);
    await audit(actor, "apiKey.created", key.id, {
      name: key.name,
      prefix: key.prefix,
      lastFour: key.lastFour,
      scopes: key.scopes,
    });
    const locale = await getLocale();
    // The access in words ("Leitura, Saques"), as the Developers page names it, not the API's scope codes.
    const access = scopesText(translator(locale), key.scopes);
    await alertAdmins(
      { ...actor, merchantId: signedIn.merchant.id },
      "apiKey",
      `${key.name} (${key.prefix}…, ${access})`,
      locale,
    );
    revalidatePath("/dashboard/developers");
    return { data: { key: key.key, name: key.name } };
  },
  // `name` is the key's name here, not a customer's.
  { permission: "apiKeys.manage", stepUp: "live", labels: { name: "developers.keyName", scopes: "developers.scope" } },
);

export const revokeApiKeyAction = merchantAction(
  orderIdForm,
  async ({ id }, signedIn) => {
    const key = await revokeApiKey(signedIn.merchant.id, id);
    await audit(actorOf(signedIn), "apiKey.revoked", id, {
      name: key.name,
      prefix: key.prefix,
      lastFour: key.lastFour,
    });
    revalidatePath("/dashboard/developers");
    return { data: { id } };
  },
  { permission: "apiKeys.manage" },
);

/** The signing secret is returned to the browser once, in this response. */
export const createWebhookAction = merchantAction(
  webhookForm,
  async (input, signedIn) => {
    const created = await createEndpoint(signedIn.merchant.id, input);
    const actor = actorOf(signedIn);
    await audit(actor, "webhook.created", created.id, { url: created.url });
    await alertAdmins({ ...actor, merchantId: signedIn.merchant.id }, "webhook", created.url, await getLocale());
    revalidatePath("/dashboard/developers");
    return { data: { url: created.url, secret: created.secret } };
  },
  { permission: "webhooks.manage", stepUp: "live" },
);

export const deleteWebhookAction = merchantAction(
  orderIdForm,
  async ({ id }, signedIn) => {
    await deleteEndpoint(signedIn.merchant.id, id);
    await audit(actorOf(signedIn), "webhook.deleted", id);
    revalidatePath("/dashboard/developers");
    return { data: { id } };
  },
  { permission: "webhooks.manage" },
);

export const redeliverAction = merchantAction(
  redeliverForm,
  async ({ endpointId, deliveryId }, { merchant }) => {
    await redeliver(merchant.id, endpointId, deliveryId);
    return { data: { deliveryId }, message: "developers.redelivered" as const };
  },
  { permission: "webhooks.manage" },
);

/** A signed test event to one endpoint, through the dispatcher; its result appears in the delivery log. */
export const sendTestEventAction = merchantAction(
  orderIdForm,
  async ({ id }, { merchant }) => {
    try {
      const { eventId } = await sendTestEvent(merchant.id, id);
      return { data: { eventId }, message: "developers.testEventSent" as const };
    } catch (err) {
      // Said in the merchant's words: the earlier test is still in the delivery log below, retrying.
      if (err instanceof TestEventWaiting) throw Conflict.of("developers.testEventWaiting");
      throw err;
    }
  },
  { permission: "webhooks.manage" },
);
