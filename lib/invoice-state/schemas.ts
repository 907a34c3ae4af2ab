import { z } from "zod";
import { INVOICE_STATUSES, ORDER_STATUSES } from "@/db/schema";
import { brlAmount, isoDateTime, metadataView, urlField } from "@/lib/fields";

// Invoices as every response and event shows them (docs/api.md#invoices). The views (./views.ts)
// return these types; the OpenAPI document is generated from the same schemas.

const day = z.iso.date().meta({ description: "A calendar day, YYYY-MM-DD" });
const percent = z.number().meta({ description: "Percent (2.5 = 2.5%), at most 2 decimals" });

const valueTerm = <M extends number>(modalidade: M) =>
  z.strictObject({ modalidade: z.literal(modalidade), value: brlAmount });
const percentTerm = <M extends number>(modalidade: M) => z.strictObject({ modalidade: z.literal(modalidade), percent });

export const fineView = z
  .discriminatedUnion("modalidade", [valueTerm(1), percentTerm(2)])
  .meta({ id: "InvoiceFine", description: "Charged once when paid after the due date: 1 a value, 2 a percentage" });
export const interestView = z
  .discriminatedUnion("modalidade", [valueTerm(1), percentTerm(2), percentTerm(3), valueTerm(5), percentTerm(6)])
  .meta({
    id: "InvoiceInterest",
    description:
      "Per day late: 1 a value per calendar day, 2 a percentage per calendar day, 3 a percentage per month (30 calendar days, pro rata), 5 a value per business day, 6 a percentage per business day",
  });
export const abatementView = z
  .discriminatedUnion("modalidade", [valueTerm(1), percentTerm(2)])
  .meta({ id: "InvoiceAbatement", description: "Taken off whenever it is paid: 1 a value, 2 a percentage" });
export const discountView = z
  .discriminatedUnion("modalidade", [
    z.strictObject({
      modalidade: z.literal(1),
      dates: z.array(z.strictObject({ date: day, value: brlAmount })),
    }),
    z.strictObject({
      modalidade: z.literal(2),
      dates: z.array(z.strictObject({ date: day, percent })),
    }),
    valueTerm(3),
    valueTerm(4),
    percentTerm(5),
    percentTerm(6),
  ])
  .meta({
    id: "InvoiceDiscount",
    description:
      "For paying early: 1 a value until each date, 2 a percentage until each date, 3 a value per calendar day before the due date, 4 per business day, 5 a percentage per calendar day, 6 per business day",
  });

const breakdown = {
  original: brlAmount,
  fine: brlAmount,
  interest: brlAmount,
  abatement: brlAmount,
  discount: brlAmount,
};

export const invoiceAmountSchema = z
  .strictObject({
    day,
    value: brlAmount.meta({
      description: "What paying on `day` takes: original + fine + interest − abatement − discount",
    }),
    ...breakdown,
    late: z.boolean().meta({ description: "Paid after the due date: fine and interest apply" }),
  })
  .meta({ id: "InvoiceAmount" });

export const invoiceViewSchema = z
  .strictObject({
    id: z.uuid(),
    status: z.enum(INVOICE_STATUSES),
    reference: z.string().nullable().meta({ description: "The merchant's own reference, as sent" }),
    description: z.string().nullable().meta({ description: "What is being paid, shown to the payer" }),
    payer: z.strictObject({
      name: z.string(),
      cpf: z.string().optional(),
      cnpj: z.string().optional(),
      email: z.string().optional(),
    }),
    value: brlAmount.meta({ description: "The original amount in BRL, before fine, interest, abatement and discount" }),
    dueDate: day,
    daysAfterDue: z.int().meta({ description: "Calendar days after the due date it can still be paid" }),
    effectiveDueDate: day.meta({
      description: "The due date as it counts: the next business day when the due date is not one",
    }),
    lastPayableDay: day,
    expiresAt: isoDateTime.meta({ description: "The end of the last payable day in São Paulo" }),
    fine: fineView.nullable(),
    interest: interestView.nullable(),
    abatement: abatementView.nullable(),
    discount: discountView.nullable(),
    amountDue: invoiceAmountSchema
      .nullable()
      .meta({ description: "What paying today (São Paulo) takes; null when it cannot be paid today" }),
    brcode: z
      .string()
      .nullable()
      .meta({ description: "The PIX BR Code to pay it (copy and paste, or a QR code); null until the PSP made it" }),
    link: urlField.nullable().meta({ description: "The payer's page; null until the PSP made it" }),
    order: z
      .strictObject({ id: z.uuid(), paymentLinkId: z.string(), status: z.enum(ORDER_STATUSES) })
      .nullable()
      .meta({
        description:
          "The PIX order that takes the payment (GET /api/v1/order/{id}, refunds): its value becomes what was paid",
      }),
    payment: z
      .strictObject({
        day,
        paidAt: isoDateTime,
        value: brlAmount.meta({ description: "What was paid and credited, BRL" }),
        ...breakdown,
        endToEndId: z.string(),
      })
      .nullable()
      .meta({ description: "How it was paid; null until it is" }),
    batchId: z.uuid().nullable(),
    problem: z
      .strictObject({
        title: z.string(),
        detail: z.string().optional(),
        violations: z.array(z.strictObject({ property: z.string(), reason: z.string() })),
      })
      .nullable()
      .meta({ description: "Why the PSP refused to make it (status REFUSED), in its words" }),
    notifyPayer: z.boolean(),
    mailedAt: isoDateTime.nullable().meta({ description: "When the payer was e-mailed the link" }),
    createdAt: isoDateTime,
    closedAt: isoDateTime.nullable().meta({ description: "When it was paid, expired, cancelled or refused" }),
    metadata: metadataView,
  })
  .meta({ id: "Invoice", description: "An invoice with a due date (API Pix cobv)" });
export type InvoiceView = z.infer<typeof invoiceViewSchema>;
export type InvoiceAmountView = z.infer<typeof invoiceAmountSchema>;

/**
 * An invoice as its payer sees it on the payment page (inside the public PIX payment): who is billed,
 * what is due today and on the due date, what changes after it, until when, and how it was paid.
 * Never the payer's document, the merchant's reference or anything else private.
 */
export const publicInvoiceSchema = z
  .strictObject({
    status: z.enum(INVOICE_STATUSES),
    payerName: z.string(),
    description: z.string().nullable(),
    value: brlAmount.meta({ description: "The original amount, BRL" }),
    dueDate: day,
    effectiveDueDate: day,
    lastPayableDay: day,
    fine: fineView.nullable(),
    interest: interestView.nullable(),
    abatement: abatementView.nullable(),
    discount: discountView.nullable(),
    amountDue: invoiceAmountSchema.nullable().meta({ description: "Paying today; null when it cannot be paid today" }),
    onDueDate: invoiceAmountSchema.nullable().meta({ description: "Paying on the (business-day) due date" }),
    afterDueDate: invoiceAmountSchema
      .nullable()
      .meta({ description: "Paying the day after the due date (fine and a day of interest); null when it cannot be" }),
    payment: z
      .strictObject({ day, value: brlAmount, ...breakdown })
      .nullable()
      .meta({ description: "How it was paid; null until it is" }),
  })
  .meta({ id: "PublicInvoice" });
export type PublicInvoice = z.infer<typeof publicInvoiceSchema>;
