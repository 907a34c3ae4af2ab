"use server";

import { actorOf } from "@/lib/identity/dashboard/session";
import { acceptUnapplied, previewReturn, returnUnapplied, type ReturnQuote } from "@/lib/onchain/unapplied";
import { merchantAction } from "@/lib/dashboard/server/merchant-action";
import { unappliedForm, unappliedReturnForm } from "../schemas";

// An on-chain order's unapplied funds, from its page (lib/onchain/unapplied.ts). Accepting moves nothing
// out but settles a payer's money for good, so it takes a fresh second factor; returning sends tokens out
// of our custody, a money move. The review of a return asks for its fee first, without a code.

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
  async ({ id, transferId, toAddress }, signedIn): Promise<{ data: ReturnQuote }> => ({
    data: await previewReturn(signedIn.merchant.id, id, transferId, toAddress || undefined),
  }),
  { permission: "refunds.create" },
);

export const returnUnappliedAction = merchantAction(
  unappliedReturnForm,
  async ({ id, transferId, toAddress }, signedIn) => {
    const r = await returnUnapplied(
      { ...actorOf(signedIn), merchantId: signedIn.merchant.id },
      id,
      transferId,
      toAddress || undefined,
    );
    return { data: { id: r.id }, message: "unapplied.returning" };
  },
  { permission: "refunds.create", moneyMove: "unapplied.return" },
);
