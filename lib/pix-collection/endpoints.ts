import { timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { env } from "@/lib/env";
import { NotFound } from "@/lib/errors";
import { defineEndpoint } from "@/lib/http/endpoint";
import { messageBody } from "@/lib/http/error-body";
import { providerCallback } from "@/lib/http/provider-caller";
import { railEnabled } from "@/lib/providers/rails";
import { acceptPixNotification, pixNotificationBody } from "./receiver";

// The API Pix notification receiver: POST {PUBLIC_BASE_URL}/api/v1/providers/pix/{token}/pix, and the
// URL as registered (docs/providers.md "PIX collection"). The token in the path keeps strangers from
// making us read at all; what they could post would change nothing anyway (./notifications.ts).

/** The notification URL's token (PIX_WEBHOOK_TOKEN), compared in constant time. */
export function tokenMatches(given: string): boolean {
  const expected = env().PIX_WEBHOOK_TOKEN;
  if (!expected) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export const pixNotificationEndpoint = defineEndpoint({
  method: "POST",
  path: "/api/v1/providers/pix/{token}/pix",
  caller: providerCallback("pix"),
  // The token is the URL's secret: never in a log line.
  secretParams: ["token"],
  errorBody: messageBody,
  body: pixNotificationBody,
  // Sandbox too, when a token is set: nothing notified can be confirmed there, but the wiring can be tried.
  unavailable: () =>
    railEnabled("pix") && env().PIX_WEBHOOK_TOKEN ? null : "PIX notifications are not configured on this server",
  response: {
    status: 200,
    description: "Received: each PIX is read back from the PSP before it counts",
    schema: z.strictObject({ received: z.number().int() }),
    example: { received: 1 },
  },
  docs: {
    summary: "API Pix notification receiver (for the PSP)",
    description:
      "Where the PSP posts received PIX (register `{PUBLIC_BASE_URL}/api/v1/providers/pix/{PIX_WEBHOOK_TOKEN}` with `PUT /webhook/{chave}`; the PSP appends `/pix`). Nothing in the body is trusted: every end-to-end id is read back with `GET /pix/{e2eid}` and only what the PSP answers is applied.",
    tag: "Provider callbacks",
    params: { token: "PIX_WEBHOOK_TOKEN" },
    requestExample: {
      pix: [
        {
          endToEndId: "E12345678202611241530abcdefghijk",
          txid: "7978c0c97ea847e78e8849634473c1f1",
          valor: "25.90",
          horario: "2026-11-24T15:30:12.000Z",
          infoPagador: "pedido-1042",
        },
      ],
    },
    errors: [400, 404],
    errorExamples: { 404: { message: "Not found" } },
  },
  async handle({ params, body }) {
    if (!tokenMatches(params.token)) throw new NotFound("Not found");
    return { received: await acceptPixNotification(body) };
  },
});

/**
 * The URL as registered, without the "/pix" the PSP appends to notifications: Efí posts a test
 * notification here when the webhook is registered, and refuses the registration unless it gets a
 * 2xx (docs/providers.md, Efí). A body with `pix` is taken as a notification too (a PSP registered
 * with "?ignorar=", or one that does not append "/pix").
 */
export const pixWebhookRootEndpoint = defineEndpoint({
  method: "POST",
  path: "/api/v1/providers/pix/{token}",
  caller: providerCallback("pix"),
  secretParams: ["token"],
  errorBody: messageBody,
  body: z
    .looseObject({ pix: pixNotificationBody.shape.pix.optional() })
    .meta({ description: "The PSP's test notification, or a notification" }),
  unavailable: () =>
    railEnabled("pix") && env().PIX_WEBHOOK_TOKEN ? null : "PIX notifications are not configured on this server",
  response: {
    status: 200,
    description:
      "Received: a test notification is acknowledged; each notified PIX is read back from the PSP before it counts",
    schema: z.strictObject({ received: z.number().int() }),
    example: { received: 0 },
  },
  docs: {
    summary: "API Pix webhook URL as registered (for the PSP's test notification)",
    description:
      'The URL registered with `PUT /webhook/{chave}`. PSPs post notifications to it with `/pix` appended; Efí also posts a test notification (`{"evento":"teste_webhook"}`) to the URL itself at registration and refuses the registration unless it is answered with a 2xx. A body with `pix` is processed as a notification.',
    tag: "Provider callbacks",
    params: { token: "PIX_WEBHOOK_TOKEN" },
    requestExample: { evento: "teste_webhook" },
    errors: [400, 404],
    errorExamples: { 404: { message: "Not found" } },
  },
  async handle({ params, body }) {
    if (!tokenMatches(params.token)) throw new NotFound("Not found");
    return { received: body.pix ? await acceptPixNotification({ pix: body.pix }) : 0 };
  },
});

export const PIX_COLLECTION_ENDPOINTS = [pixNotificationEndpoint, pixWebhookRootEndpoint];
