import type { Metadata } from "next";
import { StatementView } from "@/components/dashboard/statement-view";
import { PageHeader } from "@/components/ui/card";
import { requireMerchant } from "@/lib/identity/dashboard/session";
import { getStatement, statementQuery } from "@/lib/dashboard/server/statement";
import { getI18n } from "@/lib/i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getI18n()).t("statement.title") };
}

export default async function StatementPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { merchant } = await requireMerchant();
  const raw = Object.fromEntries(Object.entries(await searchParams).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));
  const query = statementQuery.parse(raw);
  const [{ t }, statement] = await Promise.all([getI18n(), getStatement(merchant.id, query)]);
  return (
    <>
      <PageHeader title={t("statement.title")} />
      <StatementView
        filters={{ from: query.from, to: query.to, kind: query.kind, before: query.before }}
        statement={statement}
      />
    </>
  );
}
