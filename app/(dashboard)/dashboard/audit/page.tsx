import type { Metadata } from "next";
import Link from "next/link";
import { buttonClass } from "@/components/ui/button";
import { Card, EmptyState, PageHeader } from "@/components/ui/card";
import { requirePermission } from "@/lib/identity/dashboard/session";
import { formatDateTime } from "@/lib/i18n";
import { getI18n } from "@/lib/i18n/server";
import type { AuditEvent } from "@/db/schema";
import { apiKeyLabels, listAudit } from "@/lib/identity/audit";
import { actionText, actorIsData, actorName, auditDetail, type AuditDetail } from "@/lib/identity/audit-text";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getI18n()).t("audit.title") };
}

const PAGE = 50;

/** A detail sentence with its values (e-mails, keys, addresses) marked as data, not wording. */
function DetailSentence({ template, detail }: { template: string; detail: AuditDetail }) {
  return (
    <>
      {template.split(/\{(\w+)\}/).map((part, i) => {
        if (i % 2 === 0) return part;
        if (part in detail.data)
          return (
            <span key={i} translate="no" className="break-all font-mono text-xs">
              {String(detail.data[part])}
            </span>
          );
        return part in detail.words ? String(detail.words[part]) : `{${part}}`;
      })}
    </>
  );
}

/** What was stored, for a developer or an operator: folded, and marked as data. */
function RawData({ row, label }: { row: AuditEvent; label: string }) {
  return (
    <details className="mt-1 text-xs text-slate-600">
      <summary className="cursor-pointer select-none">{label}</summary>
      <pre translate="no" className="mt-1 whitespace-pre-wrap break-all font-mono text-[11px]">
        {JSON.stringify({ action: row.action, target: row.target, actor: row.actor, details: row.details }, null, 1)}
      </pre>
    </details>
  );
}

/** The merchant's audit trail, newest first, for owners and admins: each row in words, what was stored kept under "Dados técnicos". */
export default async function AuditPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { merchant } = await requirePermission("audit.view");
  const raw = (await searchParams).before;
  const before = typeof raw === "string" && /^\d{1,18}$/.test(raw) ? Number(raw) : undefined;
  const [{ t, locale }, rows] = await Promise.all([getI18n(), listAudit(merchant.id, { limit: PAGE, before })]);
  // API keys by their name and last four, as the Developers page shows them, not by an id shown nowhere.
  const keys = await apiKeyLabels(
    merchant.id,
    rows.map((r) => r.actor),
  );
  return (
    <>
      <PageHeader title={t("audit.title")} />
      <Card>
        <p className="mb-4 text-sm text-slate-600">{t("audit.hint")}</p>
        {rows.length === 0 ? (
          <EmptyState title={t("audit.empty")} />
        ) : (
          <>
            {/* A phone reads each row as a short card, the sentence first; a wider screen gets the table. */}
            <ul className="divide-y divide-slate-100 md:hidden" data-testid="audit-list">
              {rows.map((r) => {
                const detail = auditDetail(t, locale, r.action, r.details);
                return (
                  <li key={r.id} className="py-3 text-sm" data-action={r.action}>
                    <p className="font-medium text-slate-900">{actionText(t, r.action)}</p>
                    {detail ? (
                      <p className="text-slate-700">
                        <DetailSentence template={t(detail.key)} detail={detail} />
                      </p>
                    ) : null}
                    <p className="mt-1 text-xs text-slate-600">
                      <span className="tabular-nums">{formatDateTime(r.createdAt, locale)}</span> ·{" "}
                      <span className="[overflow-wrap:anywhere]" translate={actorIsData(r.actor) ? "no" : undefined}>
                        {actorName(t, r.actor, keys)}
                      </span>
                      {r.ip ? (
                        <>
                          {" "}
                          ·{" "}
                          <span className="font-mono" translate="no">
                            {r.ip}
                          </span>
                        </>
                      ) : null}
                    </p>
                    <RawData row={r} label={t("audit.raw")} />
                  </li>
                );
              })}
            </ul>
            <div className="hidden overflow-x-auto md:block" tabIndex={0} role="region" aria-label={t("audit.title")}>
              <table className="w-full min-w-[34rem] text-left text-sm" data-testid="audit-table">
                <thead className="border-b border-slate-200 text-xs uppercase text-slate-600">
                  <tr>
                    <th className="py-2 pr-4">{t("audit.when")}</th>
                    <th className="py-2 pr-4">{t("audit.who")}</th>
                    <th className="py-2 pr-4">{t("audit.what")}</th>
                    <th className="py-2">{t("audit.address")}</th>
                  </tr>
                </thead>
                <tbody className="divide-y divide-slate-100">
                  {rows.map((r) => {
                    const detail = auditDetail(t, locale, r.action, r.details);
                    return (
                      <tr key={r.id} data-action={r.action} className="align-top">
                        <td className="whitespace-nowrap py-2 pr-4 tabular-nums">
                          {formatDateTime(r.createdAt, locale)}
                        </td>
                        <td
                          className="max-w-[15rem] py-2 pr-4 [overflow-wrap:anywhere]"
                          translate={actorIsData(r.actor) ? "no" : undefined}
                        >
                          {actorName(t, r.actor, keys)}
                        </td>
                        <td className="min-w-[14rem] py-2 pr-4">
                          <span className="block font-medium">{actionText(t, r.action)}</span>
                          {detail ? (
                            <span className="block text-slate-700" data-testid="audit-detail">
                              <DetailSentence template={t(detail.key)} detail={detail} />
                            </span>
                          ) : null}
                          <RawData row={r} label={t("audit.raw")} />
                        </td>
                        <td className="py-2 font-mono text-xs" translate="no">
                          {r.ip ?? ""}
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          </>
        )}
        {rows.length === PAGE ? (
          <Link
            href={`/dashboard/audit?before=${rows[rows.length - 1].id}`}
            className={buttonClass("secondary", "mt-4")}
          >
            {t("audit.older")}
          </Link>
        ) : null}
      </Card>
    </>
  );
}
