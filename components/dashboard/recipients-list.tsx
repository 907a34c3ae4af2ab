"use client";

import Link from "next/link";
import { EmptyState } from "@/components/ui/card";
import { ButtonLink, buttonClass } from "@/components/ui/button";
import { useI18n } from "@/lib/i18n/client";
import type { RecipientView } from "@/lib/recipients/schemas";
import { Brl, KeyHeld, Pill } from "./recipient-bits";

// The merchant's recipients, newest first: on a phone one card each (name, balance, document, key,
// status), from md up a table; a search by name, CPF/CNPJ or reference; paged with the API's cursor.

export function RecipientsList({
  recipients,
  q,
  nextCursor,
  canManage,
}: {
  recipients: RecipientView[];
  q?: string;
  nextCursor: string | null;
  canManage: boolean;
}) {
  const { t } = useI18n();
  return (
    <div className="space-y-4">
      <form role="search" action="/dashboard/recipients" className="flex items-end gap-2">
        <div className="min-w-0 flex-1 space-y-1">
          <label htmlFor="recipients-q" className="block text-sm font-medium text-slate-800">
            {t("recipients.search")}
          </label>
          <input
            id="recipients-q"
            name="q"
            type="search"
            defaultValue={q}
            placeholder={t("recipients.searchHint")}
            className="block w-full rounded-lg border border-slate-300 bg-white px-3 py-2 text-sm text-slate-900 shadow-sm placeholder:text-slate-500 focus:border-brand-700 focus:outline-2 focus:outline-brand-700"
          />
        </div>
        <button type="submit" className={buttonClass("secondary")}>
          {t("recipients.searchButton")}
        </button>
      </form>
      {recipients.length === 0 ? (
        q ? (
          <EmptyState title={t("recipients.noMatch", { q })} />
        ) : (
          <EmptyState
            title={t("recipients.empty")}
            body={t("recipients.emptyBody")}
            action={
              canManage ? <ButtonLink href="/dashboard/recipients/new">{t("recipients.new")}</ButtonLink> : undefined
            }
          />
        )
      ) : (
        <>
          <ul className="space-y-2 md:hidden" data-testid="recipients-cards">
            {recipients.map((r) => (
              <li key={r.id}>
                <Link
                  href={`/dashboard/recipients/${r.id}`}
                  className="block rounded-xl border border-slate-200 bg-white p-4 shadow-sm"
                  data-testid="recipient-row"
                >
                  <div className="flex items-start justify-between gap-3">
                    <p className="min-w-0 break-words font-semibold text-slate-900">{r.name}</p>
                    <Brl value={r.balance} className="shrink-0 font-semibold text-slate-900" />
                  </div>
                  <p className="mt-1 text-sm text-slate-600">
                    <span className="font-mono">{r.document}</span>
                  </p>
                  <div className="mt-2 flex flex-wrap items-center justify-between gap-2 text-sm text-slate-600">
                    <span className="min-w-0 break-all font-mono text-xs">{r.pixKey}</span>
                    <Pill status={r.status} label={`recipients.status.${r.status}`} />
                  </div>
                  {r.pixKeyUsableAt ? (
                    <p className="mt-2">
                      <KeyHeld until={r.pixKeyUsableAt} />
                    </p>
                  ) : null}
                </Link>
              </li>
            ))}
          </ul>
          <div className="hidden overflow-x-auto rounded-xl border border-slate-200 bg-white md:block">
            <table className="min-w-full text-sm" data-testid="recipients-table">
              <thead className="bg-slate-50 text-left text-slate-600">
                <tr>
                  <th className="px-4 py-2 font-medium">{t("recipients.col.name")}</th>
                  <th className="px-4 py-2 font-medium">{t("recipients.col.document")}</th>
                  <th className="px-4 py-2 font-medium">{t("recipients.col.pixKey")}</th>
                  <th className="px-4 py-2 text-right font-medium">{t("recipients.col.balance")}</th>
                  <th className="px-4 py-2 font-medium">{t("recipients.col.status")}</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {recipients.map((r) => (
                  <tr key={r.id} className="hover:bg-slate-50" data-testid="recipient-row">
                    <td className="px-4 py-2">
                      <Link
                        href={`/dashboard/recipients/${r.id}`}
                        className="font-medium text-brand-700 hover:underline"
                      >
                        {r.name}
                      </Link>
                      {r.reference ? <p className="text-xs text-slate-600">{r.reference}</p> : null}
                    </td>
                    <td className="whitespace-nowrap px-4 py-2 font-mono text-xs text-slate-700">{r.document}</td>
                    <td className="px-4 py-2 text-slate-700">
                      <span className="break-all font-mono text-xs">{r.pixKey}</span>
                      {r.pixKeyUsableAt ? (
                        <p>
                          <KeyHeld until={r.pixKeyUsableAt} />
                        </p>
                      ) : null}
                    </td>
                    <td className="whitespace-nowrap px-4 py-2 text-right">
                      <Brl value={r.balance} />
                    </td>
                    <td className="px-4 py-2">
                      <Pill status={r.status} label={`recipients.status.${r.status}`} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {nextCursor ? (
            <ButtonLink variant="secondary" href={`/dashboard/recipients?cursor=${encodeURIComponent(nextCursor)}`}>
              {t("recipients.more")}
            </ButtonLink>
          ) : null}
        </>
      )}
    </div>
  );
}
