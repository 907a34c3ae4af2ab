import { en } from "./en";
import { ptBR, type MessageKey } from "./pt-BR";

// Pure and importable from server and client code alike: catalogs, translate(), and the locale's
// way of writing money, dates and crypto amounts. The locale itself comes from the `lang` cookie
// (server.ts) or the provider (client.tsx).

export type { MessageKey };
export const LOCALES = ["pt-BR", "en"] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = "pt-BR";
export const LANG_COOKIE = "lang";
/** Dates are shown in Brazil's time, the same calendar the daily limits count in. */
export const DISPLAY_TIME_ZONE = "America/Sao_Paulo";

export const catalogs: Record<Locale, Record<MessageKey, string>> = { "pt-BR": ptBR, en };

export function isLocale(value: unknown): value is Locale {
  return typeof value === "string" && (LOCALES as readonly string[]).includes(value);
}

export function isMessageKey(value: string): value is MessageKey {
  return Object.prototype.hasOwnProperty.call(ptBR, value);
}

export type Vars = Record<string, string | number>;

export function translate(locale: Locale, key: MessageKey, vars?: Vars): string {
  const template = catalogs[locale][key] ?? ptBR[key];
  if (!vars) return template;
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in vars ? String(vars[name]) : whole));
}

export type Translator = (key: MessageKey, vars?: Vars) => string;

/** Keys that come in plural forms: `base.one`, `base.other` (and any other CLDR category a language needs). */
export type PluralKey = MessageKey extends infer K ? (K extends `${infer B}.other` ? B : never) : never;

/**
 * The plural category for `count`. CLDR's Portuguese rule puts 0 in "one" (i = 0..1), but Brazilian
 * usage, and every bank and wallet app merchants read, writes zero with the plural: "0 pagamentos",
 * "nenhum"... never "0 pagamento".
 */
function pluralCategory(locale: Locale, count: number): Intl.LDMLPluralRule {
  if (count === 0) return "other";
  return new Intl.PluralRules(locale).select(count);
}

/** "1 hora", "24 horas", "0 pagamentos": the form the locale's plural rules pick for `count`, which fills `{count}`. */
export function translatePlural(locale: Locale, base: PluralKey, count: number, vars?: Vars): string {
  const form = `${base}.${pluralCategory(locale, count)}`;
  return translate(locale, isMessageKey(form) ? form : (`${base}.other` as MessageKey), { count, ...vars });
}

const SPANS = { minutes: "span.minutes", hours: "span.hours", days: "span.days" } as const;

/** `minutes`, `hours` and `days` given as numbers, written as words in the locale's plural ("1 hora", "24 horas"). */
export function withSpans(locale: Locale, vars: Vars): Vars {
  const out: Vars = { ...vars };
  for (const [name, base] of Object.entries(SPANS)) {
    const n = vars[name];
    if (typeof n === "number") out[name] = translatePlural(locale, base, n);
  }
  return out;
}

export function translator(locale: Locale): Translator {
  return (key, vars) => translate(locale, key, vars);
}

/** Messages may be catalog keys (our own schemas use them) or plain text (service errors): show either. */
export function translateMaybe(locale: Locale, message: string): string {
  return isMessageKey(message) ? translate(locale, message) : message;
}

/** "R$ 1.234,56" in pt-BR, "R$1,234.56" in English. */
export function formatMoney(centavos: number, locale: Locale): string {
  return new Intl.NumberFormat(locale, { style: "currency", currency: "BRL" }).format(centavos / 100);
}

/** A BRL price per unit, with as many decimals as it has (R$ 550.000,00; R$ 5,4321). */
export function formatRate(rate: string | number, locale: Locale): string {
  return new Intl.NumberFormat(locale, {
    style: "currency",
    currency: "BRL",
    minimumFractionDigits: 2,
    maximumFractionDigits: 8,
  }).format(Number(rate));
}

/** A length of time in words for notes ("24 h", "15 min", "1 h 30 min"). */
export function formatSpan(totalSeconds: number): string {
  const h = Math.floor(totalSeconds / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const s = totalSeconds % 60;
  return [h ? `${h} h` : "", m ? `${m} min` : "", s || (!h && !m) ? `${s} s` : ""].filter(Boolean).join(" ");
}

export function formatDateTime(at: string | Date, locale: Locale): string {
  return new Intl.DateTimeFormat(locale, {
    dateStyle: "short",
    timeStyle: "short",
    timeZone: DISPLAY_TIME_ZONE,
  }).format(new Date(at));
}

/** A calendar day "YYYY-MM-DD" (already in Brazil's time) as a short day and month. */
export function formatDay(day: string, locale: Locale): string {
  const [y, m, d] = day.split("-").map(Number);
  return new Intl.DateTimeFormat(locale, { day: "2-digit", month: "2-digit", timeZone: "UTC" }).format(
    new Date(Date.UTC(y, m - 1, d)),
  );
}

/** A calendar day "YYYY-MM-DD" as the locale writes a full date (10/03/2026, 03/10/2026). */
export function formatFullDay(day: string, locale: Locale): string {
  const [y, m, d] = day.split("-").map(Number);
  return new Intl.DateTimeFormat(locale, { day: "2-digit", month: "2-digit", year: "numeric", timeZone: "UTC" }).format(
    new Date(Date.UTC(y, m - 1, d)),
  );
}

/** Crypto amounts arrive as exact decimal strings or numbers; grouping follows the locale, no rounding. */
export function formatCrypto(amount: string | number, locale: Locale): string {
  const s = typeof amount === "number" ? amount.toString() : amount;
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(s);
  if (!m) return s;
  const [, sign, int, frac] = m;
  const grouped = new Intl.NumberFormat(locale, { maximumFractionDigits: 0 }).format(BigInt(int));
  const trimmed = frac?.replace(/0+$/, "");
  const decimal = locale === "en" ? "." : ",";
  return `${sign}${grouped}${trimmed ? decimal + trimmed : ""}`;
}

export function formatInteger(n: number, locale: Locale): string {
  return new Intl.NumberFormat(locale, { maximumFractionDigits: 0 }).format(n);
}

/** Seconds left as "m:ss" or "h:mm:ss" (countdowns). */
export function formatDuration(totalSeconds: number): string {
  const s = Math.max(0, Math.floor(totalSeconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}
