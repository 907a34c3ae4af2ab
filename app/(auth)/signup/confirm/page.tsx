import type { Metadata } from "next";
import Link from "next/link";
import { SignUpConfirmForm } from "@/components/auth/sign-up-confirm-form";
import { Alert, Card } from "@/components/ui/card";
import { openSignUp } from "@/lib/identity/dashboard/sign-up-link";
import { getI18n } from "@/lib/i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getI18n()).t("auth.signUpConfirmTitle"), referrer: "no-referrer" };
}

// The page a sign-up link opens (lib/identity-flows/sign-up.ts). Opening it creates nothing (mail scanners
// open links): the button does.
export default async function SignUpConfirmPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const token = (await searchParams).token;
  const { t } = await getI18n();
  const request = openSignUp(token);
  return (
    <Card>
      <h1 className="mb-4 text-xl font-bold text-slate-900">{t("auth.signUpConfirmTitle")}</h1>
      {request && typeof token === "string" ? (
        <>
          <p className="mb-6 text-sm text-slate-700">
            {t("auth.signUpConfirmBody", { company: request.companyName, email: request.email })}
          </p>
          <SignUpConfirmForm token={token} />
        </>
      ) : (
        <Alert>
          <p data-testid="sign-up-link-invalid">{t("auth.signUpLinkInvalid")}</p>
          <Link href="/signup" className="mt-2 inline-block font-semibold underline">
            {t("auth.signUpAgain")}
          </Link>
        </Alert>
      )}
    </Card>
  );
}
