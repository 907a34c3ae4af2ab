import { db } from "@/db";
import type { WebhookEndpoint } from "@/db/schema";
import { isUuid } from "@/lib/ids";
import { env } from "@/lib/env";
import { Conflict, InvalidInput, NotFound } from "@/lib/errors";
import { writeAndBind } from "@/lib/idempotency-binding";
import {
  cancelPendingDeliveries,
  countEndpoints,
  insertEndpoint,
  markEndpointDeleted,
  merchantEndpoint,
  merchantEndpoints,
} from "./queries";
import type { CreateWebhookInput } from "./schemas";
import { openSecret, sealSecret } from "./secrets";
import { generateSecret } from "./sign";
import { refuseNonPublic, resolveHost } from "./ssrf";

// Webhook endpoints of a merchant: register (the secret is shown once, and stored sealed:
// ./secrets.ts), list, and delete. Deleting is soft (the delivery log keeps pointing at the row) and
// cancels what was still waiting to be sent.

/** Each endpoint multiplies every event; a cap keeps one merchant from turning us into a load generator. */
export const MAX_ENDPOINTS_PER_MERCHANT = 16;

/** Private targets: allowed in sandbox (local development), refused in live mode, unless overridden. */
export function allowPrivateTargets(): boolean {
  const e = env();
  return e.WEBHOOK_ALLOW_PRIVATE ?? e.PAYMENTS_MODE === "sandbox";
}

/** The registration-time half of the SSRF guard (delivery checks again at connection time). */
async function assertReachableTarget(url: URL): Promise<void> {
  if (allowPrivateTargets()) return;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  try {
    addresses = await resolveHost(host);
  } catch {
    throw new InvalidInput(`Invalid request: url: host ${host} could not be resolved`, {
      code: "webhook.hostUnresolved",
      values: { host },
    });
  }
  const refused = refuseNonPublic(host, addresses);
  if (refused) throw new InvalidInput(`Invalid request: url: ${refused.message}`, { code: "webhook.privateAddress" });
}

export function endpointView(w: WebhookEndpoint) {
  return {
    id: w.id,
    url: w.url,
    description: w.description,
    status: w.disabledAt ? ("disabled" as const) : ("enabled" as const),
    disabledAt: w.disabledAt ? w.disabledAt.toISOString() : null,
    createdAt: w.createdAt.toISOString(),
  };
}

export async function createEndpoint(merchantId: string, input: CreateWebhookInput) {
  await assertReachableTarget(input.url);
  if ((await countEndpoints(db(), merchantId)) >= MAX_ENDPOINTS_PER_MERCHANT) {
    throw new InvalidInput(
      `A merchant can have at most ${MAX_ENDPOINTS_PER_MERCHANT} webhook endpoints; delete one first`,
      {
        code: "webhook.max",
        values: { max: MAX_ENDPOINTS_PER_MERCHANT },
      },
    );
  }
  // Only the sealed secret is stored; the merchant is shown it once, here.
  const secret = generateSecret();
  const row = await writeAndBind(
    (ex) =>
      insertEndpoint(ex, {
        merchantId,
        url: input.url.toString(),
        description: input.description || null,
        secret: sealSecret(secret),
      }),
    (w) => ({ type: "webhook_endpoint", id: w.id }),
  );
  return { ...endpointView(row), secret };
}

/** What registering answers (and what its Idempotency-Key replays): the only view with the secret. */
export function endpointCreatedView(w: WebhookEndpoint) {
  const secret = openSecret(w.secret);
  if (secret === null)
    throw new Conflict(
      "This webhook endpoint's signing secret can no longer be read (AUTH_SECRET changed): delete it and register it again",
    );
  return { ...endpointView(w), secret };
}

/** Whether deliveries to the endpoint can be signed: false once its secret no longer unseals (AUTH_SECRET changed). */
export function secretReadable(w: WebhookEndpoint): boolean {
  return openSecret(w.secret) !== null;
}

export async function listEndpoints(merchantId: string) {
  return (await merchantEndpoints(db(), merchantId)).map(endpointView);
}

/** The dashboard's list: each endpoint also says whether its secret still unseals, so one that cannot be signed for is shown as such. */
export async function listEndpointsWithSecretState(merchantId: string) {
  return (await merchantEndpoints(db(), merchantId)).map((w) => ({
    ...endpointView(w),
    secretReadable: secretReadable(w),
  }));
}

/** A merchant's endpoint that is not deleted; another merchant's id answers exactly like an unknown one. */
export async function findEndpoint(merchantId: string, id: string): Promise<WebhookEndpoint> {
  if (!isUuid(id)) throw new NotFound("Webhook not found");
  const row = await merchantEndpoint(db(), merchantId, id);
  if (!row) throw new NotFound("Webhook not found");
  return row;
}

export async function deleteEndpoint(merchantId: string, id: string): Promise<void> {
  if (!isUuid(id)) throw new NotFound("Webhook not found");
  await db().transaction(async (tx) => {
    if (!(await markEndpointDeleted(tx, merchantId, id))) throw new NotFound("Webhook not found");
    // A delivery being sent right now is cancelled too; its result will not overwrite this (the
    // dispatcher only writes to pending deliveries). A fan-out racing with this commit is caught
    // when the dispatcher claims it and finds the endpoint deleted.
    await cancelPendingDeliveries(tx, id);
  });
}
