import type { MessageKey } from "@/lib/i18n";
import { normalizePixKeyAs, type PixKeyType } from "@/lib/pix/keys";

// The PIX-out form's key as a bank app asks for it: the kind first, then the key, read as that kind
// (lib/pix/keys normalizePixKeyAs). What is sent is the normalised key, which the server action and
// the service classify again; the kind itself is the form's, the API keeps taking a bare key.

export type KeyEntry = { ok: true; type: PixKeyType; normalized: string } | { ok: false; message: MessageKey };

/** The typed key, or the catalog message saying what to fix (with `{label}` for the field's name). */
export function readKeyEntry(type: PixKeyType | null, input: string): KeyEntry {
  if (type === null) return { ok: false, message: "withdrawals.keyTypeMissing" };
  if (input.trim() === "") return { ok: false, message: "errors.field.required" };
  const r = normalizePixKeyAs(type, input);
  if (r.ok) return { ok: true, type, normalized: r.key.normalized };
  return {
    ok: false,
    message:
      r.problem === "checkDigits"
        ? `withdrawals.keyCheckDigits.${type as "cpf" | "cnpj"}`
        : `withdrawals.keyInvalid.${type}`,
  };
}
