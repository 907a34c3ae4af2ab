import { z } from "zod";
import { bodyObject, optionalText } from "@/lib/api/schemas";
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
      ctx.addIssue({ code: "custom", message: "must not contain credentials (user:password@); authenticate requests by their signature" });
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
  limit: z.coerce.number({ error: "must be a number" }).int("must be a whole number").min(1, "must be at least 1").max(100, "must be at most 100").default(50),
});

export const listDeliveriesQuery = z.object({
  cursor: z.string().max(200, "is not a valid cursor").optional(),
  limit: z.coerce.number({ error: "must be a number" }).int("must be a whole number").min(1, "must be at least 1").max(100, "must be at most 100").default(50),
  status: z.enum(WEBHOOK_DELIVERY_STATUSES, { error: `must be one of ${WEBHOOK_DELIVERY_STATUSES.join(", ")}` }).optional(),
});
