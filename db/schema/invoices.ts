import { sql } from "drizzle-orm";
import {
  bigserial,
  boolean,
  check,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import type { AbatementTerms, DiscountTerms, FineTerms, InterestTerms } from "@/lib/pix/due-amount";
import { centavos, createdAt, inList, metadata, ts, updatedAt } from "./columns";
import { merchants } from "./merchants";
import { orders } from "./orders";

/**
 * PROCESSING: sent in a batch, the PSP has not said yet; OPEN: payable; PAID; EXPIRED: not paid by
 * its last day; CANCELLED: by the merchant; REFUSED: the PSP would not create it (a batch's item).
 */
export const INVOICE_STATUSES = ["PROCESSING", "OPEN", "PAID", "EXPIRED", "CANCELLED", "REFUSED"] as const;
export const INVOICE_BATCH_STATUSES = ["PROCESSING", "DONE"] as const;

/** What paying on a day took, as the amount due computed it (lib/pix/due-amount.ts), in centavos. */
export type InvoicePayment = {
  day: string;
  endToEndId: string;
  originalCentavos: number;
  fineCentavos: number;
  interestCentavos: number;
  abatementCentavos: number;
  discountCentavos: number;
  totalCentavos: number;
};

/** Why the PSP refused an item of a batch, as it said it (an API Pix problem: its title, detail and violations). */
export type InvoiceProblem = { title: string; detail?: string; violations: { property: string; reason: string }[] };

/** A batch of invoices sent to the PSP together (API Pix `lotecobv`); each invoice says how it went. */
export const invoiceBatches = pgTable(
  "invoice_batches",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    merchantId: uuid("merchant_id")
      .notNull()
      .references(() => merchants.id),
    // The batch's id at the PSP (PUT /lotecobv/{id}): the document answers it as an integer.
    pspBatchId: bigserial("psp_batch_id", { mode: "number" }).notNull(),
    description: text("description").notNull(),
    status: text("status", { enum: INVOICE_BATCH_STATUSES }).notNull().default("PROCESSING"),
    // How many invoices the request had, and those our own checks refused (never sent), by their place in it.
    size: integer("size").notNull(),
    refusals: jsonb("refusals").$type<{ index: number; error: string }[]>().notNull().default([]),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("invoice_batches_psp_id").on(t.pspBatchId),
    index("invoice_batches_merchant_created").on(t.merchantId, t.createdAt, t.id),
    index("invoice_batches_processing")
      .on(t.createdAt)
      .where(sql`status = 'PROCESSING'`),
    check("invoice_batches_status", inList("status", INVOICE_BATCH_STATUSES)),
  ],
);

/**
 * Invoices with a due date (docs/api.md#invoices): a charge at the PSP (API Pix `cobv`) whose amount
 * depends on the day it is paid, and, once the PSP has made it, the PIX order that takes its payment
 * (`order_id`): refunds, MED returns, the statement and exports work on that order like on any
 * other. The order's value becomes what was paid.
 */
export const invoices = pgTable(
  "invoices",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    merchantId: uuid("merchant_id")
      .notNull()
      .references(() => merchants.id),
    orderId: uuid("order_id").references(() => orders.id),
    batchId: uuid("batch_id").references(() => invoiceBatches.id),
    // Its place in the batch request's `invoices`.
    batchIndex: integer("batch_index"),
    status: text("status", { enum: INVOICE_STATUSES }).notNull(),
    // The charge's txid at the PSP (the sandbox makes one too) and which provider holds it.
    txid: text("txid").notNull(),
    provider: text("provider").notNull(),
    payerName: text("payer_name").notNull(),
    payerCpf: text("payer_cpf"),
    payerCnpj: text("payer_cnpj"),
    payerEmail: text("payer_email"),
    reference: text("reference"),
    description: text("description"),
    metadata: metadata(),
    originalCentavos: centavos("original_centavos").notNull(),
    dueDate: date("due_date", { mode: "string" }).notNull(),
    daysAfterDue: integer("days_after_due").notNull(),
    fine: jsonb("fine").$type<FineTerms>(),
    interest: jsonb("interest").$type<InterestTerms>(),
    abatement: jsonb("abatement").$type<AbatementTerms>(),
    discount: jsonb("discount").$type<DiscountTerms>(),
    lastPayableDay: date("last_payable_day", { mode: "string" }).notNull(),
    // The end of the last payable day in São Paulo: the expiry sweep's cue.
    expiresAt: ts("expires_at").notNull(),
    notifyPayer: boolean("notify_payer").notNull().default(false),
    mailedAt: ts("mailed_at"),
    payment: jsonb("payment").$type<InvoicePayment>(),
    problem: jsonb("problem").$type<InvoiceProblem>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    // When it was paid, expired, cancelled or refused.
    closedAt: ts("closed_at"),
  },
  (t) => [
    uniqueIndex("invoices_order").on(t.orderId),
    uniqueIndex("invoices_txid").on(t.txid),
    index("invoices_merchant_created").on(t.merchantId, t.createdAt, t.id),
    index("invoices_merchant_reference")
      .on(t.merchantId, t.reference)
      .where(sql`reference is not null`),
    index("invoices_batch").on(t.batchId),
    index("invoices_open_expiry")
      .on(t.expiresAt)
      .where(sql`status = 'OPEN'`),
    check("invoices_status", inList("status", INVOICE_STATUSES)),
    check("invoices_original_positive", sql`original_centavos > 0`),
    check("invoices_days_after_due", sql`days_after_due >= 0`),
    check("invoices_one_document", sql`(payer_cpf is null) <> (payer_cnpj is null)`),
    // Payable (and everything after) only with its order; never an order while the PSP has not made it.
    check("invoices_order_when_made", sql`(order_id is null) = (status in ('PROCESSING', 'REFUSED'))`),
  ],
);

export type Invoice = typeof invoices.$inferSelect;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];
export type InvoiceBatch = typeof invoiceBatches.$inferSelect;
