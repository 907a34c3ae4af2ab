import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { Card, EmptyState, PageHeader } from "@/components/ui/card";
import { requireMerchant } from "@/lib/identity/dashboard/session";
import { env } from "@/lib/env";
import { formatDateTime } from "@/lib/i18n";
import { getI18n } from "@/lib/i18n/server";
import { outboxFor } from "@/lib/mail/mailer";
import { can } from "@/lib/identity/roles";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getI18n()).t("outbox.title") };
}

/** With no SMTP server configured, the mails sent about this merchant are read here. */
export default async function OutboxPage() {
  const { merchant, email, role } = await requireMerchant();
  if (env().SMTP_URL) notFound();
  const [{ t, locale }, mails] = await Promise.all([
    getI18n(),
    outboxFor(merchant.id, { email, seesInvitations: can(role, "team.manage") }),
  ]);
  return (
    <>
      <PageHeader title={t("outbox.title")} />
      <p className="mb-4 text-sm text-slate-600">{t("outbox.hint")}</p>
      {mails.length === 0 ? (
        <EmptyState title={t("outbox.empty")} />
      ) : (
        <ul className="space-y-4">
          {mails.map((m) => (
            <li key={m.id}>
              <Card data-testid="outbox-mail">
                <p className="text-sm font-semibold text-slate-900">{m.subject}</p>
                <p className="text-xs text-slate-600">
                  {t("outbox.to")}: {m.toAddress} · {formatDateTime(m.createdAt, locale)}
                </p>
                <pre className="mt-3 whitespace-pre-wrap break-words font-sans text-sm text-slate-800">{m.body}</pre>
              </Card>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
