"use client";

import { Button } from "@/components/ui/button";
import { Alert } from "@/components/ui/card";
import { useI18n } from "@/lib/i18n/client";

/** A page of the dashboard failed: say so, in the visitor's language, and offer to try again. */
export default function DashboardError({ reset }: { error: Error; reset: () => void }) {
  const { t } = useI18n();
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-bold text-slate-900">{t("errors.pageTitle")}</h1>
      <Alert>{t("common.error")}</Alert>
      <Button onClick={reset}>{t("common.retry")}</Button>
    </div>
  );
}
