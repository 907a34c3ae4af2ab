import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { SignUpForm } from "@/components/auth/sign-up-form";
import { Card } from "@/components/ui/card";
import { currentMerchant } from "@/lib/identity/dashboard/session";
import { getI18n } from "@/lib/i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getI18n();
  return { title: t("nav.signUp") };
}

export default async function SignUpPage() {
  if (await currentMerchant()) redirect("/dashboard");
  const { t } = await getI18n();
  return (
    <Card>
      <h1 className="text-xl font-bold text-slate-900">{t("auth.signUpTitle")}</h1>
      <p className="mb-6 mt-1 text-sm text-slate-600">{t("auth.signUpSubtitle")}</p>
      <SignUpForm />
    </Card>
  );
}
