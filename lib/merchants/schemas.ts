import { z } from "zod";
import { ACCOUNT_TYPES } from "@/db/schema";
import { classifyPixKey } from "@/lib/pix/keys";

// Operator-facing inputs (admin API and CLI share them), so the messages name the field and what
// would be accepted instead.

const requiredString = (what: string) =>
  z.string({ error: (issue) => (issue.input === undefined ? "is required" : `must be a string (${what})`) });

const companyName = requiredString("the company name")
  .trim()
  .min(1, "must not be empty")
  .max(120, "must be at most 120 characters");

export const PIX_KEY_KINDS_MESSAGE =
  "must be a valid PIX key: CPF (11 digits), CNPJ (14 characters), e-mail, phone as +55 with area code, or random key (EVP UUID)";

const pixKey = requiredString("a PIX key").refine((k) => classifyPixKey(k) !== null, PIX_KEY_KINDS_MESSAGE);

const accountType = z.enum(ACCOUNT_TYPES, { error: `must be one of: ${ACCOUNT_TYPES.join(", ")}` });

export const createMerchantBody = z
  .object({
    companyName,
    pixKey: pixKey.optional(),
    accountType: accountType.default("standard"),
    email: z.email({ error: "must be a valid e-mail address" }).optional(),
    password: requiredString("the dashboard password").min(8, "must be at least 8 characters").optional(),
    openingBalance: z
      .int({ error: "must be an integer number of centavos" })
      .min(0, "must be 0 or more (centavos)")
      .optional()
      .meta({ description: "Sandbox only: the starting balance in integer centavos (not BRL)" }),
  })
  .superRefine((body, ctx) => {
    // A dashboard user needs both; one without the other is almost certainly a mistake.
    if (body.email !== undefined && body.password === undefined) {
      ctx.addIssue({ code: "custom", path: ["password"], message: "is required when email is given" });
    }
    if (body.password !== undefined && body.email === undefined) {
      ctx.addIssue({ code: "custom", path: ["email"], message: "is required when password is given" });
    }
  });

export const updateMerchantBody = z
  .object({
    accountType: accountType.optional(),
    companyName: companyName.optional(),
    pixKey: pixKey.optional(),
  })
  .refine((body) => body.accountType !== undefined || body.companyName !== undefined || body.pixKey !== undefined, {
    message: "send at least one of accountType, companyName, pixKey",
  });

export type CreateMerchantInput = z.infer<typeof createMerchantBody>;
export type UpdateMerchantInput = z.infer<typeof updateMerchantBody>;

// Responses of the operator API (docs/api.md#operator-api).

export const merchantViewSchema = z
  .strictObject({
    id: z.uuid(),
    companyName: z.string(),
    pixKey: z.string().nullable(),
    accountType: accountType,
    balance: z.int().meta({ description: "Centavos" }),
  })
  .meta({ id: "Merchant" });
export type MerchantView = z.infer<typeof merchantViewSchema>;

export const createMerchantResponse = z.strictObject({
  merchant: merchantViewSchema,
  apiKey: z.string().meta({ description: "The merchant's first API key, shown only here" }),
});
export const updateMerchantResponse = z.strictObject({ merchant: merchantViewSchema });
export type CreatedMerchant = z.infer<typeof createMerchantResponse>;
