"use server";

import { actorOf } from "@/lib/identity/dashboard/session";
import { getLocale } from "@/lib/i18n/server";
import {
  acceptUnapplied,
  cancelWaitingReturn,
  previewReturn,
  returnUnapplied,
  type ReturnQuote,
} from "@/lib/onchain/unapplied";
import { peekDestination, type DestinationPeek } from "@/lib/withdrawals/peek";
import { merchantAction } from "@/lib/dashboard/server/merchant-action";
import { unappliedCancelForm, unappliedForm, unappliedReturnForm } from "../schemas";

// An on-chain order's unapplied funds, from its page (lib/onchain/unapplied.ts). Accepting moves nothing
// out but settles a payer's money for good, so it takes a fresh second factor; returning sends tokens out
// of our custody, a money move. The review of a return asks for its fee first, without a code, and says
// whether an address other than the sender's is new (the return then waits for an owner). Cancelling a
// waiting return only stops money leaving: no code.

export type ReturnReview = ReturnQuote & { destination: DestinationPeek | null };

export const acceptUnappliedAction = merchantAction(
  unappliedForm,
  async ({ id, transferId }, signedIn) => {
    const r = await acceptUnapplied({ ...actorOf(signedIn), merchantId: signedIn.merchant.id }, id, transferId);
    return { data: { id: r.id }, message: "unapplied.accepted" };
  },
  { permission: "refunds.create", stepUp: true },
);

export const previewUnappliedReturnAction = merchantAction(
  unappliedReturnForm,
  async ({ id, transferId, toAddress }, signedIn): Promise<{ data: ReturnReview }> => {
    const quote = await previewReturn(signedIn.merchant.id, id, transferId, toAddress || undefined);
    const toSender = quote.to?.toLowerCase() === quote.sender?.toLowerCase();
    const destination = toSender ? null : await peekDestination(signedIn.merchant, "chain_address", quote.to ?? "");
    return { data: { ...quote, destination } };
  },
  { permission: "refunds.create" },
);

export const returnUnappliedAction = merchantAction(
  unappliedReturnForm,
  async ({ id, transferId, toAddress }, signedIn) => {
    const r = await returnUnapplied(
      { ...actorOf(signedIn), merchantId: signedIn.merchant.id },
      await getLocale(),
      id,
      transferId,
      toAddress || undefined,
    );
    return {
      data: { id: r.id },
      message: r.waitingDestinationId ? ("unapplied.returnWaiting" as const) : ("unapplied.returning" as const),
    };
  },
  { permission: "refunds.create", moneyMove: "unapplied.return" },
);

export const cancelUnappliedReturnAction = merchantAction(
  unappliedCancelForm,
  async ({ id, resolutionId }, signedIn) => {
    await cancelWaitingReturn({ ...actorOf(signedIn), merchantId: signedIn.merchant.id }, id, resolutionId);
    return { data: { id: resolutionId }, message: "unapplied.returnCancelled" as const };
  },
  { permission: "refunds.create" },
);
