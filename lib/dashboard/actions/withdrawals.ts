"use server";

import { createPixOut, initiateOnchainWithdrawal } from "@/lib/withdrawals/service";
import { merchantAction } from "@/lib/dashboard/server/merchant-action";
import { DECIMAL_FIELDS, onchainWithdrawForm, pixOutForm } from "../schemas";

// Limits, balance and fees are checked again by the service under the merchant's row lock: what
// the form showed was a preview, this is the decision.

const opts = { decimalFields: DECIMAL_FIELDS };

export const pixOutAction = merchantAction(
  pixOutForm,
  async (input, { merchant }) => {
    const w = await createPixOut(merchant, input);
    return { data: { id: w.id }, message: "withdrawals.requested" as const };
  },
  opts,
);

export const onchainWithdrawAction = merchantAction(
  onchainWithdrawForm,
  async (input, { merchant }) => {
    const w = await initiateOnchainWithdrawal(merchant, input);
    return { data: { id: w.id }, message: "withdrawals.requested" as const };
  },
  opts,
);
