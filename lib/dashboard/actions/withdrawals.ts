"use server";

import { actorOf, type SignedIn } from "@/lib/identity/dashboard/session";
import { getLocale } from "@/lib/i18n/server";
import type { WithdrawalOrigin } from "@/lib/withdrawals/destination-gate";
import { cancelWaitingWithdrawal } from "@/lib/withdrawals/release";
import { createPixOut, initiateOnchainWithdrawal } from "@/lib/withdrawals/service";
import { peekDestination, type DestinationPeek } from "@/lib/withdrawals/peek";
import { merchantAction } from "@/lib/dashboard/server/merchant-action";
import { DECIMAL_FIELDS, destinationPeekForm, onchainWithdrawForm, pixOutForm, withdrawalIdForm } from "../schemas";

// Limits, balance, fees, the payout key's hold and the destination's (a new one is held and the
// withdrawal waits: lib/withdrawals/destination-gate.ts) are checked again by the service under the
// merchant's row lock: what the form showed was a preview, this is the decision. Money leaves only
// for a role allowed to move it, with a fresh second factor; the service audits every request and
// mails it to the owners in the withdrawal's own transaction.

const opts = { decimalFields: DECIMAL_FIELDS, permission: "withdrawals.create" as const };

async function origin(signedIn: SignedIn): Promise<WithdrawalOrigin & { channel: "dashboard" }> {
  return {
    channel: "dashboard",
    actor: { ...actorOf(signedIn), merchantId: signedIn.merchant.id },
    locale: await getLocale(),
  };
}

const requested = (w: { waitingDestinationId: string | null }) =>
  w.waitingDestinationId ? ("withdrawals.requestedWaiting" as const) : ("withdrawals.requested" as const);

export const pixOutAction = merchantAction(
  pixOutForm,
  async (input, signedIn) => {
    // A payout key still on hold is refused by the service; a held destination makes it wait.
    const w = await createPixOut(signedIn.merchant, input, await origin(signedIn));
    return { data: { id: w.id }, message: requested(w) };
  },
  { ...opts, moneyMove: "withdrawal.pix" },
);

export const onchainWithdrawAction = merchantAction(
  onchainWithdrawForm,
  async (input, signedIn) => {
    const w = await initiateOnchainWithdrawal(signedIn.merchant, input, await origin(signedIn));
    return { data: { id: w.id }, message: requested(w) };
  },
  { ...opts, moneyMove: "withdrawal.onchain" },
);

/** The review step asks, before the code, whether the destination is new and what will happen (no code needed: it moves nothing). */
export const peekDestinationAction = merchantAction(
  destinationPeekForm,
  async (input, signedIn): Promise<{ data: DestinationPeek }> => ({
    data: await peekDestination(signedIn.merchant, input.kind, input.value),
  }),
  { permission: "withdrawals.create" },
);

/** Cancels a withdrawal that waits for its destination: it only stops money leaving, so no code is asked. */
export const cancelWithdrawalAction = merchantAction(
  withdrawalIdForm,
  async ({ id }, signedIn) => {
    await cancelWaitingWithdrawal({ ...actorOf(signedIn), merchantId: signedIn.merchant.id }, id);
    return { data: { id }, message: "withdrawals.cancelled" as const };
  },
  { permission: "withdrawals.create" },
);
