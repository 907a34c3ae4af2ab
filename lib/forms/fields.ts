import { z } from "zod";
import { classifyPixKey } from "@/lib/pix/keys";

// Fields of the forms that are not an API request (sign-up, settings): their messages are catalog
// keys, so each visitor reads them in their own language.

export const pixKeyField = z
  .string({ error: "errors.required" })
  .trim()
  .min(1, "errors.required")
  .refine((k) => classifyPixKey(k) !== null, "errors.pixKey");

export const companyNameField = z
  .string({ error: "errors.required" })
  .trim()
  .min(1, "errors.required")
  .max(120, "errors.tooLong");

export const emailField = z.email({ error: "errors.email" }).max(254, "errors.tooLong");
export const newPasswordField = z
  .string({ error: "errors.passwordShort" })
  .min(8, "errors.passwordShort")
  .max(200, "errors.tooLong");
