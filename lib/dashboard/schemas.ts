import { z } from "zod";
import { brlValue, bodyObject } from "@/lib/fields";
import { payCryptoPixBody } from "@/lib/crypto-pix/schemas";
import { createDepositBody } from "@/lib/onchain/schemas";
import { createExchangeOrderBody, createLightningOrderBody, createPixOrderBody } from "@/lib/orders/schemas";
import { refundOrderBody } from "@/lib/refunds/schemas";
import { createWebhookBody } from "@/lib/webhooks/schemas";
import { pixOutDestination } from "@/lib/withdrawals/destination";
import { onchainWithdrawBody } from "@/lib/withdrawals/schemas";
import { companyNameField, pixKeyField } from "@/lib/forms/fields";
import { formSchema } from "@/lib/forms/form";

// The dashboard's forms. Orders and withdrawals reuse the API's request schemas through
// formSchema(), so a form accepts exactly what the API accepts; the dashboard-only forms (settings,
// keys) carry catalog keys as messages so they are shown in the visitor's language.

export const settingsForm = formSchema(z.object({ companyName: companyNameField, pixKey: pixKeyField }));

export const apiKeyForm = formSchema(z.object({ name: z.string({ error: "errors.required" }).trim().min(1, "errors.required").max(100, "errors.tooLong") }));

/** The webhooks API's own body schema (URL shape rules included). */
export const webhookForm = formSchema(createWebhookBody);
export const redeliverForm = formSchema(z.object({ endpointId: z.uuid(), deliveryId: z.uuid() }));

export const DECIMAL_FIELDS = ["value"] as const;

export const pixOrderForm = formSchema(createPixOrderBody, { decimal: DECIMAL_FIELDS, integer: ["expiresIn"] });
export const exchangeOrderForm = formSchema(createExchangeOrderBody, { decimal: DECIMAL_FIELDS });
export const lightningOrderForm = formSchema(createLightningOrderBody, { decimal: DECIMAL_FIELDS });
export const depositOrderForm = formSchema(createDepositBody, { decimal: DECIMAL_FIELDS });
export const cryptoPixOrderForm = formSchema(payCryptoPixBody, { decimal: DECIMAL_FIELDS });

export const onchainWithdrawForm = formSchema(onchainWithdrawBody, { decimal: DECIMAL_FIELDS });
/**
 * The form asks for BRL; the API's pix-out `value` is centavos, which brlValue produces. The key is
 * checked as the form checked it before its review step (type and check digits).
 */
export const pixOutForm = formSchema(bodyObject({ value: brlValue, pixKey: pixOutDestination.optional() }), { decimal: DECIMAL_FIELDS });

export const orderIdForm = formSchema(z.object({ id: z.uuid({ error: "errors.required" }) }));

/** The refund API's own body, plus the order it refunds. */
export const refundForm = formSchema(refundOrderBody.extend({ id: z.uuid({ error: "errors.required" }) }), { decimal: DECIMAL_FIELDS });
