import { endpoint } from "@/lib/api/handler";
import { messageBody } from "@/lib/api/error-body";
import { json } from "@/lib/api/respond";
import { centavosToBrl } from "@/lib/money";
import { balanceAndLimits } from "@/lib/withdrawals/limits";
import type { AccountResponse } from "./schemas";

/** GET /api/v1/account: balance in centavos (spec §2.8), plus account type and what is left to withdraw. */
export const getAccountHandler = endpoint({
  auth: "merchant",
  errorBody: messageBody,
  async handle({ merchant }) {
    const { balanceCentavos, limits } = await balanceAndLimits(merchant);
    const res: AccountResponse = {
      merchant: {
        companyName: merchant.companyName,
        pixKey: merchant.pixKey ?? "",
        balance: balanceCentavos,
        id: merchant.id,
        accountType: merchant.accountType,
        withdrawalLimits: {
          perTransaction: centavosToBrl(limits.perTransaction),
          daily: centavosToBrl(limits.daily),
          usedToday: centavosToBrl(limits.usedToday),
          remainingToday: centavosToBrl(limits.remainingToday),
        },
      },
    };
    return json(200, res);
  },
});
