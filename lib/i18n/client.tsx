"use client";

import { createContext, useContext, useMemo } from "react";
import {
  DEFAULT_LOCALE,
  formatCrypto,
  formatDateTime,
  formatMoney,
  translateMaybe,
  translatePlural,
  translator,
  type Locale,
  type PluralKey,
  type Translator,
  type Vars,
} from "./index";

type I18n = {
  locale: Locale;
  t: Translator;
  /** A message in the plural form `count` needs ("1 hora", "24 horas"). */
  tp: (base: PluralKey, count: number, vars?: Vars) => string;
  money: (centavos: number) => string;
  dateTime: (at: string | Date) => string;
  crypto: (amount: string | number) => string;
  message: (keyOrText: string) => string;
};

function make(locale: Locale): I18n {
  return {
    locale,
    t: translator(locale),
    tp: (base, count, vars) => translatePlural(locale, base, count, vars),
    money: (c) => formatMoney(c, locale),
    dateTime: (at) => formatDateTime(at, locale),
    crypto: (a) => formatCrypto(a, locale),
    message: (m) => translateMaybe(locale, m),
  };
}

const I18nContext = createContext<I18n>(make(DEFAULT_LOCALE));

/** The root layout reads the `lang` cookie and hands the locale down to client components. */
export function I18nProvider({ locale, children }: { locale: Locale; children: React.ReactNode }) {
  const value = useMemo(() => make(locale), [locale]);
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

export function useI18n(): I18n {
  return useContext(I18nContext);
}
