import type { Metadata } from "next";
import { ForgotPasswordForm } from "@/components/auth/account-forms";
import { Card } from "@/components/ui/card";
import { getI18n } from "@/lib/i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getI18n()).t("auth.forgotTitle") };
}

export default async function ForgotPasswordPage() {
  const { t } = await getI18n();
  return (
    <Card>
      <h1 className="text-xl font-bold text-slate-900">{t("auth.forgotTitle")}</h1>
      <p className="mb-6 mt-1 text-sm text-slate-600">{t("auth.forgotSubtitle")}</p>
      <ForgotPasswordForm />
    </Card>
  );
}
