import { isAddress } from "viem";
import { z } from "zod";
import { classifyPixKey } from "@/lib/pix/keys";

// Where a withdrawal goes, checked by one schema wherever it is checked: the API's request body
// (./schemas.ts), the dashboard's server action, and the dashboard's form before its review step.
// Free of server imports so the browser can run it too.

/** An EVM address; mixed case must carry a valid EIP-55 checksum (a typo in one letter is caught). */
export const withdrawalAddress = z
  .string({ error: (i) => (i.input === undefined ? "is required" : "must be a string") })
  .trim()
  .refine((a) => isAddress(a, { strict: true }), "must be a valid EVM address (0x…, EIP-55 checksum if mixed-case)");

/** What a PIX key that is not valid looked like, so the message says what to fix. */
function pixKeyMistake(key: string) {
  const k = key.trim();
  if (/^\d{11}$/.test(k) || /^\d{3}\.\d{3}\.\d{3}-\d{2}$/.test(k)) return "errors.field.pixKeyCpf";
  if (/^[0-9A-Za-z./\-\s]+$/.test(k) && k.replace(/[^0-9A-Za-z]/g, "").length === 14) return "errors.field.pixKeyCnpj";
  if (/^\+?[\d\s()-]{10,}$/.test(k)) return "errors.field.pixKeyPhone";
  return "errors.field.pixKey";
}

/**
 * A PIX-out key as the dashboard checks it before the review: the kinds DICT accepts, with CPF and
 * CNPJ check digits (lib/pix/keys, which the service applies again). Messages are catalog keys:
 * this schema is the dashboard's, the API answers an invalid key from the service.
 */
export const pixOutDestination = z
  .string({ error: "errors.field.required" })
  .trim()
  .min(1, "errors.field.required")
  .max(100, "errors.field.pixKey")
  .superRefine((key, ctx) => {
    if (key !== "" && classifyPixKey(key) === null) ctx.addIssue({ code: "custom", message: pixKeyMistake(key) });
  });
