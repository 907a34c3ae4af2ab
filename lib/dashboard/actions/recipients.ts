"use server";

import { actorOf, type SignedIn } from "@/lib/identity/dashboard/session";
import { getLocale } from "@/lib/i18n/server";
import { merchantAction } from "@/lib/dashboard/server/merchant-action";
import { requestRecipientPayout } from "@/lib/recipients/payouts";
import { createRecipient, updateRecipient, type RecipientOrigin } from "@/lib/recipients/service";
import { DECIMAL_FIELDS, recipientEditForm, recipientForm, recipientPayoutForm } from "../schemas";

// Recipients ("recebedores") through the same service calls as /api/v1/recipients, with the signed-in
// merchant and user: a changed PIX key is held and announced to the owners as the API's change is,
// and a payout is a money move (a fresh second factor, the factor-change hold).

const LABELS = {
  name: "recipients.form.name",
  document: "recipients.form.document",
  pixKey: "recipients.form.pixKey",
  email: "recipients.form.email",
  reference: "recipients.form.reference",
  value: "recipients.payout.value",
  payoutSchedule: "recipients.form.schedule",
} as const;

async function originOf(signedIn: SignedIn): Promise<RecipientOrigin> {
  return { actor: { ...actorOf(signedIn), merchantId: signedIn.merchant.id }, locale: await getLocale() };
}

export const createRecipientAction = merchantAction(
  recipientForm,
  async (input, signedIn) => {
    const made = await createRecipient(signedIn.merchant.id, input, await originOf(signedIn));
    return { redirectTo: `/dashboard/recipients/${made.id}` };
  },
  { permission: "recipients.manage", labels: LABELS },
);

export const updateRecipientAction = merchantAction(
  recipientEditForm,
  async ({ id, ...change }, signedIn) => {
    await updateRecipient(signedIn.merchant.id, id, change, await originOf(signedIn));
    return { redirectTo: `/dashboard/recipients/${id}?saved=1` };
  },
  { permission: "recipients.manage", labels: LABELS },
);

export const payRecipientAction = merchantAction(
  recipientPayoutForm,
  async ({ id, ...input }, signedIn) => {
    const payout = await requestRecipientPayout(signedIn.merchant.id, id, input, await originOf(signedIn));
    return { data: { id: payout.id }, message: "recipients.payout.done" as const };
  },
  { permission: "withdrawals.create", moneyMove: "recipient.payout", decimalFields: DECIMAL_FIELDS, labels: LABELS },
);
