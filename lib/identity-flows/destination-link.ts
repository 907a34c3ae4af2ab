"use server";

import { headers } from "next/headers";
import { z } from "zod";
import { InvalidInput } from "@/lib/errors";
import { formSchema } from "@/lib/forms/form";
import { validatedAction } from "@/lib/forms/validated-action";
import { releaseWaitingReturns } from "@/lib/onchain/unapplied";
import { confirmDestinationByLink } from "@/lib/withdrawals/address-book";
import { releaseWaitingWithdrawals } from "@/lib/withdrawals/release";
import { addressOf } from "@/lib/identity/dashboard/request-address";

// The button on /confirm-destination: whoever holds the link mailed to the owners confirms the new
// withdrawal destination without signing in, once. Opening the page confirms nothing, so a mail
// scanner that follows links cannot confirm on the owners' behalf.

const confirmLinkForm = formSchema(z.object({ token: z.string().max(100) }));

export const confirmDestinationLinkAction = validatedAction<typeof confirmLinkForm, null>(
  confirmLinkForm,
  async ({ token }) => {
    const confirmed = await confirmDestinationByLink(token, addressOf(await headers()));
    if (!confirmed) throw InvalidInput.of("destinations.linkInvalid");
    // What waited for it leaves now rather than at the next sweep.
    await releaseWaitingWithdrawals(confirmed.merchantId);
    await releaseWaitingReturns(confirmed.merchantId);
    return { data: null, message: "destinations.linkDone" };
  },
);
