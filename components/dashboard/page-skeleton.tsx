import { Skeleton } from "@/components/ui/card";
import { getI18n } from "@/lib/i18n/server";

/** What a dashboard page shows while its data loads: the shape of a page, not a spinner in the void. */
export default async function PageSkeleton() {
  const { t } = await getI18n();
  return (
    <div role="status" aria-busy="true" className="space-y-6">
      <span className="sr-only">{t("common.loading")}</span>
      <Skeleton className="h-8 w-48" />
      <div className="grid gap-4 sm:grid-cols-3">
        <Skeleton className="h-28" />
        <Skeleton className="h-28" />
        <Skeleton className="h-28" />
      </div>
      <Skeleton className="h-64" />
    </div>
  );
}
