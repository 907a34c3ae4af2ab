"use server";

import { revalidatePath } from "next/cache";
import { cookies } from "next/headers";
import { actorOf } from "@/lib/identity/dashboard/session";
import { isLocale, LANG_COOKIE } from "@/lib/i18n";
import { getLocale } from "@/lib/i18n/server";
import { confirmPayoutKey, updateMerchant, updateMerchantSettings } from "@/lib/merchants/service";
import { merchantAction } from "@/lib/dashboard/server/merchant-action";
import { alertAdmins } from "@/lib/identity/alerts";
import { audit } from "@/lib/identity/audit";
import { companyForm, emptyForm, payoutKeyForm, receiptForm } from "../schemas";

// Company name and payout PIX key only: the account type is the operator's to change (docs/api.md#operator-api).
// The payout key decides where withdrawals go, so changing it takes a fresh second factor, is
// audited, alerts the owners and admins, and starts the key's hold (lib/identity/payout-hold.ts).

export const updateCompanyAction = merchantAction(
  companyForm,
  async ({ companyName }, signedIn) => {
    await updateMerchant(signedIn.merchant.id, { companyName });
    await audit(actorOf(signedIn), "company.changed", signedIn.merchant.id, {
      from: signedIn.merchant.companyName,
      to: companyName,
    });
    revalidatePath("/dashboard", "layout");
    return { data: null, message: "common.saved" as const };
  },
  { permission: "company.edit" },
);

/** Whether the payer's receipt names the split's recipients and their parts (docs/dashboard.md, Settings); audited. */
export const updateReceiptAction = merchantAction(
  receiptForm,
  async ({ receiptShowsSplits }, signedIn) => {
    await updateMerchantSettings(
      { ...actorOf(signedIn), merchantId: signedIn.merchant.id },
      { receiptShowsSplits: receiptShowsSplits === "on" },
    );
    revalidatePath("/dashboard/settings");
    return { data: null, message: "common.saved" as const };
  },
  { permission: "company.edit" },
);

export const updatePayoutKeyAction = merchantAction(
  payoutKeyForm,
  async ({ pixKey }, signedIn) => {
    const before = signedIn.merchant.pixKey;
    const updated = await updateMerchant(signedIn.merchant.id, { pixKey });
    if (updated.pixKey !== before) {
      const actor = actorOf(signedIn);
      await audit(actor, "payoutKey.changed", signedIn.merchant.id, { from: before, to: updated.pixKey });
      await alertAdmins(
        { ...actor, merchantId: signedIn.merchant.id },
        "payoutKey",
        updated.pixKey ?? "",
        await getLocale(),
      );
    }
    revalidatePath("/dashboard", "layout");
    return { data: null, message: "common.saved" as const };
  },
  { permission: "payoutKey.change", stepUp: true },
);

/** An owner vouches for a recently changed payout key, so withdrawals to it need not wait. */
export const confirmPayoutKeyAction = merchantAction(
  emptyForm,
  async (_input, signedIn) => {
    await confirmPayoutKey(signedIn.merchant.id);
    await audit(actorOf(signedIn), "payoutKey.confirmed", signedIn.merchant.id, { pixKey: signedIn.merchant.pixKey });
    revalidatePath("/dashboard", "layout");
    return { data: null, message: "settings.payoutConfirmed" as const };
  },
  { permission: "payoutKey.confirm", stepUp: true },
);

/** The language switch: a cookie for a year; works without JavaScript (a plain form post). */
export async function setLanguageAction(formData: FormData): Promise<void> {
  const lang = formData.get("lang");
  if (!isLocale(lang)) return;
  (await cookies()).set(LANG_COOKIE, lang, { path: "/", maxAge: 60 * 60 * 24 * 365, sameSite: "lax" });
  revalidatePath("/", "layout");
}
