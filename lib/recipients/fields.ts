import { classifyPixKey, isValidCnpj, isValidCpf, type PixKeyType } from "@/lib/pix/keys";

// A recipient's identity fields, checked like the merchant's own: CPF/CNPJ with their
// check digits, the PIX key classified by lib/pix/keys. Pure; the endpoints turn refusals into 400s.

export type RecipientFieldRefusal =
  | { code: "RECIPIENT_DOCUMENT_INVALID"; field: "document" }
  | { code: "RECIPIENT_PIX_KEY_INVALID"; field: "pixKey" }
  | { code: "RECIPIENT_NAME_INVALID"; field: "name" };

export type RecipientFields = { name: string; document: string; pixKey: string; pixKeyType: PixKeyType };

/** Digits of a valid CPF (11) or CNPJ (14), formatting stripped; null when the check digits fail. */
export function recipientDocument(input: string): string | null {
  const digits = input.replace(/[.\-/\s]/g, "");
  if (!/^\d+$/.test(digits)) return null;
  if (digits.length === 11) return isValidCpf(digits) ? digits : null;
  if (digits.length === 14) return isValidCnpj(digits) ? digits : null;
  return null;
}

export function parseRecipientFields(input: {
  name: string;
  document: string;
  pixKey: string;
}): RecipientFields | RecipientFieldRefusal {
  const name = input.name.trim();
  if (name.length === 0 || name.length > 140) return { code: "RECIPIENT_NAME_INVALID", field: "name" };
  const document = recipientDocument(input.document);
  if (!document) return { code: "RECIPIENT_DOCUMENT_INVALID", field: "document" };
  const key = classifyPixKey(input.pixKey);
  if (!key) return { code: "RECIPIENT_PIX_KEY_INVALID", field: "pixKey" };
  return { name, document, pixKey: key.normalized, pixKeyType: key.type };
}

/**
 * A changed payout key is held like a merchant's new destination (DESTINATION_HOLD_HOURS): it is
 * recorded as pending and only becomes the recipient's key once the hold ends.
 */
export function pixKeyHoldEnds(now: Date, holdHours: number): Date {
  return new Date(now.getTime() + holdHours * 3_600_000);
}
