import Link from "next/link";
import { buttonClass } from "@/components/ui/button";
import { getI18n } from "@/lib/i18n/server";

export default async function NotFoundPage() {
  const { t } = await getI18n();
  return (
    <main className="mx-auto flex min-h-[60vh] max-w-md flex-col items-center justify-center px-4 text-center">
      <p className="text-5xl font-bold text-slate-600" aria-hidden="true">
        404
      </p>
      <h1 className="mt-4 text-xl font-bold text-slate-900">{t("errors.notFoundTitle")}</h1>
      <p className="mt-2 text-sm text-slate-600">{t("errors.notFoundBody")}</p>
      <Link href="/" className={buttonClass("secondary", "mt-6")}>
        {t("errors.goHome")}
      </Link>
    </main>
  );
}
