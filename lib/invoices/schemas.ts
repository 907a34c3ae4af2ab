import { z } from "zod";
import { INVOICE_STATUSES } from "@/db/schema";
import { isCalendarDay } from "@/lib/day-range";
import { env } from "@/lib/env";
import {
  bodyObject,
  brlValue,
  cnpjField,
  cpfField,
  isoDateTime,
  metadataField,
  optionalText,
  requiredText,
} from "@/lib/fields";
import { brlNumberToCentavos } from "@/lib/money";
import { invoiceViewSchema } from "@/lib/invoice-state/schemas";

// Requests of /api/v1/invoices (docs/api.md#invoices). Amounts are BRL numbers with at most 2 decimals
// and percentages numbers with at most 2 decimals (2.5 = 2.5%); both reach the service as the document's
// valorPerc in hundredths (centavos, hundredths of a percent). Checks that need today's date or the
// other fields (a due date not past, a discount below the value, …) are the service's.

const day = z
  .string({ error: (i) => (i.input === undefined ? "is required" : "must be a date like 2026-03-10") })
  .refine(isCalendarDay, "must be a calendar day written YYYY-MM-DD");

/** A number with at most 2 decimals, > 0 and ≤ max, as hundredths. */
function hundredths(what: "value" | "percent", max: () => number, maxExclusive = false) {
  return z
    .number({
      error: (i) =>
        i.input === undefined ? "is required" : `must be a number (${what === "value" ? "BRL" : "percent"})`,
    })
    .transform((n, ctx) => {
      const h = brlNumberToCentavos(n);
      if (h === null) {
        ctx.addIssue({ code: "custom", message: "must be a finite number with at most 2 decimal places" });
        return z.NEVER;
      }
      if (h <= 0) {
        ctx.addIssue({ code: "custom", message: "must be greater than 0" });
        return z.NEVER;
      }
      const limit = Math.round(max() * 100);
      if (maxExclusive ? h >= limit : h > limit) {
        ctx.addIssue({ code: "custom", message: `must be ${maxExclusive ? "less than" : "at most"} ${max()}` });
        return z.NEVER;
      }
      return h;
    });
}

const maxValue = () => env().MAX_ORDER_VALUE_BRL;
// The rule in the document too (JSON Schema keywords in the meta); a value's maximum is the configured
// one, added when the document is built (lib/api/openapi-enforced.ts).
const value = () =>
  hundredths("value", maxValue).meta({ description: "BRL, at most 2 decimals", minimum: 0.01, multipleOf: 0.01 });
const percent = (max = 100, exclusive = false) =>
  hundredths("percent", () => max, exclusive).meta({
    description: "Percent (2.5 = 2.5%), at most 2 decimals",
    minimum: 0.01,
    [exclusive ? "exclusiveMaximum" : "maximum"]: max,
    multipleOf: 0.01,
  });

const asTerm = <M extends number>(t: { modalidade: M; value?: number; percent?: number }) => ({
  modalidade: t.modalidade,
  hundredths: (t.value ?? t.percent)!,
});

const byValue = <M extends number>(m: M) => z.strictObject({ modalidade: z.literal(m), value: value() });
const byPercent = <M extends number>(m: M, max?: number, exclusive?: boolean) =>
  z.strictObject({ modalidade: z.literal(m), percent: percent(max, exclusive) });

// The document's juros modalidades 4, 7 and 8 are refused: it does not say how a year, or a month of
// business days, divides into days, and a charge whose amount the payer's bank may compute otherwise
// than we do would be credited as unapplied funds.
const UNSUPPORTED_INTEREST: Record<number, string> = {
  4: "interest modalidade 4 (percent per year) is not supported: the document does not say how a year divides into days; use 3 (percent per month of 30 days) or 2 (percent per day)",
  7: "interest modalidade 7 (percent per month, business days) is not supported: the document does not say how many business days a month has; use 6 (percent per business day) or 3 (percent per month)",
  8: "interest modalidade 8 (percent per year, business days) is not supported: the document does not say how many business days a year has; use 6 (percent per business day)",
};
const unsupported = (m: 4 | 7 | 8) =>
  z
    .looseObject({ modalidade: z.literal(m) })
    .superRefine((_, ctx) => ctx.addIssue({ code: "custom", message: UNSUPPORTED_INTEREST[m], path: ["modalidade"] }));

const modalidadeError = (allowed: string) => ({ error: `must have a modalidade of ${allowed}` });

export const fineBody = z
  .discriminatedUnion("modalidade", [byValue(1), byPercent(2)], modalidadeError("1 (value) or 2 (percent)"))
  .transform(asTerm)
  .meta({ description: "Charged once when paid after the due date. 1: a value; 2: a percentage of the value" });

export const interestBody = z
  .discriminatedUnion(
    "modalidade",
    [byValue(1), byPercent(2), byPercent(3), byValue(5), byPercent(6), unsupported(4), unsupported(7), unsupported(8)],
    modalidadeError("1, 2, 3, 5 or 6"),
  )
  .transform((t) => asTerm(t as { modalidade: 1 | 2 | 3 | 5 | 6; value?: number; percent?: number }))
  .meta({
    description:
      "Per day late. 1: a value per calendar day; 2: a percentage per calendar day; 3: a percentage per month (30 calendar days, pro rata); 5: a value per business day; 6: a percentage per business day. 4, 7 and 8 are refused",
  });

export const abatementBody = z
  .discriminatedUnion("modalidade", [byValue(1), byPercent(2, 100, true)], modalidadeError("1 (value) or 2 (percent)"))
  .transform(asTerm)
  .meta({
    description: "Taken off whenever it is paid. 1: a value (less than the invoice's); 2: a percentage (< 100)",
  });

const dated = <E extends z.ZodType>(entry: E, key: string) =>
  z
    .array(entry, { error: `must be an array of { date, ${key} }` })
    .min(1, "must have at least one date")
    .max(3, "must have at most 3 dates")
    .refine(
      (a) => new Set(a.map((e) => (e as { date: string }).date)).size === a.length,
      "must not give the same date twice",
    );

const datedValues = dated(z.strictObject({ date: day, value: value() }), "value").transform((a) =>
  a.map((e) => ({ date: e.date, hundredths: e.value })),
);
const datedPercents = dated(z.strictObject({ date: day, percent: percent(100, true) }), "percent").transform((a) =>
  a.map((e) => ({ date: e.date, hundredths: e.percent })),
);

export const discountBody = z
  .discriminatedUnion(
    "modalidade",
    [
      z.strictObject({ modalidade: z.literal(1), dates: datedValues }),
      z.strictObject({ modalidade: z.literal(2), dates: datedPercents }),
      byValue(3),
      byValue(4),
      byPercent(5, 100, true),
      byPercent(6, 100, true),
    ],
    modalidadeError("1 to 6"),
  )
  .transform((d) =>
    "dates" in d
      ? { modalidade: d.modalidade, dates: d.dates }
      : asTerm(d as { modalidade: 3 | 4 | 5 | 6; value?: number; percent?: number }),
  )
  .meta({
    description:
      "For paying early. 1: a value until each date (up to 3, none after the due date); 2: a percentage until each date; 3: a value per calendar day before the due date; 4: per business day; 5: a percentage per calendar day; 6: per business day",
  });

export const payerBody = z
  .strictObject(
    {
      name: requiredText(200),
      cpf: cpfField,
      cnpj: cnpjField,
      email: z.email({ error: "must be a valid e-mail address" }).max(254).optional(),
    },
    { error: "must be an object like { name, cpf or cnpj, email }" },
  )
  .refine((p) => (p.cpf === undefined) !== (p.cnpj === undefined), {
    message: "must have a cpf or a cnpj (one of them)",
  })
  .meta({ description: "Who is billed (API Pix devedor): a name and a CPF or a CNPJ, check digits verified" });

export const createInvoiceBody = bodyObject({
  value: brlValue,
  dueDate: day.meta({ description: "The due date (YYYY-MM-DD): today or later" }),
  daysAfterDue: z
    .number({ error: "must be a whole number of days" })
    .int("must be a whole number of days")
    .min(0, "must be 0 or more")
    .max(3650, "must be at most 3650")
    .default(30)
    .meta({
      description: "Calendar days after the due date it can still be paid (API Pix validadeAposVencimento; default 30)",
    }),
  payer: payerBody,
  fine: fineBody.optional(),
  interest: interestBody.optional(),
  abatement: abatementBody.optional(),
  discount: discountBody.optional(),
  reference: optionalText(200).meta({ description: "Your own reference (an order or contract number), echoed back" }),
  description: optionalText(140).meta({ description: "What is being paid, shown to the payer and in their bank app" }),
  notifyPayer: z
    .boolean({ error: "must be true or false" })
    .default(false)
    .meta({ description: "E-mail the payer the link once the invoice can be paid (needs payer.email)" }),
  metadata: metadataField,
}).refine((b) => !b.notifyPayer || b.payer.email !== undefined, {
  message: "payer.email is required to notify the payer",
  path: ["notifyPayer"],
});
export type CreateInvoiceInput = z.output<typeof createInvoiceBody>;

/** An invoice's answer, to its creation and to a read alike. */
export const invoiceResponse = z.strictObject({ invoice: invoiceViewSchema });

export const listInvoicesQuery = z.object({
  status: z.enum(INVOICE_STATUSES, { error: `must be one of ${INVOICE_STATUSES.join(", ")}` }).optional(),
  reference: z.string().trim().min(1).max(200).optional().meta({ description: "Only invoices with this reference" }),
  batchId: z.uuid({ error: "must be a batch id" }).optional(),
  limit: z.coerce.number({ error: "must be a number" }).int().min(1).max(100).default(20),
  cursor: z.string().max(200).optional(),
});
export type ListInvoicesQuery = z.output<typeof listInvoicesQuery>;

export const listInvoicesResponse = z.strictObject({
  invoices: z.array(invoiceViewSchema),
  nextCursor: z.string().nullable(),
});

export const createBatchBody = bodyObject({
  description: requiredText(200).meta({ description: "What the batch is (API Pix loteCobV.descricao)" }),
  invoices: z
    .array(z.unknown(), { error: "must be an array of invoices" })
    .min(1, "must have at least one invoice")
    .max(100, "must have at most 100 invoices")
    .meta({
      description:
        "Up to 100, each as POST /api/v1/invoices takes it, checked on its own (the body's 64 KiB limit holds about that many)",
    }),
});
export type CreateBatchInput = z.output<typeof createBatchBody>;

export const batchItemSchema = z
  .strictObject({
    index: z.int().meta({ description: "Its place in the request's `invoices`" }),
    status: z.enum(["PROCESSING", "CREATED", "REFUSED"]).meta({
      description:
        "PROCESSING: the PSP has not made it yet; CREATED: made (see `invoice`); REFUSED: not made, `error` says why",
    }),
    invoice: invoiceViewSchema.nullable(),
    error: z.string().nullable().meta({ description: "Why it was refused: our check, or the PSP's words" }),
  })
  .meta({ id: "InvoiceBatchItem" });

export const batchViewSchema = z
  .strictObject({
    id: z.uuid(),
    description: z.string(),
    status: z.enum(["PROCESSING", "DONE"]).meta({ description: "DONE once every item is CREATED or REFUSED" }),
    createdAt: isoDateTime,
    counts: z.strictObject({ processing: z.int(), created: z.int(), refused: z.int() }),
    items: z.array(batchItemSchema),
  })
  .meta({ id: "InvoiceBatch" });
export type BatchView = z.infer<typeof batchViewSchema>;
export const batchResponse = z.strictObject({ batch: batchViewSchema });

export const sandboxPayInvoiceBody = bodyObject({
  date: day
    .optional()
    .meta({ description: "The São Paulo day it is paid on (default today): what it takes is that day's amount due" }),
});
