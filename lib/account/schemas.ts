import { z } from "zod";
import { ACCOUNT_TYPES } from "@/db/schema";
import { brlAmount, centavosAmount } from "@/lib/fields";

/** GET /api/v1/account (docs/api.md#endpoints): balance in centavos, plus account type and what is left to withdraw. */
export const accountResponse = z.strictObject({
  merchant: z
    .strictObject({
      companyName: z.string(),
      pixKey: z
        .string()
        .meta({ description: "The registered PIX key (payout destination); empty when none is registered" }),
      balance: centavosAmount,
      id: z.uuid(),
      accountType: z.enum(ACCOUNT_TYPES),
      withdrawalLimits: z
        .strictObject({ perTransaction: brlAmount, daily: brlAmount, usedToday: brlAmount, remainingToday: brlAmount })
        .meta({ description: "BRL; the day is the calendar day in America/Sao_Paulo" }),
    })
    .meta({ id: "Account" }),
});
export type AccountResponse = z.infer<typeof accountResponse>;
