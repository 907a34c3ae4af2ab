"use server";

import { revalidatePath } from "next/cache";
import { actorOf, type SignedIn } from "@/lib/identity/dashboard/session";
import { getLocale } from "@/lib/i18n/server";
import { merchantAction } from "@/lib/dashboard/server/merchant-action";
import { addDestination, confirmDestination, removeDestination, setApiAllowlist } from "@/lib/withdrawals/address-book";
import { releaseWaitingReturns } from "@/lib/onchain/unapplied";
import { releaseWaitingWithdrawals } from "@/lib/withdrawals/release";
import { addDestinationForm, allowlistForm, destinationIdForm } from "../destination-schemas";

// Withdrawals → Destinations. Adding one changes where money may go, so it takes a fresh second
// factor like a withdrawal, and holds the destination like its first use would; only owners confirm
// one or switch the API allow-list, with a fresh second factor, as they confirm a new payout key.
// Removing one only narrows where money goes: anyone who may withdraw can.

const PAGE = "/dashboard/withdrawals/destinations";

const actor = (s: SignedIn) => ({ ...actorOf(s), merchantId: s.merchant.id, userId: s.userId });

export const addDestinationAction = merchantAction(
  addDestinationForm,
  async (input, signedIn) => {
    await addDestination(actor(signedIn), await getLocale(), signedIn.merchant, input);
    revalidatePath(PAGE);
    return { data: null, message: "destinations.added" as const };
  },
  {
    permission: "withdrawals.create",
    stepUp: true,
    labels: { value: "destinations.value", label: "destinations.label", kind: "destinations.kind" },
  },
);

export const confirmDestinationAction = merchantAction(
  destinationIdForm,
  async ({ id }, signedIn) => {
    await confirmDestination(actor(signedIn), id);
    // What waited for it leaves now rather than at the next sweep.
    await releaseWaitingWithdrawals(signedIn.merchant.id);
    await releaseWaitingReturns(signedIn.merchant.id);
    revalidatePath(PAGE);
    return { data: null, message: "destinations.confirmed" as const };
  },
  { permission: "destinations.confirm", stepUp: true },
);

export const removeDestinationAction = merchantAction(
  destinationIdForm,
  async ({ id }, signedIn) => {
    await removeDestination(actor(signedIn), id);
    revalidatePath(PAGE);
    return { data: null, message: "destinations.removed" as const };
  },
  { permission: "withdrawals.create" },
);

export const setAllowlistAction = merchantAction(
  allowlistForm,
  async ({ enabled }, signedIn) => {
    await setApiAllowlist(actor(signedIn), await getLocale(), enabled === "on");
    revalidatePath(PAGE);
    return { data: null, message: "destinations.allowlistChanged" as const };
  },
  { permission: "destinations.allowlist", stepUp: true },
);
