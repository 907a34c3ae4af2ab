import { z } from "zod";
import { ACCOUNT_TYPES } from "@/db/schema";
import { bodyObject, brlAmount, centavosAmount, isoDateTime } from "@/lib/fields";

/** GET /api/v1/account (docs/api.md#endpoints): balance in centavos, plus account type and what is left to withdraw. */
export const accountResponse = z.strictObject({
  merchant: z
    .strictObject({
      companyName: z.string(),
      pixKey: z
        .string()
        .meta({ description: "The registered PIX key (payout destination); empty when none is registered" }),
      balance: centavosAmount,
      heldBalance: centavosAmount.meta({
        description:
          "Centavos held out of `balance` while MED infractions against PIX this merchant received are open (already deducted from `balance`); given back if an infraction closes without a return",
      }),
      holds: z
        .array(
          z.strictObject({
            infractionId: z.uuid(),
            orderId: z.uuid(),
            value: brlAmount,
            deadline: isoDateTime,
          }),
        )
        .meta({
          description: "Each amount held (BRL), soonest deadline first: the PSP decides the infraction by `deadline`",
        }),
      id: z.uuid(),
      accountType: z.enum(ACCOUNT_TYPES),
      withdrawalLimits: z
        .strictObject({ perTransaction: brlAmount, daily: brlAmount, usedToday: brlAmount, remainingToday: brlAmount })
        .meta({ description: "BRL; the day is the calendar day in America/Sao_Paulo" }),
    })
    .meta({ id: "Account" }),
});
export type AccountResponse = z.infer<typeof accountResponse>;

const receiptShowsSplits = z.boolean().meta({
  description:
    "Whether the payer's pages (the hosted checkout's receipt, GET /public/payments/{paymentLinkId}) name a split order's recipients and their parts; false by default",
});

/** GET and PATCH /api/v1/account/settings (docs/api.md#account-settings): the merchant's own settings. */
export const accountSettingsResponse = z.strictObject({
  settings: z.strictObject({ receiptShowsSplits }).meta({ id: "AccountSettings" }),
});
export const updateAccountSettingsBody = bodyObject({ receiptShowsSplits: receiptShowsSplits.optional() });
