// Calendar days (YYYY-MM-DD) and the business days a charge with a due date counts by
// (docs/api.md#invoices): Monday to Friday, except Brazil's national holidays and the days the
// national financial calendar closes (Carnival Monday and Tuesday, Good Friday, Corpus Christi).
// A payer's local holidays (their municipality's, which the payer's PSP may also apply) are not
// known here. Pure: days are strings, and arithmetic is on day numbers since 1970-01-01 (UTC), so
// no time zone or daylight saving time can move a day.

export type Day = string;

const DAY_MS = 86_400_000;

/** The day number (days since 1970-01-01) of a YYYY-MM-DD day. */
export function dayNumber(day: Day): number {
  return Math.floor(Date.parse(`${day}T00:00:00Z`) / DAY_MS);
}

/** The YYYY-MM-DD day of a day number. */
export function dayOf(n: number): Day {
  return new Date(n * DAY_MS).toISOString().slice(0, 10);
}

export const addDays = (day: Day, days: number): Day => dayOf(dayNumber(day) + days);

/** Calendar days from `from` to `to` (negative when `to` is earlier). */
export const daysBetween = (from: Day, to: Day): number => dayNumber(to) - dayNumber(from);

/** Easter Sunday of a Gregorian year (the anonymous Gregorian algorithm, as a day number). */
export function easterSunday(year: number): number {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const dayOfMonth = ((h + l - 7 * m + 114) % 31) + 1;
  return Math.floor(Date.UTC(year, month - 1, dayOfMonth) / DAY_MS);
}

const FIXED = ["01-01", "04-21", "05-01", "09-07", "10-12", "11-02", "11-15", "12-25"];
// The Dia Nacional de Zumbi e da Consciência Negra is a national holiday from 2024 on.
const BLACK_CONSCIOUSNESS_FROM = 2024;

const holidayCache = new Map<number, Set<number>>();

/** The national holidays and closed days of a year, as day numbers. */
function holidaysOf(year: number): Set<number> {
  let set = holidayCache.get(year);
  if (!set) {
    const easter = easterSunday(year);
    set = new Set([
      ...FIXED.map((md) => dayNumber(`${year}-${md}`)),
      ...(year >= BLACK_CONSCIOUSNESS_FROM ? [dayNumber(`${year}-11-20`)] : []),
      easter - 48, // Carnival Monday
      easter - 47, // Carnival Tuesday
      easter - 2, // Good Friday
      easter + 60, // Corpus Christi
    ]);
    holidayCache.set(year, set);
  }
  return set;
}

export function isBusinessDay(day: Day): boolean {
  const n = dayNumber(day);
  const weekday = new Date(n * DAY_MS).getUTCDay();
  if (weekday === 0 || weekday === 6) return false;
  return !holidaysOf(Number(day.slice(0, 4))).has(n);
}

/** `day` itself when it is a business day, else the first business day after it. */
export function businessDayOnOrAfter(day: Day): Day {
  let d = day;
  while (!isBusinessDay(d)) d = addDays(d, 1);
  return d;
}

/** Business days in (from, to]: after `from`, up to and including `to`; 0 when `to` is not after `from`. */
export function businessDaysAfter(from: Day, to: Day): number {
  let count = 0;
  for (let n = dayNumber(from) + 1, end = dayNumber(to); n <= end; n++) if (isBusinessDay(dayOf(n))) count++;
  return count;
}
