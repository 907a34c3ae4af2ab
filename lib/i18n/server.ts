import { cookies } from "next/headers";
import { DEFAULT_LOCALE, isLocale, LANG_COOKIE, translator, type Locale, type Translator } from "./index";

/** The visitor's language: the `lang` cookie when it names a catalog, else pt-BR. */
export async function getLocale(): Promise<Locale> {
  const value = (await cookies()).get(LANG_COOKIE)?.value;
  return isLocale(value) ? value : DEFAULT_LOCALE;
}

export async function getI18n(): Promise<{ locale: Locale; t: Translator }> {
  const locale = await getLocale();
  return { locale, t: translator(locale) };
}
