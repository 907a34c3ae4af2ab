import { z } from "zod";
import { db } from "@/db";
import { Unauthorized } from "@/lib/errors";
import { defineEndpoint } from "@/lib/http/endpoint";
import { readBodyText } from "@/lib/http/body";
import { messageBody } from "@/lib/http/error-body";
import { providerCallback } from "@/lib/http/provider-caller";
import { log } from "@/lib/log";
import { orderByProviderRef } from "@/lib/orders/queries";
import { providers } from "@/lib/providers";
import { OPENNODE_PROVIDER } from "@/lib/providers/lightning/opennode";
import { confirmLightningOrder } from "./confirm";

// OpenNode's charge callbacks (docs/providers.md#lightning-opennode): POST {PUBLIC_BASE_URL}/api/v1/providers/opennode/webhook,
// form-encoded (JSON is accepted too). One counts only when hashed_order = HMAC-SHA256(API key, charge
// id) and a read of the charge agrees; the charge's own settlement time is the payment time.

function fieldsOf(text: string, contentType: string | null): Record<string, unknown> {
  if (contentType?.includes("application/json")) {
    try {
      const parsed: unknown = JSON.parse(text);
      return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  }
  return Object.fromEntries(new URLSearchParams(text));
}

export const openNodeCallbackEndpoint = defineEndpoint({
  method: "POST",
  path: "/api/v1/providers/opennode/webhook",
  caller: providerCallback("opennode"),
  errorBody: messageBody,
  unavailable: () =>
    providers().lightning.name === OPENNODE_PROVIDER ? null : "OpenNode is not this server's Lightning provider",
  response: {
    status: 200,
    description: "Received: the charge is read back before it counts",
    schema: z.strictObject({ received: z.boolean() }),
    example: { received: true },
  },
  docs: {
    summary: "OpenNode charge callback (for OpenNode)",
    description:
      "Where OpenNode reports a charge's status (`callback_url` of every charge). Refused (401) unless `hashed_order` is HMAC-SHA256 of the charge id under the API key; then the charge is read back and only what OpenNode answers is applied.",
    tag: "Provider callbacks",
    errors: [401, 404],
    errorExamples: { 401: { message: "Callback signature does not verify" } },
  },
  async handle({ req }) {
    const text = await readBodyText(req);
    const fields = fieldsOf(text, req.headers.get("content-type"));
    const lightning = providers().lightning;
    if (!lightning.verifyCallback?.(fields)) throw new Unauthorized("Callback signature does not verify");
    const order = await orderByProviderRef(db(), lightning.name, String(fields.id));
    if (!order) {
      log.warn("OpenNode callback for a charge of no order", { chargeId: String(fields.id) });
      return { received: false };
    }
    await confirmLightningOrder(order, "notification");
    return { received: true };
  },
});

export const LIGHTNING_ENDPOINTS = [openNodeCallbackEndpoint];
