"use server";

import { actorOf } from "@/lib/auth/session";
import { audit } from "@/lib/security/audit";
import { createPixOut, initiateOnchainWithdrawal } from "@/lib/withdrawals/service";
import { merchantAction } from "@/lib/dashboard/server/merchant-action";
import { DECIMAL_FIELDS, onchainWithdrawForm, pixOutForm } from "../schemas";

// Limits, balance, fees and the payout key's hold are checked again by the service under the
// merchant's row lock: what the form showed was a preview, this is the decision. Money leaves only
// for a role allowed to move it, with a fresh second factor, and every request is audited.

const opts = { decimalFields: DECIMAL_FIELDS, permission: "withdrawals.create" as const, stepUp: true };

export const pixOutAction = merchantAction(
  pixOutForm,
  async (input, signedIn) => {
    // A payout key still on hold is refused by the service, under the merchant's row lock.
    const w = await createPixOut(signedIn.merchant, input);
    await audit(actorOf(signedIn), "withdrawal.requested", w.id, { kind: "pix_out", valueCentavos: w.valueCentavos, pixKey: w.pixKey });
    return { data: { id: w.id }, message: "withdrawals.requested" as const };
  },
  opts,
);

export const onchainWithdrawAction = merchantAction(
  onchainWithdrawForm,
  async (input, signedIn) => {
    const w = await initiateOnchainWithdrawal(signedIn.merchant, input);
    await audit(actorOf(signedIn), "withdrawal.requested", w.id, { kind: "onchain", valueCentavos: w.valueCentavos, toAddress: w.toAddress, network: w.network });
    return { data: { id: w.id }, message: "withdrawals.requested" as const };
  },
  opts,
);
