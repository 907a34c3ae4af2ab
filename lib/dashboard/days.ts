// Calendar-day arithmetic on "YYYY-MM-DD" strings (days already in Brazil's time), pure so the
// chart's 30 buckets are testable without a clock or a time zone.

export function addDays(day: string, delta: number): string {
  const [y, m, d] = day.split("-").map(Number);
  const at = new Date(Date.UTC(y, m - 1, d + delta));
  return at.toISOString().slice(0, 10);
}

/**
 * A real calendar day "YYYY-MM-DD" PostgreSQL's date accepts: no Feb 31 (which JavaScript rolls over
 * to March), no year 0 (there is none), four-digit years only.
 */
export function isCalendarDay(s: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s) || s.startsWith("0000")) return false;
  const at = Date.parse(`${s}T00:00:00Z`);
  return !Number.isNaN(at) && new Date(at).toISOString().slice(0, 10) === s;
}

/** The `count` days ending with `lastDay`, oldest first. */
export function lastDays(lastDay: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => addDays(lastDay, i - (count - 1)));
}

/** One bucket per day, zero where nothing was received. */
export function fillDays(days: string[], totals: Map<string, { centavos: number; count: number }>) {
  return days.map((day) => ({ day, centavos: totals.get(day)?.centavos ?? 0, count: totals.get(day)?.count ?? 0 }));
}
