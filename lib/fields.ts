import { z } from "zod";
import { env } from "@/lib/env";
import { brlNumberToCentavos } from "@/lib/money";
import { isValidCnpj, isValidCpf } from "@/lib/pix/keys";

// Field schemas shared by several endpoints. Each validates, converts, and carries the message an
// API client sees, so every endpoint words the same mistake the same way.

/** BRL `value`: finite JSON number > 0, at most 2 decimals, at most MAX_ORDER_VALUE_BRL → centavos. */
export const brlValue = z
  .number({ error: (i) => (i.input === undefined ? "is required" : "must be a number in BRL (e.g. 10.50)") })
  .transform((value, ctx) => {
    const centavos = brlNumberToCentavos(value);
    if (centavos === null) {
      ctx.addIssue({ code: "custom", message: "must be a finite number with at most 2 decimal places" });
      return z.NEVER;
    }
    if (centavos <= 0) {
      ctx.addIssue({ code: "custom", message: "must be greater than 0" });
      return z.NEVER;
    }
    const max = env().MAX_ORDER_VALUE_BRL;
    if (centavos > Math.round(max * 100)) {
      ctx.addIssue({ code: "custom", message: `must be at most ${max}` });
      return z.NEVER;
    }
    return centavos;
  })
  // Documented on the input side (what the client sends); the handler receives centavos.
  .meta({
    description:
      "Amount in BRL: a JSON number > 0 with at most 2 decimal places, at most MAX_ORDER_VALUE_BRL (default 1,000,000).",
    exclusiveMinimum: 0,
  });

export const optionalText = (max = 200) =>
  z.string({ error: "must be a string" }).trim().max(max, `must be at most ${max} characters`).optional();

export const requiredText = (max = 200) =>
  z
    .string({ error: (i) => (i.input === undefined ? "is required" : "must be a string") })
    .trim()
    // A pattern rather than a minimum length: the document then refuses "  " as the trimming server does.
    .regex(/\S/, "must not be empty")
    .max(max, `must be at most ${max} characters`);

export const cpfField = z
  .string({ error: "must be a string" })
  .transform((s) => s.replace(/[.\-\s]/g, ""))
  .refine(isValidCpf, "is not a valid CPF")
  .optional()
  .meta({ description: "CPF, with or without punctuation; check digits are verified.", examples: ["529.982.247-25"] });

export const cnpjField = z
  .string({ error: "must be a string" })
  .transform((s) => s.replace(/[./\-\s]/g, "").toUpperCase())
  .refine(isValidCnpj, "is not a valid CNPJ")
  .optional()
  .meta({
    description: "CNPJ (numeric or alphanumeric), with or without punctuation; check digits are verified.",
    examples: ["11.222.333/0001-81"],
  });

export const emailField = z.email({ error: "must be a valid e-mail address" }).max(254).optional();

/** Requests are JSON objects; anything else is refused with one clear sentence. */
export function bodyObject<T extends z.ZodRawShape>(shape: T) {
  return z.object(shape, { error: "request body must be a JSON object" });
}

// Response field schemas. Responses are built by the views and never parsed at run time (that would
// cost every request); these schemas type the views (z.infer), document them, and let tests check them.

/** Timestamps as `Date#toISOString()` writes them. */
export const isoDateTime = z.iso.datetime();

export const brlAmount = z
  .number()
  .meta({ description: "BRL (reais, up to 2 decimals: 25.9 is R$ 25,90), not centavos" });

export const centavosAmount = z.int().meta({ description: "Integer centavos (2590 is R$ 25,90), not BRL" });

/** Crypto amounts are exact decimals internally and JSON numbers on the wire (docs/api.md#amounts). */
export const cryptoAmount = z.number().min(0).meta({ description: "Token amount (decimal)" });

export const urlField = z.url();

/** An EVM address as the views write it (EIP-55 checksummed, or as the client sent it). */
export const evmAddress = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/)
  .meta({ description: "EVM address (0x + 40 hex digits)" });

/** Limits of `metadata` (docs/api.md#metadata-and-your-references), as Stripe states its own. */
export const METADATA_LIMITS = { keys: 50, keyLength: 40, valueLength: 500 } as const;

/**
 * The merchant's own key-value pairs on a create request: stored as sent and echoed on every view,
 * list row, export and webhook of the object, so a shop finds its sale without keeping a map of our ids.
 */
export function metadataFieldOf(reserved: readonly string[] = []) {
  return z
    .record(
      z.string(),
      z
        .string({ error: "must be a string" })
        .max(METADATA_LIMITS.valueLength, `must be at most ${METADATA_LIMITS.valueLength} characters`),
      { error: "must be an object whose values are strings" },
    )
    .superRefine((m, ctx) => {
      const keys = Object.keys(m);
      if (keys.length > METADATA_LIMITS.keys)
        ctx.addIssue({ code: "custom", message: `must have at most ${METADATA_LIMITS.keys} keys` });
      for (const key of keys) {
        if (key.length === 0 || key.length > METADATA_LIMITS.keyLength)
          ctx.addIssue({
            code: "custom",
            path: [key],
            message: `key must be 1 to ${METADATA_LIMITS.keyLength} characters`,
          });
        else if (reserved.includes(key))
          ctx.addIssue({ code: "custom", path: [key], message: "is a key the service writes itself" });
      }
    })
    .optional()
    .meta({
      description:
        `Your own key-value pairs (at most ${METADATA_LIMITS.keys} keys of 1 to ${METADATA_LIMITS.keyLength} characters, string values of at most ${METADATA_LIMITS.valueLength}), returned on every view, list row, export and webhook of this object` +
        (reserved.length ? `; the keys ${reserved.join(", ")} are the service's own and refused` : ""),
      example: { saleId: "sale-1001" },
    });
}
export const metadataField = metadataFieldOf();

/** `metadata` on a response: what the create stored, `{}` when none was sent. */
export const metadataView = z
  .record(z.string(), z.string())
  .meta({ description: "The metadata sent at creation; {} when none was" });
