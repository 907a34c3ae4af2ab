import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { SignInForm } from "@/components/auth/sign-in-form";
import { Card } from "@/components/ui/card";
import { safeCallbackUrl } from "@/lib/identity/dashboard/callback-url";
import { currentMerchant } from "@/lib/identity/dashboard/session";
import { getI18n } from "@/lib/i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getI18n();
  return { title: t("nav.signIn") };
}

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const callbackUrl = safeCallbackUrl(params.callbackUrl);
  if (await currentMerchant()) redirect(callbackUrl);
  const { t } = await getI18n();
  return (
    <Card>
      <h1 className="text-xl font-bold text-slate-900">{t("auth.signInTitle")}</h1>
      <p className="mb-6 mt-1 text-sm text-slate-600">{t("auth.signInSubtitle")}</p>
      <SignInForm
        callbackUrl={callbackUrl}
        notice={
          params.reset
            ? "auth.resetDone"
            : params.joined
              ? "auth.inviteDone"
              : params.created
                ? "auth.signUpDone"
                : undefined
        }
      />
    </Card>
  );
}
