import type { Metadata } from "next";
import Link from "next/link";
import { ResetPasswordForm } from "@/components/auth/account-forms";
import { Alert, Card } from "@/components/ui/card";
import { getI18n } from "@/lib/i18n/server";
import { resetLinkIsLive } from "@/lib/identity/password-change";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getI18n()).t("auth.resetTitle"), referrer: "no-referrer" };
}

export default async function ResetPasswordPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const token = (await searchParams).token;
  const { t } = await getI18n();
  const live = typeof token === "string" && (await resetLinkIsLive(token));
  return (
    <Card>
      <h1 className="mb-6 text-xl font-bold text-slate-900">{t("auth.resetTitle")}</h1>
      {live ? (
        <ResetPasswordForm token={token} />
      ) : (
        <Alert>
          <p data-testid="reset-invalid">{t("auth.resetInvalid")}</p>
          <Link href="/forgot-password" className="mt-2 inline-block font-semibold underline">
            {t("auth.forgotPassword")}
          </Link>
        </Alert>
      )}
    </Card>
  );
}
