import { z } from "zod";
import { SPLIT_PART_STATUSES } from "@/db/schema";
import { brlAmount } from "@/lib/fields";
import { brlNumberToCentavos } from "@/lib/money";
import type { SplitSpec } from "./allocate";

// `splits` on every create request and in every merchant view of an order (docs/api.md#splits).
// The schema checks the form (a uuid, 2 decimals, one of value | percentage); ranges, sums and
// recipients are ./service.ts's, so each refusal gets its own code.

const twoDecimals = (what: string) =>
  z.number({ error: `must be a number (${what}, at most 2 decimals)` }).transform((n, ctx) => {
    const hundredths = brlNumberToCentavos(n);
    if (hundredths === null) {
      ctx.addIssue({ code: "custom", message: "must be a finite number with at most 2 decimal places" });
      return z.NEVER;
    }
    return hundredths;
  });

const splitPart = z
  .object(
    {
      recipientId: z.uuid({ error: "must be a recipient id (UUID)" }),
      value: twoDecimals("BRL")
        .optional()
        .meta({ description: "A fixed part in BRL (2 decimals, > 0); give this or percentage" }),
      percentage: twoDecimals("percent")
        .optional()
        .meta({ description: "A share of the amount accepted as payment, 0 < p ≤ 100 with 2 decimals; or value" }),
      chargeFees: z.literal(false, { error: "must be false: the merchant's part bears every fee" }).optional().meta({
        description: "Who bears the service's fees: always the merchant's own part (false is the only value)",
      }),
    },
    { error: "must be an object like { recipientId, value } or { recipientId, percentage }" },
  )
  .transform((p, ctx): SplitSpec => {
    if ((p.value === undefined) === (p.percentage === undefined)) {
      ctx.addIssue({ code: "custom", message: "must have exactly one of value and percentage" });
      return z.NEVER;
    }
    return p.value !== undefined
      ? { recipientId: p.recipientId.toLowerCase(), valueCentavos: p.value }
      : { recipientId: p.recipientId.toLowerCase(), percentageBasisPoints: p.percentage! };
  });

/** The optional `splits` field of PIX, exchange-wallet, Lightning and on-chain creation requests. */
export const splitsField = z
  .array(splitPart, { error: "must be an array of { recipientId, value | percentage }" })
  .optional()
  .meta({
    description:
      "Parts of the payment for the merchant's recipients, credited to their balances when the payment is confirmed; the merchant keeps the remainder (docs/api.md#splits). At most 20",
  });

export const splitViewSchema = z
  .strictObject({
    recipientId: z.uuid(),
    value: brlAmount.meta({
      description:
        "What the part is worth in BRL: planned on the order's value until the payment is confirmed, then what was credited",
    }),
    percentage: z.number().optional().meta({ description: "Present only for a part requested as a percentage" }),
    refundedValue: brlAmount.meta({ description: "What refunds and MED returns took back from the part" }),
    status: z.enum(SPLIT_PART_STATUSES).meta({
      description:
        "PENDING until the payment is confirmed; CREDITED once the recipient's balance received it; REFUNDED when refunds took all of it back; CANCELLED when the order ended unpaid",
    }),
  })
  .meta({ id: "SplitPart", description: "One part of an order's split" });
export type SplitView = z.infer<typeof splitViewSchema>;

export const splitsView = z
  .array(splitViewSchema)
  .meta({ description: "The order's split, in the order requested; [] when it has none" });
