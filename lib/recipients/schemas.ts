import { z } from "zod";
import { PAYOUT_INTERVALS, PAYOUT_SKIP_REASONS, RECIPIENT_PAYOUT_STATUSES, RECIPIENT_STATUSES } from "@/db/schema";
import { bodyObject, brlAmount, brlValue, centavosAmount, isoDateTime, requiredText } from "@/lib/fields";
import { classifyPixKey, PIX_KEY_TYPES } from "@/lib/pix/keys";
import { recipientDocument } from "./fields";
import { WEEKDAYS } from "./schedule";

// Requests and responses of /api/v1/recipients (docs/api.md#recipients). The document and the PIX key
// are checked here with the rules of ./fields.ts (check digits, lib/pix/keys), so a bad one is a 400
// validation_failed naming the field; amounts are BRL numbers with 2 decimals, reaching the service as centavos.

const name = requiredText(140).meta({ description: "The recipient's name (a person's or a company's)" });

const document = z
  .string({ error: (i) => (i.input === undefined ? "is required" : "must be a string") })
  .transform((s, ctx) => {
    const digits = recipientDocument(s);
    if (!digits) {
      // The wording of lib/fields.ts's cpf and cnpj, which the dashboard translates (lib/i18n/zod.ts).
      const length = s.replace(/[.\-/\s]/g, "").length;
      const message =
        length === 11
          ? "is not a valid CPF"
          : length === 14
            ? "is not a valid CNPJ"
            : "must be a CPF (11 digits) or CNPJ (14 digits)";
      ctx.addIssue({ code: "custom", message });
      return z.NEVER;
    }
    return digits;
  })
  .meta({
    description: "CPF or CNPJ, with or without punctuation; check digits are verified",
    examples: ["529.982.247-25"],
  });

const pixKey = z
  .string({ error: (i) => (i.input === undefined ? "is required" : "must be a string") })
  .transform((s, ctx) => {
    const key = classifyPixKey(s);
    if (!key) {
      ctx.addIssue({
        code: "custom",
        message: "must be a PIX key: a CPF, CNPJ, e-mail, phone (+55 and area code) or random (EVP) key",
      });
      return z.NEVER;
    }
    return { value: key.normalized, type: key.type };
  })
  .meta({
    description:
      "Where the recipient's payouts go: a CPF, CNPJ, e-mail, +55 phone or random (EVP) key; its type is recognised from it",
    examples: ["maria@example.com"],
  });

const email = z
  .email({ error: "must be a valid e-mail address" })
  .max(254, "must be at most 254 characters")
  .meta({ description: "The recipient's e-mail (for your records; nothing is mailed to it)" });

const reference = z
  .string({ error: "must be a string" })
  .trim()
  .min(1, "must not be empty")
  .max(200, "must be at most 200 characters")
  .meta({ description: "Your own id for the recipient (a seller id); filterable in the list" });

const weekday = z.enum(WEEKDAYS, { error: `must be one of ${WEEKDAYS.join(", ")}` });

/**
 * The automatic payout schedule (docs/api.md#automatic-payouts): `weekday` goes with weekly and
 * `monthDay` with monthly, and neither with another interval, so what is sent is what is meant.
 */
const payoutSchedule = z
  .object(
    {
      interval: z
        .enum(PAYOUT_INTERVALS, { error: `must be one of ${PAYOUT_INTERVALS.join(", ")}` })
        .meta({ description: "daily: every São Paulo day; weekly: on `weekday`; monthly: on `monthDay`" }),
      weekday: weekday.optional().meta({ description: "Required with weekly, refused otherwise" }),
      monthDay: z
        .int({ error: "must be a whole number from 1 to 31" })
        .min(1, "must be a whole number from 1 to 31")
        .max(31, "must be a whole number from 1 to 31")
        .optional()
        .meta({
          description:
            "Required with monthly, refused otherwise; in a month without that day, its last day (31 pays on 30 April and 28 or 29 February)",
        }),
      minimumValue: brlValue.optional().meta({
        description:
          "BRL: a slot pays only a balance of at least this much (default: any positive balance); the balance waits for a later slot otherwise",
      }),
    },
    { error: "must be an object { interval, weekday?, monthDay?, minimumValue? } or null" },
  )
  .superRefine((s, ctx) => {
    if (s.interval === "weekly" && s.weekday === undefined)
      ctx.addIssue({ code: "custom", path: ["weekday"], message: "is required with interval weekly" });
    if (s.interval !== "weekly" && s.weekday !== undefined)
      ctx.addIssue({ code: "custom", path: ["weekday"], message: "is only for interval weekly" });
    if (s.interval === "monthly" && s.monthDay === undefined)
      ctx.addIssue({ code: "custom", path: ["monthDay"], message: "is required with interval monthly" });
    if (s.interval !== "monthly" && s.monthDay !== undefined)
      ctx.addIssue({ code: "custom", path: ["monthDay"], message: "is only for interval monthly" });
  });
export type PayoutScheduleInput = z.output<typeof payoutSchedule>;

const payoutScheduleField = payoutSchedule.nullable().optional().meta({
  description:
    "Automatic payouts of the whole balance by PIX to `pixKey` (times in America/Sao_Paulo; docs/api.md#automatic-payouts); null or absent: payouts only on request",
});

export const createRecipientBody = bodyObject({
  name,
  document,
  pixKey,
  email: email.optional(),
  reference: reference.optional(),
  payoutSchedule: payoutScheduleField,
});
export type CreateRecipientInput = z.output<typeof createRecipientBody>;

/** An edit: only the fields sent change; `null` clears email or reference. The document cannot change. */
export const updateRecipientBody = bodyObject({
  name: name.optional(),
  email: z.union([email, z.null()]).optional(),
  reference: z.union([reference, z.null()]).optional(),
  pixKey: pixKey.optional().meta({
    description:
      "A new payout key: held like any new withdrawal destination (DESTINATION_HOLD_HOURS) until an owner confirms it or the hold ends",
  }),
  status: z
    .enum(RECIPIENT_STATUSES, { error: `must be one of ${RECIPIENT_STATUSES.join(", ")}` })
    .optional()
    .meta({ description: "DISABLED: no payouts (and no new splits); ACTIVE again re-enables it" }),
  payoutSchedule: payoutScheduleField.meta({
    description:
      "A new automatic payout schedule (its first slot is the first to begin after this change), or null to stop automatic payouts",
  }),
});
export type UpdateRecipientInput = z.output<typeof updateRecipientBody>;

const limit = z.coerce.number({ error: "must be a number" }).int().min(1).max(100).default(20);
const cursor = z.string().max(200).optional();

export const listRecipientsQuery = z.object({
  status: z.enum(RECIPIENT_STATUSES, { error: `must be one of ${RECIPIENT_STATUSES.join(", ")}` }).optional(),
  reference: z.string().trim().min(1).max(200).optional(),
  limit,
  cursor,
});
export type ListRecipientsQuery = z.output<typeof listRecipientsQuery>;

export const statementQuery = z.object({ limit, cursor });
export type StatementQuery = z.output<typeof statementQuery>;

export const recipientPayoutBody = bodyObject({
  value: brlValue.optional().meta({ description: "BRL to pay out (2 decimals); without it, the whole balance" }),
});
export type RecipientPayoutInput = z.output<typeof recipientPayoutBody>;

// Responses.

export const payoutScheduleViewSchema = z
  .strictObject({
    interval: z.enum(PAYOUT_INTERVALS),
    weekday: weekday.optional().meta({ description: "Present with weekly" }),
    monthDay: z.int().optional().meta({ description: "Present with monthly" }),
    minimumValue: brlAmount.nullable().meta({ description: "null: any positive balance is paid" }),
    nextSlot: z.iso.date().meta({
      description:
        "The São Paulo day the next slot begins (at its midnight); a slot already begun and not yet paid stays due until then",
    }),
  })
  .meta({ id: "RecipientPayoutSchedule" });
export type PayoutScheduleView = z.infer<typeof payoutScheduleViewSchema>;

export const recipientViewSchema = z
  .strictObject({
    id: z.uuid(),
    name: z.string(),
    document: z.string().meta({ description: "The CPF or CNPJ, masked as on a PIX receipt (***.982.247-**)" }),
    documentType: z.enum(["cpf", "cnpj"]),
    pixKey: z.string().meta({ description: "The payout key, masked as withdrawals show keys" }),
    pixKeyType: z.enum(PIX_KEY_TYPES),
    pixKeyUsableAt: isoDateTime.nullable().meta({
      description:
        "While the key is held: when its hold ends (an owner may confirm it sooner); null when payouts may go to it",
    }),
    email: z.string().nullable(),
    reference: z.string().nullable(),
    balance: brlAmount.meta({
      description: "What the recipient is owed: the sum of its statement; may be negative after a refund",
    }),
    payoutSchedule: payoutScheduleViewSchema.nullable().meta({
      description: "Its automatic payouts, or null when it is paid out only on request",
    }),
    status: z.enum(RECIPIENT_STATUSES),
    createdAt: isoDateTime,
    updatedAt: isoDateTime,
  })
  .meta({ id: "Recipient" });
export type RecipientView = z.infer<typeof recipientViewSchema>;

export const recipientResponse = z.strictObject({ recipient: recipientViewSchema });
export const listRecipientsResponse = z.strictObject({
  recipients: z.array(recipientViewSchema),
  nextCursor: z.string().nullable(),
});

export const statementEntrySchema = z
  .strictObject({
    id: z.uuid(),
    kind: z.string().meta({
      description:
        "split_credit (a split part credited), split_refund (taken back by a refund or MED return), payout_debit, payout_reversal (a payout the provider did not make)",
    }),
    amount: brlAmount.meta({ description: "Signed: credits positive, debits negative" }),
    balanceAfter: brlAmount.meta({ description: "The recipient's balance right after this entry" }),
    refType: z.string().meta({ description: "What the entry is about: order_split, refund, recipient_payout…" }),
    refId: z.string(),
    description: z.string().nullable(),
    createdAt: isoDateTime,
  })
  .meta({ id: "RecipientStatementEntry" });
export type StatementEntryView = z.infer<typeof statementEntrySchema>;

export const statementResponse = z.strictObject({
  recipientId: z.uuid(),
  balance: brlAmount.meta({ description: "The recipient's balance now: the sum of all its entries" }),
  entries: z.array(statementEntrySchema).meta({ description: "Newest first" }),
  nextCursor: z.string().nullable(),
});
export type StatementView = z.infer<typeof statementResponse>;

export const recipientPayoutViewSchema = z
  .strictObject({
    id: z.uuid(),
    recipientId: z.uuid(),
    status: z.enum(RECIPIENT_PAYOUT_STATUSES),
    value: brlAmount,
    amount: centavosAmount,
    pixKey: z.string().meta({ description: "The key paid, masked" }),
    failureReason: z.string().optional(),
    scheduleSlot: z.iso.date().optional().meta({
      description: "Present on an automatic payout: the São Paulo day of the schedule's slot it paid",
    }),
    createdAt: isoDateTime,
    updatedAt: isoDateTime,
    completedAt: isoDateTime.optional(),
  })
  .meta({ id: "RecipientPayout" });
export type RecipientPayoutView = z.infer<typeof recipientPayoutViewSchema>;

export const recipientPayoutResponse = z.strictObject({ payout: recipientPayoutViewSchema });

/** A due slot of the automatic schedule that paid nothing, and why (the recipient.payout.skipped event's data). */
export const payoutSkipViewSchema = z.strictObject({
  recipientId: z.uuid(),
  scheduleSlot: z.iso.date(),
  reason: z.enum(PAYOUT_SKIP_REASONS),
  balance: brlAmount.meta({ description: "The recipient's balance when the slot was looked at" }),
  minimumValue: brlAmount.nullable(),
  createdAt: isoDateTime,
});
export type PayoutSkipView = z.infer<typeof payoutSkipViewSchema>;
