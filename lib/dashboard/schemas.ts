import { z } from "zod";
import { brlValue, bodyObject } from "@/lib/fields";
import { payCryptoPixBody } from "@/lib/crypto-pix/schemas";
import { createDepositBody } from "@/lib/onchain/schemas";
import { createExchangeOrderBody, createLightningOrderBody, createPixOrderBody } from "@/lib/orders/schemas";
import { refundOrderBody } from "@/lib/refunds/schemas";
import { createWebhookBody } from "@/lib/webhooks/schemas";
import { createInvoiceBody } from "@/lib/invoices/schemas";
import { createSubscriptionBody, updateSubscriptionBody } from "@/lib/subscriptions/schemas";
import { createRecipientBody, recipientPayoutBody, updateRecipientBody } from "@/lib/recipients/schemas";
import { isValidCnpj, isValidCpf } from "@/lib/pix/keys";
import { pixOutDestination } from "@/lib/withdrawals/destination";
import { onchainWithdrawBody } from "@/lib/withdrawals/schemas";
import { USER_ROLES } from "@/db/schema";
import { API_SCOPES, type ApiScope } from "@/lib/identity/api-keys/scopes";
import { companyNameField, emailField, newPasswordField, pixKeyField } from "@/lib/forms/fields";
import { formSchema } from "@/lib/forms/form";
import { withSplitRows } from "./split-form";

// The dashboard's forms. Orders and withdrawals reuse the API's request schemas through
// formSchema(), so a form accepts exactly what the API accepts; the dashboard-only forms (settings,
// keys) carry catalog keys as messages so they are shown in the visitor's language.

export const companyForm = formSchema(z.object({ companyName: companyNameField }));
export const payoutKeyForm = formSchema(z.object({ pixKey: pixKeyField }));
/** The payer's receipt: whether it names the split's recipients and parts (a box: absent is off). */
export const receiptForm = formSchema(z.object({ receiptShowsSplits: z.literal("on").optional() }));

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

export const pixOrderForm = formSchema(withSplitRows(createPixOrderBody), {
  decimal: DECIMAL_FIELDS,
  integer: ["expiresIn"],
});
export const exchangeOrderForm = formSchema(withSplitRows(createExchangeOrderBody), { decimal: DECIMAL_FIELDS });
export const lightningOrderForm = formSchema(withSplitRows(createLightningOrderBody), { decimal: DECIMAL_FIELDS });
export const depositOrderForm = formSchema(withSplitRows(createDepositBody), { decimal: DECIMAL_FIELDS });
export const cryptoPixOrderForm = formSchema(payCryptoPixBody, { decimal: DECIMAL_FIELDS });

export const onchainWithdrawForm = formSchema(onchainWithdrawBody, { decimal: DECIMAL_FIELDS });
/**
 * The form asks for BRL; the API's pix-out `value` is centavos, which brlValue produces. The key is
 * checked as the form checked it before its review step (type and check digits).
 */
export const pixOutForm = formSchema(bodyObject({ value: brlValue, pixKey: pixOutDestination.optional() }), {
  decimal: DECIMAL_FIELDS,
});

/** A withdrawal the history names (cancelling one that waits for its destination). */
export const withdrawalIdForm = formSchema(z.object({ id: z.uuid({ error: "errors.required" }) }));
/** Where a withdrawal under review would go, for the review step's word on a new destination; blank PIX key: the registered one. */
export const destinationPeekForm = formSchema(
  z.object({ kind: z.enum(["pix_key", "chain_address"]), value: z.string().trim().max(100).default("") }),
);

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

/** A return of unapplied funds that waits for its destination, cancelled from the order's page. */
export const unappliedCancelForm = formSchema(
  z.object({ id: z.uuid({ error: "errors.required" }), resolutionId: z.uuid({ error: "errors.required" }) }),
);

/** The refund API's own body, but the amount is required: the dashboard never refunds "all that is left" by default. */
export const refundForm = formSchema(
  refundOrderBody.extend({ id: z.uuid({ error: "errors.required" }), value: brlValue }),
  { decimal: DECIMAL_FIELDS },
);

/**
 * A new invoice, as a phone fills it in: the payer's CPF or CNPJ in one field, a fine and a monthly
 * interest as percentages, one discount until a date. Turned into the API's body and judged by its own
 * schema (createInvoiceBody), so the form accepts what the API accepts.
 */
export const INVOICE_DECIMAL_FIELDS = ["value", "finePercent", "interestPercent", "discountValue"] as const;
const document = z
  .string({ error: "errors.required" })
  .transform((s) => s.replace(/[./\-\s]/g, "").toUpperCase())
  .refine((s) => isValidCpf(s) || isValidCnpj(s), "invoice.form.documentInvalid");
const optionalNumber = z.number({ error: "errors.field.number" }).optional();
export const invoiceForm = formSchema(
  z
    .object({
      value: z.number({ error: "errors.required" }),
      dueDate: z.string({ error: "errors.required" }),
      daysAfterDue: z.number({ error: "errors.required" }).optional(),
      payerName: z.string({ error: "errors.required" }),
      payerDocument: document,
      payerEmail: z.string().optional(),
      notifyPayer: ticked,
      description: z.string().optional(),
      reference: z.string().optional(),
      finePercent: optionalNumber,
      interestPercent: optionalNumber,
      discountValue: optionalNumber,
      discountUntil: z.string().optional(),
    })
    .transform((f): z.input<typeof createInvoiceBody> => ({
      value: f.value,
      dueDate: f.dueDate,
      ...(f.daysAfterDue !== undefined ? { daysAfterDue: f.daysAfterDue } : {}),
      payer: {
        name: f.payerName,
        ...(f.payerDocument.length === 11 ? { cpf: f.payerDocument } : { cnpj: f.payerDocument }),
        ...(f.payerEmail ? { email: f.payerEmail } : {}),
      },
      notifyPayer: f.notifyPayer === "on",
      ...(f.description ? { description: f.description } : {}),
      ...(f.reference ? { reference: f.reference } : {}),
      ...(f.finePercent !== undefined ? { fine: { modalidade: 2, percent: f.finePercent } } : {}),
      ...(f.interestPercent !== undefined ? { interest: { modalidade: 3, percent: f.interestPercent } } : {}),
      ...(f.discountValue !== undefined || f.discountUntil
        ? { discount: { modalidade: 1, dates: [{ date: f.discountUntil ?? f.dueDate, value: f.discountValue! }] } }
        : {}),
    }))
    .pipe(createInvoiceBody),
  { decimal: INVOICE_DECIMAL_FIELDS, integer: ["daysAfterDue"] },
);
/** Where the API body's fields are on the form, for their errors: nested ones under the field that fills them. */
export const INVOICE_FORM_LABELS = {
  payer: "invoice.form.payer",
  fine: "invoice.form.finePercent",
  interest: "invoice.form.interestPercent",
  discount: "invoice.form.discount",
  dueDate: "invoice.form.dueDate",
  daysAfterDue: "invoice.form.daysAfterDue",
  payerName: "invoice.form.payerName",
  payerDocument: "invoice.form.payerDocument",
  payerEmail: "invoice.form.payerEmail",
  notifyPayer: "invoice.form.notifyPayer",
  reference: "invoice.form.reference",
  description: "invoice.form.description",
  finePercent: "invoice.form.finePercent",
  interestPercent: "invoice.form.interestPercent",
  discountValue: "invoice.form.discountValue",
  discountUntil: "invoice.form.discountUntil",
} as const;
export const invoiceIdForm = formSchema(z.object({ id: z.uuid({ error: "errors.required" }) }));
export const invoicePayForm = formSchema(
  z.object({ id: z.uuid({ error: "errors.required" }), date: z.string().optional() }),
);

/**
 * A new subscription (Pix Automático): the payer's CPF or CNPJ in one field, the amount's kind as a
 * choice and its value (and, variable, the least the payer's cap may be). Turned into the API's body
 * and judged by its own schema (createSubscriptionBody), so the form accepts what the API accepts.
 */
export const SUBSCRIPTION_DECIMAL_FIELDS = ["value", "minimum"] as const;
export const subscriptionForm = formSchema(
  z
    .object({
      journey: z.string({ error: "errors.required" }),
      amountType: z.string({ error: "errors.required" }),
      value: z.number({ error: "errors.required" }),
      minimum: optionalNumber,
      periodicity: z.string({ error: "errors.required" }),
      firstDate: z.string({ error: "errors.required" }),
      lastDate: z.string().optional(),
      retryPolicy: z.string({ error: "errors.required" }),
      payerName: z.string({ error: "errors.required" }),
      payerDocument: document,
      description: z.string({ error: "errors.required" }),
      reference: z.string().optional(),
    })
    .transform(
      (f): z.input<typeof createSubscriptionBody> =>
        ({
          payer: {
            name: f.payerName,
            ...(f.payerDocument.length === 11 ? { cpf: f.payerDocument } : { cnpj: f.payerDocument }),
          },
          description: f.description,
          ...(f.reference ? { reference: f.reference } : {}),
          amount:
            f.amountType === "VARIABLE"
              ? { type: "VARIABLE", value: f.value, ...(f.minimum !== undefined ? { minimum: f.minimum } : {}) }
              : { type: f.amountType, value: f.value },
          periodicity: f.periodicity,
          firstDate: f.firstDate,
          ...(f.lastDate ? { lastDate: f.lastDate } : {}),
          retryPolicy: f.retryPolicy,
          journey: f.journey,
        }) as z.input<typeof createSubscriptionBody>,
    )
    .pipe(createSubscriptionBody),
  { decimal: SUBSCRIPTION_DECIMAL_FIELDS },
);
/** Where the API body's fields are on the form, for their errors. */
export const SUBSCRIPTION_FORM_LABELS = {
  payer: "sub.form.payerName",
  payerName: "sub.form.payerName",
  payerDocument: "sub.form.payerDocument",
  description: "sub.form.description",
  reference: "sub.form.reference",
  amount: "sub.form.value",
  value: "sub.form.value",
  minimum: "sub.form.minimum",
  amountType: "sub.form.amountType",
  periodicity: "sub.form.periodicity",
  firstDate: "sub.form.firstDate",
  lastDate: "sub.form.lastDate",
  retryPolicy: "sub.form.retryPolicy",
  journey: "sub.form.journey",
} as const;
export const subscriptionIdForm = formSchema(z.object({ id: z.uuid({ error: "errors.required" }) }));
/** A VARIABLE subscription's new amount: the API body's `amount.value`, in BRL as typed. */
export const subscriptionAmountForm = formSchema(
  z.object({ id: z.uuid({ error: "errors.required" }), value: updateSubscriptionBody.shape.amount.shape.value }),
  { decimal: ["value"] },
);
export const subscriptionCycleForm = formSchema(
  z.object({
    id: z.uuid({ error: "errors.required" }),
    cycle: z.number({ error: "errors.required" }).int(),
    outcome: z.enum(["paid", "rejected"]),
  }),
  { integer: ["cycle"] },
);

/**
 * A recipient ("recebedor") as the dashboard adds it: the API's own body (document and key checked
 * there), blanks being "not sent".
 */
export const RECIPIENT_INTEGER_FIELDS = ["payoutMonthDay"] as const;
export const RECIPIENT_DECIMAL_FIELDS = ["payoutMinimum"] as const;
/**
 * The automatic payout schedule's fields, flat on the form: a blank interval is no schedule, and only
 * the day field of the chosen interval is sent (the other may keep what was typed before a switch).
 */
const scheduleFields = {
  payoutInterval: z.string().optional(),
  payoutWeekday: z.string().optional(),
  payoutMonthDay: z.unknown().optional(),
  payoutMinimum: z.unknown().optional(),
};
type ScheduleFields = {
  payoutInterval?: string;
  payoutWeekday?: string;
  payoutMonthDay?: unknown;
  payoutMinimum?: unknown;
};
type ScheduleInput = z.input<typeof createRecipientBody>["payoutSchedule"];
/** The API body's schedule from the form's fields (the API's schema judges what was typed). */
function scheduleFromForm(f: ScheduleFields): ScheduleInput {
  if (!f.payoutInterval) return null;
  return {
    interval: f.payoutInterval,
    ...(f.payoutInterval === "weekly" && f.payoutWeekday !== undefined ? { weekday: f.payoutWeekday } : {}),
    ...(f.payoutInterval === "monthly" && f.payoutMonthDay !== undefined ? { monthDay: f.payoutMonthDay } : {}),
    ...(f.payoutMinimum !== undefined ? { minimumValue: f.payoutMinimum } : {}),
  } as ScheduleInput;
}
export const recipientForm = formSchema(
  z
    .looseObject(scheduleFields)
    .transform(({ payoutInterval, payoutWeekday, payoutMonthDay, payoutMinimum, ...rest }) => {
      const payoutSchedule = scheduleFromForm({ payoutInterval, payoutWeekday, payoutMonthDay, payoutMinimum });
      return { ...rest, ...(payoutSchedule ? { payoutSchedule } : {}) } as z.input<typeof createRecipientBody>;
    })
    .pipe(createRecipientBody),
  { integer: RECIPIENT_INTEGER_FIELDS, decimal: RECIPIENT_DECIMAL_FIELDS },
);
/**
 * An edit: every field of the form is sent, so a blank e-mail or reference clears it and the
 * "active" box sets the status; judged by the API's PATCH body.
 */
const recipientEditBody = updateRecipientBody.extend({ id: z.uuid() });
export const recipientEditForm = formSchema(
  z
    .object({
      id: z.uuid({ error: "errors.required" }),
      name: z.string({ error: "errors.required" }),
      // Blank: the key stays (the form shows the current one masked, as every view does).
      pixKey: z.string().optional(),
      email: z.string().optional(),
      reference: z.string().optional(),
      active: ticked,
      ...scheduleFields,
    })
    .transform(({ active, ...f }): z.input<typeof recipientEditBody> => ({
      id: f.id,
      name: f.name,
      ...(f.pixKey ? { pixKey: f.pixKey } : {}),
      email: f.email ?? null,
      reference: f.reference ?? null,
      status: active === "on" ? "ACTIVE" : "DISABLED",
      // A blank interval stops automatic payouts; the same schedule again keeps its start.
      payoutSchedule: scheduleFromForm(f),
    }))
    .pipe(recipientEditBody),
  { integer: RECIPIENT_INTEGER_FIELDS, decimal: RECIPIENT_DECIMAL_FIELDS },
);
/** Paying a recipient out: blank amount = its whole balance, as the API's body has it. */
export const recipientPayoutForm = formSchema(
  recipientPayoutBody.extend({ id: z.uuid({ error: "errors.required" }) }),
  {
    decimal: DECIMAL_FIELDS,
  },
);
