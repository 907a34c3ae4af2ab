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
