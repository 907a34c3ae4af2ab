import { LanguageSwitch } from "@/components/layout/language-switch";
import { getI18n } from "@/lib/i18n/server";

// The frame every payer's page shares: public, no session, the language switch and nothing of the
// merchant's but what each page shows.
export default async function CheckoutLayout({ children }: { children: React.ReactNode }) {
  const { locale, t } = await getI18n();
  return (
    <div className="mx-auto flex min-h-screen max-w-md flex-col px-4 py-4 sm:py-10">
      <div className="mb-4 flex items-center justify-between print:hidden">
        <p className="text-sm font-semibold text-slate-700">{t("app.name")}</p>
        <LanguageSwitch locale={locale} />
      </div>
      <main className="flex-1">{children}</main>
      <footer className="mt-6 text-center text-xs text-slate-600">{t("pay.securedBy")}</footer>
    </div>
  );
}
