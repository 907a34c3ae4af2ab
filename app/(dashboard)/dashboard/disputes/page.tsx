import type { Metadata } from "next";
import Link from "next/link";
import { DefenceForm } from "@/components/dashboard/defence-form";
import { Card, EmptyState, PageHeader } from "@/components/ui/card";
import { INFRACTION_DEFENCE_MAX, type MedInfraction } from "@/db/schema";
import { requireMerchant } from "@/lib/identity/dashboard/session";
import { formatDateTime, formatMoney, type Translator } from "@/lib/i18n";
import { getI18n } from "@/lib/i18n/server";
import { merchantInfractions } from "@/lib/med/infractions";
import { can } from "@/lib/identity/roles";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getI18n()).t("disputes.title") };
}

/** Where the infraction stands for the merchant: the defence's state first, then the PSP's. */
function standing(row: MedInfraction, t: Translator, now: number): string {
  if (row.defenceState === "sent") return t("disputes.state.sent");
  if (row.defenceState === "sending") return t("disputes.state.sending");
  if (row.defenceState === "refused" && row.open && row.deadline.getTime() > now)
    return t("disputes.state.refused", { reason: row.defenceRefusal ?? "" });
  if (!row.open) return t("disputes.state.closed", { status: row.status });
  if (row.deadline.getTime() <= now) return t("disputes.state.late");
  return t("disputes.state.none");
}

/** The merchant's MED infractions (docs/dashboard.md "MED disputes"): open ones first, by deadline. */
export default async function DisputesPage() {
  const { merchant, role } = await requireMerchant();
  const [{ t, locale }, rows] = await Promise.all([getI18n(), merchantInfractions(merchant.id)]);
  const canDefend = can(role, "disputes.defend");
  const now = Date.now();
  return (
    <>
      <PageHeader title={t("disputes.title")} />
      <Card>
        <p className="mb-4 text-sm text-slate-600">{t("disputes.hint")}</p>
        {!canDefend && rows.length > 0 ? <p className="mb-4 text-sm text-slate-700">{t("disputes.viewOnly")}</p> : null}
        {rows.length === 0 ? (
          <EmptyState title={t("disputes.empty")} />
        ) : (
          <ul className="divide-y divide-slate-100" data-testid="infractions">
            {rows.map((row) => {
              const defendable =
                canDefend &&
                row.open &&
                row.deadline.getTime() > now &&
                (row.defenceState === "none" || row.defenceState === "refused");
              return (
                <li key={row.id} className="space-y-3 py-4" data-testid="infraction" data-infraction={row.infractionId}>
                  <dl className="grid gap-2 text-sm sm:grid-cols-4">
                    <div>
                      <dt className="text-xs uppercase text-slate-600">{t("disputes.col.order")}</dt>
                      <dd>
                        {row.orderId ? (
                          <Link
                            href={`/dashboard/orders/${row.orderId}`}
                            className="font-mono text-xs text-brand-700 underline"
                          >
                            {row.orderId}
                          </Link>
                        ) : (
                          t("disputes.noOrder")
                        )}
                      </dd>
                    </div>
                    <div>
                      <dt className="text-xs uppercase text-slate-600">{t("disputes.col.amount")}</dt>
                      <dd className="tabular-nums font-medium text-slate-900">
                        {formatMoney(row.valueCentavos, locale)}
                      </dd>
                    </div>
                    <div>
                      <dt className="text-xs uppercase text-slate-600">{t("disputes.col.deadline")}</dt>
                      <dd className="tabular-nums">{formatDateTime(row.deadline, locale)}</dd>
                    </div>
                    <div>
                      <dt className="text-xs uppercase text-slate-600">{t("disputes.col.status")}</dt>
                      <dd>{standing(row, t, now)}</dd>
                    </div>
                    <div className="sm:col-span-4">
                      <dt className="text-xs uppercase text-slate-600">{t("disputes.col.reason")}</dt>
                      <dd className="text-slate-800">
                        {row.situation ? `${row.situation}: ` : ""}
                        {row.reason}
                      </dd>
                    </div>
                  </dl>
                  {defendable ? <DefenceForm id={row.id} max={INFRACTION_DEFENCE_MAX} /> : null}
                </li>
              );
            })}
          </ul>
        )}
      </Card>
    </>
  );
}
