import type { Metadata } from "next";
import Link from "next/link";
import { buttonClass } from "@/components/ui/button";
import { Card, EmptyState, PageHeader } from "@/components/ui/card";
import { requirePermission } from "@/lib/identity/dashboard/session";
import { formatDateTime, isMessageKey } from "@/lib/i18n";
import { getI18n } from "@/lib/i18n/server";
import { listAudit } from "@/lib/identity/audit";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getI18n()).t("audit.title") };
}

const PAGE = 50;

/** The merchant's audit trail, newest first, for owners and admins. */
export default async function AuditPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { merchant } = await requirePermission("audit.view");
  const raw = (await searchParams).before;
  const before = typeof raw === "string" && /^\d{1,18}$/.test(raw) ? Number(raw) : undefined;
  const [{ t, locale }, rows] = await Promise.all([getI18n(), listAudit(merchant.id, { limit: PAGE, before })]);
  const label = (action: string) => {
    const key = `audit.action.${action}`;
    return isMessageKey(key) ? t(key) : action;
  };
  return (
    <>
      <PageHeader title={t("audit.title")} />
      <Card>
        <p className="mb-4 text-sm text-slate-600">{t("audit.hint")}</p>
        {rows.length === 0 ? (
          <EmptyState title={t("audit.empty")} />
        ) : (
          // Focusable, so the table can be scrolled sideways from the keyboard on a phone.
          <div className="overflow-x-auto" tabIndex={0} role="region" aria-label={t("audit.title")}>
            <table className="w-full text-left text-sm" data-testid="audit-table">
              <thead className="border-b border-slate-200 text-xs uppercase text-slate-600">
                <tr>
                  <th className="py-2 pr-4">{t("audit.when")}</th>
                  <th className="py-2 pr-4">{t("audit.who")}</th>
                  <th className="py-2 pr-4">{t("audit.what")}</th>
                  <th className="py-2 pr-4">{t("audit.target")}</th>
                  <th className="py-2">{t("audit.address")}</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {rows.map((r) => (
                  <tr key={r.id} data-action={r.action}>
                    <td className="whitespace-nowrap py-2 pr-4 tabular-nums">{formatDateTime(r.createdAt, locale)}</td>
                    <td className="py-2 pr-4">{r.actor}</td>
                    <td className="py-2 pr-4 font-medium">{label(r.action)}</td>
                    <td className="max-w-xs truncate py-2 pr-4 font-mono text-xs" title={r.details ? JSON.stringify(r.details) : undefined}>
                      {r.details
                        ? Object.values(r.details)
                            .filter((v) => typeof v === "string" || typeof v === "number")
                            .join(" · ")
                        : (r.target ?? "")}
                    </td>
                    <td className="py-2 font-mono text-xs">{r.ip ?? ""}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {rows.length === PAGE ? (
          <Link href={`/dashboard/audit?before=${rows[rows.length - 1].id}`} className={buttonClass("secondary", "mt-4")}>
            {t("audit.older")}
          </Link>
        ) : null}
      </Card>
    </>
  );
}
