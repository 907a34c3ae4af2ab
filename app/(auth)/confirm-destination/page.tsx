import type { Metadata } from "next";
import { ConfirmDestinationLink } from "@/components/auth/confirm-destination";
import { Alert, Card, DefinitionList } from "@/components/ui/card";
import { formatDateTime } from "@/lib/i18n";
import { getI18n } from "@/lib/i18n/server";
import { destinationOfLink } from "@/lib/withdrawals/address-book";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getI18n()).t("destinations.linkTitle"), referrer: "no-referrer" };
}

/**
 * Where the link mailed to the owners about a new withdrawal destination leads: what it would
 * confirm, and a button that does. Opening it spends nothing (lib/identity-flows/destination-link.ts).
 */
export default async function ConfirmDestinationPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const token = (await searchParams).token;
  const { t, locale } = await getI18n();
  const found = typeof token === "string" ? await destinationOfLink(token) : null;
  return (
    <Card>
      <h1 className="mb-4 text-xl font-bold text-slate-900">{t("destinations.linkTitle")}</h1>
      {found && typeof token === "string" ? (
        <div className="space-y-4">
          <p className="text-sm text-slate-700">{t("destinations.linkIntro", { company: found.company })}</p>
          <DefinitionList
            items={[
              { label: t("destinations.kind"), value: t(`destinations.kind.${found.destination.kind}`) },
              {
                label: t("withdrawals.destination"),
                value: (
                  <span className="break-all font-mono text-xs" translate="no" data-testid="link-destination">
                    {found.destination.value}
                  </span>
                ),
              },
              ...(found.destination.label ? [{ label: t("destinations.label"), value: found.destination.label }] : []),
              ...(found.destination.holdUntil && found.destination.status === "held"
                ? [
                    {
                      label: t("withdrawals.colStatus"),
                      value: t("destinations.status.held", {
                        until: formatDateTime(found.destination.holdUntil, locale),
                      }),
                    },
                  ]
                : []),
            ]}
          />
          <Alert tone="warning">
            <p>{t("destinations.linkWarning")}</p>
          </Alert>
          <ConfirmDestinationLink token={token} />
        </div>
      ) : (
        <Alert>
          <p data-testid="link-invalid">{t("destinations.linkInvalid")}</p>
        </Alert>
      )}
    </Card>
  );
}
