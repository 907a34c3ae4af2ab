import { z } from "zod";
import { bodyObject, optionalText } from "@/lib/fields";
import { env } from "@/lib/env";
import { WEBHOOK_DELIVERY_STATUSES } from "@/db/schema";

export const MAX_WEBHOOK_URL_LENGTH = 2048;

/**
 * The shape of a webhook URL, checked without the network: absolute, http(s) (https only in live
 * mode), no credentials (they would be sent to every redirect target and logged everywhere), no
 * fragment (never sent, so always a mistake). Where it resolves to is checked by the service.
 */
export const webhookUrl = z
  .string({ error: (i) => (i.input === undefined ? "is required" : "must be a string") })
  .trim()
  .min(1, "must not be empty")
  .max(MAX_WEBHOOK_URL_LENGTH, `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`)
  .transform((raw, ctx) => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      ctx.addIssue({ code: "custom", message: "must be an absolute URL such as https://example.com/webhooks" });
      return z.NEVER;
    }
    const live = env().PAYMENTS_MODE === "live";
    if (url.protocol !== "https:" && !(url.protocol === "http:" && !live)) {
      ctx.addIssue({ code: "custom", message: live ? "must use https in live mode" : "must use http or https" });
      return z.NEVER;
    }
    if (url.username || url.password) {
      ctx.addIssue({
        code: "custom",
        message: "must not contain credentials (user:password@); authenticate requests by their signature",
      });
      return z.NEVER;
    }
    if (url.hash) {
      ctx.addIssue({ code: "custom", message: "must not contain a fragment (#…)" });
      return z.NEVER;
    }
    if (!url.hostname) {
      ctx.addIssue({ code: "custom", message: "must have a host" });
      return z.NEVER;
    }
    return url;
  });

export const createWebhookBody = bodyObject({
  url: webhookUrl,
  description: optionalText(200),
});
export type CreateWebhookInput = z.output<typeof createWebhookBody>;

export const listEventsQuery = z.object({
  after: z.string().max(200, "is not a valid cursor").optional(),
  limit: z.coerce
    .number({ error: "must be a number" })
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(100, "must be at most 100")
    .default(50),
});

export const listDeliveriesQuery = z.object({
  cursor: z.string().max(200, "is not a valid cursor").optional(),
  limit: z.coerce
    .number({ error: "must be a number" })
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(100, "must be at most 100")
    .default(50),
  status: z
    .enum(WEBHOOK_DELIVERY_STATUSES, { error: `must be one of ${WEBHOOK_DELIVERY_STATUSES.join(", ")}` })
    .optional(),
});

// Responses (docs/webhooks.md#endpoints). The views in ./endpoints.ts and ./deliveries.ts return these types.

const iso = z.iso.datetime();

export const webhookEndpointSchema = z
  .strictObject({
    id: z.uuid(),
    url: z.string().meta({ description: "Where events are POSTed" }),
    description: z.string().nullable(),
    status: z
      .enum(["enabled", "disabled"])
      .meta({ description: "disabled: the endpoint answered 410 Gone; register the URL again" }),
    disabledAt: iso.nullable(),
    createdAt: iso,
  })
  .meta({ id: "WebhookEndpoint" });
export type WebhookEndpointView = z.infer<typeof webhookEndpointSchema>;

export const createdWebhookSchema = webhookEndpointSchema
  .extend({ secret: z.string().meta({ description: "whsec_…: the signing secret, shown in this response only" }) })
  .meta({ id: "CreatedWebhookEndpoint" });

export const webhookAttemptSchema = z.strictObject({
  attempt: z.int(),
  startedAt: iso,
  durationMs: z.int(),
  statusCode: z.int().nullable(),
  error: z.string().nullable(),
  responseExcerpt: z.string().nullable(),
  nextAttemptAt: iso.nullable(),
});

export const webhookDeliverySchema = z
  .strictObject({
    id: z.uuid(),
    eventId: z.uuid(),
    eventType: z.string(),
    status: z.enum(WEBHOOK_DELIVERY_STATUSES),
    attempts: z.int(),
    lastStatusCode: z.int().nullable(),
    lastError: z.string().nullable(),
    lastAttemptAt: iso.nullable(),
    nextAttemptAt: iso.nullable(),
    completedAt: iso.nullable(),
    redeliveryOf: z.uuid().nullable().meta({ description: "The first delivery this one repeats" }),
    createdAt: iso,
    attemptsLog: z.array(webhookAttemptSchema),
  })
  .meta({ id: "WebhookDelivery" });
export type WebhookDeliveryView = z.infer<typeof webhookDeliverySchema>;

export const eventSchema = z
  .strictObject({ id: z.uuid(), type: z.string(), createdAt: iso, data: z.record(z.string(), z.unknown()) })
  .meta({ id: "Event", description: "The same object a webhook delivery POSTs" });

export const createWebhookResponse = z.strictObject({ webhook: createdWebhookSchema });
export const listWebhooksResponse = z.strictObject({ webhooks: z.array(webhookEndpointSchema) });
export const listDeliveriesResponse = z.strictObject({
  deliveries: z.array(webhookDeliverySchema),
  nextCursor: z.string().nullable(),
});
export const redeliverResponse = z.strictObject({ delivery: webhookDeliverySchema });
export const listEventsResponse = z.strictObject({
  events: z.array(eventSchema),
  nextCursor: z
    .string()
    .nullable()
    .meta({ description: "Pass as `after` for the next page; null before the first event" }),
  hasMore: z.boolean(),
});
