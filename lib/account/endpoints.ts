import { merchantKey } from "@/lib/identity/api-keys/callers";
import { defineEndpoint } from "@/lib/http/endpoint";
import { messageBody } from "@/lib/http/error-body";
import { centavosToBrl } from "@/lib/money";
import { db } from "@/db";
import { heldFunds } from "@/lib/med/holds";
import { balanceAndLimits } from "@/lib/withdrawals/limits";
import { accountExample } from "./examples";
import { accountResponse } from "./schemas";

/** GET /api/v1/account: balance in centavos (docs/api.md#endpoints), plus account type and what is left to withdraw. */
export const getAccountEndpoint = defineEndpoint({
  method: "GET",
  path: "/api/v1/account",
  caller: merchantKey,
  scope: "read",
  errorBody: messageBody,
  response: { status: 200, description: "The account", schema: accountResponse, example: accountExample },
  docs: {
    summary: "The merchant account",
    description:
      "Balance in centavos, what is held out of it for open MED infractions (with each one's deadline), account type and what is left of today's withdrawal limit.",
    tag: "Account",
  },
  async handle({ merchant }) {
    const [{ balanceCentavos, limits }, held] = await Promise.all([
      balanceAndLimits(merchant),
      heldFunds(db(), merchant.id),
    ]);
    return {
      merchant: {
        companyName: merchant.companyName,
        pixKey: merchant.pixKey ?? "",
        balance: balanceCentavos,
        heldBalance: held.reduce((a, h) => a + h.valueCentavos, 0),
        holds: held.map((h) => ({
          infractionId: h.infractionId,
          orderId: h.orderId,
          value: centavosToBrl(h.valueCentavos),
          deadline: h.deadline.toISOString(),
        })),
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
  },
});
