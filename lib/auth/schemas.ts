import { z } from "zod";
import { companyNameField, pixKeyField } from "@/lib/forms/fields";
import { formSchema } from "@/lib/forms/form";

/** Self-service sign-up: the merchant, its payout PIX key, and its first user. */
export const signUpForm = formSchema(
  z.object({
    companyName: companyNameField,
    email: z.email({ error: "errors.email" }).max(254, "errors.tooLong"),
    password: z.string({ error: "errors.passwordShort" }).min(8, "errors.passwordShort").max(200, "errors.tooLong"),
    pixKey: pixKeyField,
  }),
);
