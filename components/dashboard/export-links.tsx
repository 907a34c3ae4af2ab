"use client";

import { buttonClass } from "@/components/ui/button";
import { Card, CardTitle } from "@/components/ui/card";
import { useI18n } from "@/lib/i18n/client";

/**
 * Download links for one export with the page's filters (`params`): plain links, so the browser
 * downloads the streamed file itself and nothing is held in the page. Each page says what its file
 * holds: the withdrawals page has no filters, and the orders file follows only the dates.
 */
export function ExportLinks({
  name,
  params,
}: {
  name: "statement" | "orders" | "withdrawals" | "subscriptions";
  params: Record<string, string | undefined>;
}) {
  const { t } = useI18n();
  const href = (format: "csv" | "excel") => {
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v) p.set(k, v);
    p.set("format", format);
    return `/dashboard/api/exports/${name}?${p.toString()}`;
  };
  return (
    <Card aria-labelledby={`export-${name}`}>
      <CardTitle id={`export-${name}`}>{t("export.title")}</CardTitle>
      <p className="mt-1 text-sm text-slate-600">
        {t(`export.hint.${name}`)} {t("export.formats")}
      </p>
      <div className="mt-3 flex flex-wrap gap-2">
        <a href={href("csv")} download className={buttonClass("secondary")} data-testid={`export-${name}-csv`}>
          {t("export.csv")}
        </a>
        <a href={href("excel")} download className={buttonClass("secondary")} data-testid={`export-${name}-excel`}>
          {t("export.excel")}
        </a>
      </div>
    </Card>
  );
}
