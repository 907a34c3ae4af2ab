"use server";

import { headers } from "next/headers";
import { validatedAction } from "@/lib/forms/validated-action";
import { confirmFactorChangeByLink } from "@/lib/identity/factor-change";
import { addressOf } from "./request-address";
import { factorLinkForm } from "./schemas";

// The link mailed to the owners when a member's second factor changes (/confirm-factor?token=…):
// following it shows what it confirms; only this post, from the page's button, spends it, so a mail
// scanner that opens links confirms nothing.

export const confirmFactorLinkAction = validatedAction(factorLinkForm, async ({ token }) => {
  const member = await confirmFactorChangeByLink(token, addressOf(await headers()));
  return { data: { member }, message: "security.factorConfirmed" as const };
});
