"use server";

import { revalidatePath } from "next/cache";
import { cookies } from "next/headers";
import { isLocale, LANG_COOKIE } from "@/lib/i18n";
import { updateMerchant } from "@/lib/merchants/service";
import { merchantAction } from "@/lib/dashboard/server/merchant-action";
import { settingsForm } from "../schemas";

/** Company name and PIX key only: the account type is the operator's to change (CONTRACT §2). */
export const updateSettingsAction = merchantAction(settingsForm, async ({ companyName, pixKey }, { merchant }) => {
  await updateMerchant(merchant.id, { companyName, pixKey });
  revalidatePath("/dashboard", "layout");
  return { data: null, message: "common.saved" as const };
});

/** The language switch: a cookie for a year; works without JavaScript (a plain form post). */
export async function setLanguageAction(formData: FormData): Promise<void> {
  const lang = formData.get("lang");
  if (!isLocale(lang)) return;
  (await cookies()).set(LANG_COOKIE, lang, { path: "/", maxAge: 60 * 60 * 24 * 365, sameSite: "lax" });
  revalidatePath("/", "layout");
}
