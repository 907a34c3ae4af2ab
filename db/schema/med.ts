import { sql } from "drizzle-orm";
import { boolean, check, index, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { centavos, createdAt, inList, ts, updatedAt } from "./columns";
import { users } from "./identity";
import { merchants } from "./merchants";
import { orders } from "./orders";

/** What the PSP says a devolução is (API Pix `natureza`); the MED ones are made without our asking. */
export const PIX_RETURN_NATURES = [
  "ORIGINAL",
  "RETIRADA",
  "MED_OPERACIONAL",
  "MED_FRAUDE",
  "MED_PIX_AUTOMATICO",
] as const;
export const PIX_RETURN_STATUSES = ["EM_PROCESSAMENTO", "DEVOLVIDO", "NAO_REALIZADO"] as const;
export const PIX_RETURN_SOURCES = ["notification", "read", "poll", "reconciliation"] as const;

/**
 * Devoluções of received PIX that we did not request (the MED's, mostly), as the PSP reports them
 * inside the Pix they return: one row each (the Pix's end-to-end id and the devolução's id), so one
 * found by a notification, by reading the Pix back and by reconciliation is applied once. A returned
 * PIX that had credited an order debits that order's merchant (ledger kind med_debit) once the PSP
 * says it was returned (DEVOLVIDO).
 */
export const pixReturns = pgTable(
  "pix_returns",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    endToEndId: text("end_to_end_id").notNull(),
    // The devolução's id at the PSP, and its rtrId (the SPI's return id), once given.
    returnId: text("return_id").notNull(),
    rtrId: text("rtr_id"),
    natureza: text("natureza", { enum: PIX_RETURN_NATURES }).notNull(),
    valueCentavos: centavos("value_centavos").notNull(),
    status: text("status", { enum: PIX_RETURN_STATUSES }).notNull(),
    orderId: uuid("order_id").references(() => orders.id),
    merchantId: uuid("merchant_id").references(() => merchants.id),
    description: text("description"),
    requestedAt: ts("requested_at"),
    returnedAt: ts("returned_at"),
    // When the merchant was debited (null: not returned yet, not made, or no merchant was credited for the Pix).
    debitedAt: ts("debited_at"),
    source: text("source", { enum: PIX_RETURN_SOURCES }).notNull(),
    attention: text("attention"),
    attentionAt: ts("attention_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("pix_returns_once").on(t.endToEndId, t.returnId),
    index("pix_returns_order").on(t.orderId),
    index("pix_returns_merchant").on(t.merchantId, t.createdAt),
    check("pix_returns_natureza", inList("natureza", PIX_RETURN_NATURES)),
    check("pix_returns_status", inList("status", PIX_RETURN_STATUSES)),
    check("pix_returns_value_positive", sql`value_centavos > 0`),
  ],
);

/** A MED defence: none sent, committed and being sent (no answer yet), taken by the PSP, refused by it. */
export const INFRACTION_DEFENCE_STATES = ["none", "sending", "sent", "refused"] as const;
export const INFRACTION_DEFENCE_MAX = 1000;
export const INFRACTION_HOLD_STATES = ["none", "held", "released", "returned"] as const;

/**
 * MED infractions the PSP reports against PIX we received (docs/providers.md "MED infractions"),
 * synced from its list and linked through pix_receipts to the merchant the PIX credited, who may
 * defend one once until its deadline. The defence is committed here before it is sent, so a lost
 * answer is read back rather than sent twice.
 */
export const medInfractions = pgTable(
  "med_infractions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    provider: text("provider").notNull(),
    infractionId: text("infraction_id").notNull(),
    endToEndId: text("end_to_end_id").notNull(),
    orderId: uuid("order_id").references(() => orders.id),
    merchantId: uuid("merchant_id").references(() => merchants.id),
    valueCentavos: centavos("value_centavos").notNull(),
    // The PSP's own status word, and whether it still takes a defence.
    status: text("status").notNull(),
    open: boolean("open").notNull(),
    reason: text("reason").notNull(),
    situation: text("situation"),
    openedAt: ts("opened_at").notNull(),
    deadline: ts("deadline").notNull(),
    defence: text("defence"),
    defenceState: text("defence_state", { enum: INFRACTION_DEFENCE_STATES }).notNull().default("none"),
    defenceRefusal: text("defence_refusal"),
    defendedBy: uuid("defended_by").references(() => users.id),
    defendedAt: ts("defended_at"),
    // The disputed amount held out of the merchant's balance while the infraction is open (lib/med/holds.ts):
    // none, held (ledger med_hold), released (closed without a return) or returned (the med_debit took its place).
    holdState: text("hold_state", { enum: INFRACTION_HOLD_STATES }).notNull().default("none"),
    heldCentavos: centavos("held_centavos"),
    syncedAt: ts("synced_at").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("med_infractions_once").on(t.provider, t.infractionId),
    index("med_infractions_merchant").on(t.merchantId, t.deadline),
    check("med_infractions_defence_state", inList("defence_state", INFRACTION_DEFENCE_STATES)),
    check("med_infractions_hold_state", inList("hold_state", INFRACTION_HOLD_STATES)),
    check("med_infractions_value_positive", sql`value_centavos > 0`),
    check("med_infractions_defence_length", sql`char_length(defence) <= 1000`),
  ],
);
export type MedInfraction = typeof medInfractions.$inferSelect;

export type PixReturn = typeof pixReturns.$inferSelect;
