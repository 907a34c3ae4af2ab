import { z } from "zod";
import { translate, type Locale, type MessageKey } from "@/lib/i18n";
import { issueMessage, type ZodIssue } from "@/lib/i18n/zod";
import { FIELD_LABELS } from "./labels";
import { isStorableText } from "@/lib/storable-text";

// FormData carries strings; the API schemas expect JSON types. These helpers turn a submitted form
// into the object an API client would have sent, then let the API's own zod schema judge it, so the
// dashboard and the API accept and refuse exactly the same input.

/**
 * A decimal typed by a person: "1.234,56" and "1234,56" (pt-BR), "1,234.56" and "1234.56" (en).
 * Returns NaN for anything else, so a number schema refuses it with its own message.
 */
export function parseDecimalInput(input: string): number {
  const s = input
    .trim()
    .replace(/^R\$\s*/i, "")
    .replace(/\s/g, "");
  if (s === "") return Number.NaN;
  let normalized: string;
  if (/^\d{1,3}(\.\d{3})+(,\d+)?$/.test(s) || /^\d+,\d+$/.test(s)) {
    // pt-BR: dots group thousands, the comma is the decimal mark.
    normalized = s.replace(/\./g, "").replace(",", ".");
  } else if (/^\d{1,3}(,\d{3})+(\.\d+)?$/.test(s) || /^\d+(\.\d+)?$/.test(s)) {
    normalized = s.replace(/,/g, "");
  } else {
    return Number.NaN;
  }
  return Number(normalized);
}

export type FormFieldKinds = {
  /** Fields typed as decimals (BRL amounts): parsed with parseDecimalInput. */
  decimal?: readonly string[];
  /** Fields that are whole numbers (seconds). */
  integer?: readonly string[];
};

/** FormData → plain object: Next's own `$ACTION…` fields dropped, blanks treated as "not sent". */
export function formToObject(formData: FormData, kinds: FormFieldKinds = {}): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, raw] of formData.entries()) {
    if (key.startsWith("$ACTION") || typeof raw !== "string") continue;
    const value = raw.trim();
    if (value === "") continue;
    if (kinds.decimal?.includes(key)) out[key] = parseDecimalInput(value);
    else if (kinds.integer?.includes(key)) out[key] = /^-?\d+$/.test(value) ? Number(value) : Number.NaN;
    else out[key] = value;
  }
  return out;
}

/**
 * Wraps an API schema so it accepts FormData-shaped input (z.preprocess around the same schema).
 * Every server action parses through one, so this is where a field PostgreSQL could not store (a
 * NUL a crafted request can carry) becomes that field's error instead of a failed query.
 */
export function formSchema<S extends z.ZodType>(schema: S, kinds: FormFieldKinds = {}) {
  return z.preprocess((input, ctx) => {
    if (!(input instanceof FormData)) return input;
    for (const [key, raw] of input.entries()) {
      if (!isStorableText(key)) ctx.addIssue({ code: "custom", path: [], message: "errors.invalidText", input: key });
      else if (typeof raw === "string" && !isStorableText(raw))
        ctx.addIssue({ code: "custom", path: [key], message: "errors.invalidText", input: raw });
    }
    return formToObject(input, kinds);
  }, schema);
}

/** Fields never echoed back: passwords and one-time codes. */
export const SECRET_FIELDS = ["password", "currentPassword", "newPassword", "otp", "code", "emailCode"] as const;

/** Echoed back to the form after an error so React's reset refills it (never passwords). */
export function echoValues(formData: FormData, omit: readonly string[] = SECRET_FIELDS): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, raw] of formData.entries()) {
    if (key.startsWith("$ACTION") || typeof raw !== "string" || omit.includes(key)) continue;
    out[key] = raw;
  }
  return out;
}

export type FieldErrorOptions = {
  locale: Locale;
  /** Fields typed as BRL amounts: text there is answered with an example of an amount. */
  decimalFields?: readonly string[];
  /** Labels for fields this form names differently from FIELD_LABELS. */
  labels?: Partial<Record<string, MessageKey>>;
};

/**
 * zod issues → one list of messages per field ("_form" for issues not tied to a field), each in the
 * visitor's language and naming its field, through the one error map (lib/i18n/zod.ts).
 */
export function fieldErrors(error: z.ZodError, opts: FieldErrorOptions): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const field = issue.path.length > 0 ? String(issue.path[0]) : "_form";
    const labelKey = opts.labels?.[field] ?? FIELD_LABELS[field] ?? "fields.form";
    const label = translate(opts.locale, labelKey);
    const typedText =
      opts.decimalFields?.includes(field) && issue.code === "invalid_type" && (issue as ZodIssue).input !== undefined;
    const message = typedText
      ? translate(opts.locale, "errors.field.amount", { label })
      : issueMessage(issue as ZodIssue, opts.locale, label);
    (out[field] ??= []).includes(message) || out[field].push(message);
  }
  return out;
}
