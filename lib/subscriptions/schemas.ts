import { z } from "zod";
import {
  CYCLE_KINDS,
  CYCLE_STATUSES,
  ORDER_STATUSES,
  SUBSCRIPTION_JOURNEYS,
  SUBSCRIPTION_PERIODICITIES,
  SUBSCRIPTION_RETRY_POLICIES,
  SUBSCRIPTION_STATUSES,
} from "@/db/schema";
import { isCalendarDay } from "@/lib/day-range";
import {
  bodyObject,
  brlAmount,
  brlValue,
  cnpjField,
  cpfField,
  isoDateTime,
  metadataField,
  metadataView,
  optionalText,
  requiredText,
  urlField,
} from "@/lib/fields";

// Requests and responses of /api/v1/subscriptions (docs/api.md#subscriptions): Pix Automático
// recurrences (API Pix rec) and each cycle's charge (cobr). Checks that need today's date are the service's.

const day = z
  .string({ error: (i) => (i.input === undefined ? "is required" : "must be a date like 2026-03-10") })
  .refine(isCalendarDay, "must be a calendar day written YYYY-MM-DD");

const payerBody = z
  .strictObject(
    { name: requiredText(140), cpf: cpfField, cnpj: cnpjField },
    { error: "must be an object like { name, cpf or cnpj }" },
  )
  .refine((p) => (p.cpf === undefined) !== (p.cnpj === undefined), {
    message: "must have a cpf or a cnpj (one of them)",
  })
  .meta({ description: "Who pays (API Pix vinculo.devedor): a name and a CPF or a CNPJ, check digits verified" });

const amountBody = z
  .discriminatedUnion(
    "type",
    [
      z.strictObject({
        type: z.literal("FIXED"),
        value: brlValue.meta({ description: "BRL charged every cycle (API Pix valor.valorRec)" }),
      }),
      z.strictObject({
        type: z.literal("VARIABLE"),
        value: brlValue.meta({ description: "BRL charged each cycle; the payer may cap it at authorisation" }),
        minimum: brlValue
          .optional()
          .meta({ description: "The least the payer's cap may be (API Pix valor.valorMinimoRecebedor)" }),
      }),
    ],
    { error: "must be { type: FIXED, value } or { type: VARIABLE, value, minimum? }" },
  )
  .refine((a) => a.type === "FIXED" || a.minimum === undefined || a.value >= a.minimum, {
    message: "value must not be below minimum",
    path: ["value"],
  })
  .meta({
    description:
      "FIXED: the same value every cycle. VARIABLE: the payer sets a ceiling at authorisation (not below `minimum`); `value` is what each cycle asks",
  });

export const updateSubscriptionBody = bodyObject({
  amount: z
    .strictObject(
      { value: brlValue.meta({ description: "BRL each cycle recorded from now on asks (not below `minimum`)" }) },
      { error: "must be an object like { value }" },
    )
    .meta({ description: "A VARIABLE subscription's new amount; a FIXED one's cannot change (409)" }),
});
export type UpdateSubscriptionInput = z.infer<typeof updateSubscriptionBody>;

export const createSubscriptionBody = bodyObject({
  payer: payerBody,
  description: requiredText(35).meta({
    description: "What the payments are for, shown in the payer's bank app (API Pix vinculo.objeto, ≤ 35)",
  }),
  reference: optionalText(35).meta({
    description: "Your contract or customer number (API Pix vinculo.contrato, ≤ 35); default the subscription's id",
  }),
  amount: amountBody,
  periodicity: z
    .enum(SUBSCRIPTION_PERIODICITIES, { error: `must be one of ${SUBSCRIPTION_PERIODICITIES.join(", ")}` })
    .meta({ description: "How often a cycle is charged (API Pix calendario.periodicidade)" }),
  firstDate: day.meta({
    description:
      "The first cycle's due date (API Pix calendario.dataInicial): at least 2 days ahead, since each cycle's charge is sent 2 to 10 days before its due date",
  }),
  lastDate: day
    .optional()
    .meta({ description: "The last day a cycle may fall due (API Pix calendario.dataFinal); none: until cancelled" }),
  retryPolicy: z
    .enum(SUBSCRIPTION_RETRY_POLICIES, { error: `must be one of ${SUBSCRIPTION_RETRY_POLICIES.join(", ")}` })
    .default("NAO_PERMITE")
    .meta({
      description:
        "NAO_PERMITE: a failed cycle is not tried again; PERMITE_3R_7D: up to 3 more attempts in the 7 days after the due date",
    }),
  journey: z
    .enum(SUBSCRIPTION_JOURNEYS, { error: `must be one of ${SUBSCRIPTION_JOURNEYS.join(", ")}` })
    .default("JORNADA_3")
    .meta({
      description:
        "JORNADA_3 (default): the QR pays `amount.value` now and authorises the cycles; JORNADA_2: the QR only authorises",
    }),
  metadata: metadataField,
});
export type CreateSubscriptionInput = z.output<typeof createSubscriptionBody>;

export const listSubscriptionsQuery = z.object({
  status: z.enum(SUBSCRIPTION_STATUSES, { error: `must be one of ${SUBSCRIPTION_STATUSES.join(", ")}` }).optional(),
  reference: z
    .string()
    .trim()
    .min(1)
    .max(35)
    .optional()
    .meta({ description: "Only subscriptions with this reference" }),
  limit: z.coerce.number({ error: "must be a number" }).int().min(1).max(100).default(20),
  cursor: z.string().max(200).optional(),
});
export type ListSubscriptionsQuery = z.output<typeof listSubscriptionsQuery>;

export const sandboxFailCycleBody = bodyObject({
  final: z.boolean({ error: "must be true or false" }).default(false).meta({
    description:
      "true: the payer's bank rejects the charge itself (no retry possible); false: this attempt fails (insufficient funds) and PERMITE_3R_7D may try again",
  }),
});

const dayView = z.iso.date().meta({ description: "A calendar day, YYYY-MM-DD (São Paulo)" });

export const cycleViewSchema = z
  .strictObject({
    id: z.uuid(),
    cycle: z.int().meta({ description: "0: journey 3's payment at authorisation; 1, 2, …: the recurring cycles" }),
    kind: z.enum(CYCLE_KINDS),
    status: z.enum(CYCLE_STATUSES).meta({
      description:
        "CREATING: being sent to the PSP; SCHEDULED: the payer's bank will debit it on the due date; RETRYING: an attempt failed and another is scheduled; PAID; FAILED: no attempt left; CANCELLED: the subscription ended first",
    }),
    dueDate: dayView,
    value: brlAmount,
    retries: z.int().meta({ description: "New attempts asked for under PERMITE_3R_7D (at most 3)" }),
    retryDate: dayView.nullable().meta({ description: "The day the latest retry settles" }),
    attempts: z.array(
      z.strictObject({
        date: dayView.meta({ description: "The day it settles (API Pix dataLiquidacao)" }),
        type: z.string().meta({ description: "API Pix tentativas[].tipo: AGND, NTAG or RIFL (a retry)" }),
        status: z
          .string()
          .meta({ description: "API Pix tentativas[].status: SOLICITADA, AGENDADA, PAGA, REJEITADA, …" }),
        failure: z.string().nullable().meta({ description: "The rejection's code and reason, when rejected" }),
      }),
    ),
    paidAt: isoDateTime.nullable(),
    endToEndId: z.string().nullable(),
    failure: z.string().nullable().meta({ description: "Why it FAILED or was CANCELLED" }),
    order: z
      .strictObject({ id: z.uuid(), status: z.enum(ORDER_STATUSES), link: urlField })
      .meta({ description: "The PIX order the cycle's payment completes (its receipt page is `link`)" }),
    createdAt: isoDateTime,
  })
  .meta({ id: "SubscriptionCycle" });
export type CycleView = z.infer<typeof cycleViewSchema>;

export const subscriptionViewSchema = z
  .strictObject({
    id: z.uuid(),
    status: z.enum(SUBSCRIPTION_STATUSES).meta({
      description:
        "AWAITING_AUTHORISATION: the payer has not authorised it yet; ACTIVE: cycles are charged; CANCELLED (see cancelledBy); REJECTED or EXPIRED at the payer's bank; COMPLETED after its last cycle",
    }),
    journey: z.enum(SUBSCRIPTION_JOURNEYS),
    payer: z.strictObject({ name: z.string(), cpf: z.string().optional(), cnpj: z.string().optional() }),
    description: z.string(),
    reference: z.string().nullable(),
    amount: z.strictObject({
      type: z.enum(["FIXED", "VARIABLE"]),
      value: brlAmount,
      minimum: brlAmount.nullable(),
    }),
    periodicity: z.enum(SUBSCRIPTION_PERIODICITIES),
    firstDate: dayView,
    lastDate: dayView.nullable(),
    retryPolicy: z.enum(SUBSCRIPTION_RETRY_POLICIES),
    brcode: z.string().meta({
      description: "The PIX copy-and-paste code the payer's bank app reads to authorise (and, journey 3, pay now)",
    }),
    link: urlField.meta({ description: "The payer's page: the QR code, the copy-and-paste code and the terms" }),
    recurrenceId: z.string().meta({ description: "The recurrence's id at the PSP (API Pix idRec)" }),
    nextChargeDate: dayView.nullable().meta({ description: "The next cycle's due date; null when none is left" }),
    cancelledBy: z.enum(["merchant", "payer"]).nullable(),
    metadata: metadataView,
    createdAt: isoDateTime,
    updatedAt: isoDateTime,
  })
  .meta({ id: "Subscription" });
export type SubscriptionView = z.infer<typeof subscriptionViewSchema>;

export const subscriptionWithCycles = subscriptionViewSchema
  .extend({ cycles: z.array(cycleViewSchema) })
  .meta({ id: "SubscriptionWithCycles" });

export const subscriptionResponse = z.strictObject({ subscription: subscriptionWithCycles });
export const listSubscriptionsResponse = z.strictObject({
  subscriptions: z.array(subscriptionViewSchema),
  nextCursor: z.string().nullable(),
});
