import { LOCALES, translate, type Locale } from "@/lib/i18n";
import { setLanguageAction } from "@/lib/dashboard/actions/settings";
import { cn } from "@/components/ui/cn";

/** Two buttons posting the `lang` cookie: works without JavaScript, each named in its own language. */
export function LanguageSwitch({ locale, className }: { locale: Locale; className?: string }) {
  return (
    <form
      action={setLanguageAction}
      className={cn("inline-flex rounded-lg border border-slate-300 bg-white p-0.5 text-xs", className)}
    >
      <span className="sr-only">{translate(locale, "lang.label")}</span>
      {LOCALES.map((l) => (
        <button
          key={l}
          type="submit"
          name="lang"
          value={l}
          lang={l}
          aria-pressed={l === locale}
          className={cn(
            "rounded-md px-2 py-1 font-semibold focus-visible:outline-2 focus-visible:outline-brand-700",
            l === locale ? "bg-slate-900 text-white" : "text-slate-700 hover:bg-slate-100",
          )}
        >
          <span aria-hidden="true">{l === "pt-BR" ? "PT" : "EN"}</span>
          <span className="sr-only">{translate(l, `lang.${l}`)}</span>
        </button>
      ))}
    </form>
  );
}
