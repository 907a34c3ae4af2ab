"use server";

import { actorOf, type SignedIn } from "@/lib/identity/dashboard/session";
import { getLocale } from "@/lib/i18n/server";
import { audit } from "@/lib/identity/audit";
import { mailWithdrawalRequested } from "@/lib/identity/money-mail";
import type { WithdrawalOrigin } from "@/lib/withdrawals/destination-gate";
import { createPixOut, initiateOnchainWithdrawal } from "@/lib/withdrawals/service";
import { merchantAction } from "@/lib/dashboard/server/merchant-action";
import { DECIMAL_FIELDS, onchainWithdrawForm, pixOutForm } from "../schemas";

// Limits, balance, fees, the payout key's hold and the destination's (a new one is held: see
// lib/withdrawals/destination-gate.ts) are checked again by the service under the merchant's row
// lock: what the form showed was a preview, this is the decision. Money leaves only for a role
// allowed to move it, with a fresh second factor; every request is audited and mailed to the owners.

const opts = { decimalFields: DECIMAL_FIELDS, permission: "withdrawals.create" as const };

async function origin(signedIn: SignedIn): Promise<WithdrawalOrigin & { channel: "dashboard" }> {
  return {
    channel: "dashboard",
    actor: { ...actorOf(signedIn), merchantId: signedIn.merchant.id },
    locale: await getLocale(),
  };
}

export const pixOutAction = merchantAction(
  pixOutForm,
  async (input, signedIn) => {
    // A payout key or destination still on hold is refused by the service, under the merchant's row lock.
    const from = await origin(signedIn);
    const w = await createPixOut(signedIn.merchant, input, from);
    await audit(from.actor, "withdrawal.requested", w.id, {
      kind: "pix_out",
      valueCentavos: w.valueCentavos,
      pixKey: w.pixKey,
    });
    mailWithdrawalRequested(from.actor, from.locale, w);
    return { data: { id: w.id }, message: "withdrawals.requested" as const };
  },
  { ...opts, moneyMove: "withdrawal.pix" },
);

export const onchainWithdrawAction = merchantAction(
  onchainWithdrawForm,
  async (input, signedIn) => {
    const from = await origin(signedIn);
    const w = await initiateOnchainWithdrawal(signedIn.merchant, input, from);
    await audit(from.actor, "withdrawal.requested", w.id, {
      kind: "onchain",
      valueCentavos: w.valueCentavos,
      toAddress: w.toAddress,
      network: w.network,
    });
    mailWithdrawalRequested(from.actor, from.locale, w);
    return { data: { id: w.id }, message: "withdrawals.requested" as const };
  },
  { ...opts, moneyMove: "withdrawal.onchain" },
);
