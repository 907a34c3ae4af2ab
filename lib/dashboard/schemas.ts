import { z } from "zod";
import { brlValue, bodyObject } from "@/lib/fields";
import { payCryptoPixBody } from "@/lib/crypto-pix/schemas";
import { createDepositBody } from "@/lib/onchain/schemas";
import { createExchangeOrderBody, createLightningOrderBody, createPixOrderBody } from "@/lib/orders/schemas";
import { refundOrderBody } from "@/lib/refunds/schemas";
import { createWebhookBody } from "@/lib/webhooks/schemas";
import { pixOutDestination } from "@/lib/withdrawals/destination";
import { onchainWithdrawBody } from "@/lib/withdrawals/schemas";
import { USER_ROLES } from "@/db/schema";
import { API_SCOPES, type ApiScope } from "@/lib/identity/api-keys/scopes";
import { companyNameField, emailField, newPasswordField, pixKeyField } from "@/lib/forms/fields";
import { formSchema } from "@/lib/forms/form";

// The dashboard's forms. Orders and withdrawals reuse the API's request schemas through
// formSchema(), so a form accepts exactly what the API accepts; the dashboard-only forms (settings,
// keys) carry catalog keys as messages so they are shown in the visitor's language.

export const companyForm = formSchema(z.object({ companyName: companyNameField }));
export const payoutKeyForm = formSchema(z.object({ pixKey: pixKeyField }));

/** A key's scopes are one checkbox each, named by scopeField (FormData keeps one value per name). */
export const scopeField = (scope: ApiScope) => `scope-${scope}` as const;
const ticked = z.literal("on").optional();
export const apiKeyForm = formSchema(
  z
    .object({
      name: z.string({ error: "errors.required" }).trim().min(1, "errors.required").max(100, "errors.tooLong"),
      "scope-read": ticked,
      "scope-payments": ticked,
      "scope-refunds": ticked,
      "scope-withdrawals": ticked,
    })
    .transform((form) => ({ name: form.name, scopes: API_SCOPES.filter((s) => form[scopeField(s)] === "on") }))
    .refine((key) => key.scopes.length > 0, { path: ["scopes"], message: "developers.scopesRequired" }),
);

// Account security (lib/dashboard/actions/security.ts, team.ts).
const code = z.string({ error: "errors.required" }).trim().min(1, "errors.required").max(32, "errors.tooLong");
export const totpCodeForm = formSchema(z.object({ code }));
/** Enrolling a factor: the password again, then the app's code and the code mailed to the user. */
export const enrolStartForm = formSchema(
  z.object({ password: z.string({ error: "errors.required" }).min(1, "errors.required").max(1024) }),
);
export const enrolConfirmForm = formSchema(z.object({ code, emailCode: code }));
export const passwordChangeForm = formSchema(
  z.object({
    currentPassword: z.string({ error: "errors.required" }).min(1, "errors.required").max(1024),
    newPassword: newPasswordField,
  }),
);
export const inviteForm = formSchema(
  z.object({ email: emailField, role: z.enum(USER_ROLES, { error: "errors.required" }) }),
);
export const memberRoleForm = formSchema(
  z.object({ id: z.uuid(), role: z.enum(USER_ROLES, { error: "errors.required" }) }),
);

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
export const pixOutForm = formSchema(bodyObject({ value: brlValue, pixKey: pixOutDestination.optional() }), {
  decimal: DECIMAL_FIELDS,
});

/** Forms whose only content is the button (and a step-up code). */
export const emptyForm = formSchema(z.object({}));

export const orderIdForm = formSchema(z.object({ id: z.uuid({ error: "errors.required" }) }));

/** One transfer's unapplied funds on an on-chain order; a return may name another address (blank: the sender). */
export const unappliedForm = formSchema(
  z.object({ id: z.uuid({ error: "errors.required" }), transferId: z.uuid({ error: "errors.required" }) }),
);
export const unappliedReturnForm = formSchema(
  z.object({
    id: z.uuid({ error: "errors.required" }),
    transferId: z.uuid({ error: "errors.required" }),
    toAddress: z.string().trim().max(64, "errors.tooLong").optional(),
  }),
);

/** The refund API's own body, but the amount is required: the dashboard never refunds "all that is left" by default. */
export const refundForm = formSchema(
  refundOrderBody.extend({ id: z.uuid({ error: "errors.required" }), value: brlValue }),
  { decimal: DECIMAL_FIELDS },
);
