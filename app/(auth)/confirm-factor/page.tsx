import type { Metadata } from "next";
import { ConfirmFactorForm } from "@/components/auth/confirm-factor-form";
import { Alert, Card } from "@/components/ui/card";
import { formatDateTime, withSpans } from "@/lib/i18n";
import { getI18n } from "@/lib/i18n/server";
import { openFactorLink } from "@/lib/identity/factor-change";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getI18n()).t("security.linkTitle"), referrer: "no-referrer" };
}

/**
 * The link mailed to the owners when a member's second factor changes: what it confirms, and a
 * button. Opening the page spends nothing (mail scanners open links); the button does, once.
 */
export default async function ConfirmFactorPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const token = (await searchParams).token;
  const { t, locale } = await getI18n();
  const link = typeof token === "string" ? await openFactorLink(token) : null;
  return (
    <Card>
      <h1 className="mb-4 text-xl font-bold text-slate-900">{t("security.linkTitle")}</h1>
      {link && typeof token === "string" ? (
        <div className="space-y-4">
          <p className="text-sm text-slate-700" data-testid="factor-link-what">
            {t("security.linkWhat", {
              member: link.member,
              company: link.company,
              time: link.changedAt ? formatDateTime(link.changedAt, locale) : "?",
            })}
          </p>
          <p className="text-sm text-slate-700">
            {t("security.linkHint", withSpans(locale, { hours: link.holdHours }))}
          </p>
          <Alert tone="warning">{t("security.linkNotThem")}</Alert>
          <ConfirmFactorForm token={token} />
        </div>
      ) : (
        <Alert>
          <p data-testid="factor-link-invalid">{t("security.linkInvalid")}</p>
        </Alert>
      )}
    </Card>
  );
}
