import { sql, type SQL, type SQLWrapper } from "drizzle-orm";

// Dates a merchant picks are São Paulo calendar days (YYYY-MM-DD, inclusive). As a condition on a
// timestamptz column they become a half-open range of instants, which a (merchant_id, created_at)
// index can serve; converting the column to a local date instead would read every row.

/** Midnight starting a São Paulo day (`plusDays` later), as an instant. */
export const saoPauloMidnight = (day: string, plusDays = 0) =>
  sql`((${day}::date + ${plusDays}::int)::timestamp at time zone 'America/Sao_Paulo')`;

export function saoPauloDayRange(column: SQLWrapper, from?: string, to?: string): SQL | undefined {
  const parts = [
    from ? sql`${column} >= ${saoPauloMidnight(from)}` : undefined,
    to ? sql`${column} < ${saoPauloMidnight(to, 1)}` : undefined,
  ].filter((p) => p !== undefined);
  return parts.length ? sql.join(parts, sql` and `) : undefined;
}

/** A real calendar day written YYYY-MM-DD (no 2026-02-30, which PostgreSQL would refuse), from 1970 to 9999. */
export function isCalendarDay(s: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  const t = Date.parse(`${s}T00:00:00Z`);
  return Number.isFinite(t) && t >= 0 && new Date(t).toISOString().slice(0, 10) === s;
}

const SAO_PAULO = "America/Sao_Paulo";
const dayFormat = new Intl.DateTimeFormat("en-CA", { timeZone: SAO_PAULO });
const offsetFormat = new Intl.DateTimeFormat("en-US", { timeZone: SAO_PAULO, timeZoneName: "longOffset" });

/** The São Paulo calendar day (YYYY-MM-DD) an instant falls on. */
export function saoPauloDay(at: Date = new Date()): string {
  return dayFormat.format(at);
}

/** Minutes São Paulo is ahead of UTC at an instant (−180 today). */
function offsetMinutes(at: Date): number {
  const name = offsetFormat.formatToParts(at).find((p) => p.type === "timeZoneName")?.value ?? "GMT";
  const m = /^GMT([+-])(\d{2}):(\d{2})$/.exec(name);
  return m ? (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
}

/** The instant a São Paulo calendar day starts (`plusDays` later), as saoPauloMidnight says it in SQL. */
export function saoPauloDayStart(day: string, plusDays = 0): Date {
  const utcMidnight = Date.parse(`${day}T00:00:00Z`) + plusDays * 86_400_000;
  // The offset at that local midnight: read at the UTC instant it would be, then once more at the corrected one.
  const first = utcMidnight - offsetMinutes(new Date(utcMidnight)) * 60_000;
  return new Date(utcMidnight - offsetMinutes(new Date(first)) * 60_000);
}
