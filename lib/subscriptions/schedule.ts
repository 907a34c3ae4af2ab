import type { Periodicity } from "@/lib/providers/recurring/types";
import { addDays } from "@/lib/pix/business-days";

// When each cycle falls due, and when its charge may be sent. Cycle n (1, 2, …) falls due n − 1
// periods after the first date, counted from the first date each time, so a monthly subscription
// begun on the 31st falls due on the last day of shorter months and on the 31st again after them.
// The Central Bank's Pix Automático rules (Resolução BCB 402/2024, art. on "agendamento") have the
// recipient send each cycle's charge from 10 to 2 days before its due date: SEND_WINDOW.

export const SEND_WINDOW = { earliestDaysBefore: 10, latestDaysBefore: 2 } as const;
/** PERMITE_3R_7D: at most 3 retries, settling within 7 calendar days after the due date. */
export const RETRY_LIMIT = { attempts: 3, daysAfterDue: 7 } as const;

const MONTHS: Record<Exclude<Periodicity, "SEMANAL">, number> = { MENSAL: 1, TRIMESTRAL: 3, SEMESTRAL: 6, ANUAL: 12 };

function addMonths(day: string, months: number): string {
  const [y, m, d] = day.split("-").map(Number);
  const index = y * 12 + (m - 1) + months;
  const year = Math.floor(index / 12);
  const month = (index % 12) + 1;
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(Math.min(d, last)).padStart(2, "0")}`;
}

/** Cycle `n`'s due date (n ≥ 1). */
export function dueDateOf(firstDate: string, periodicity: Periodicity, n: number): string {
  if (periodicity === "SEMANAL") return addDays(firstDate, 7 * (n - 1));
  return addMonths(firstDate, MONTHS[periodicity] * (n - 1));
}

/** The days a cycle due on `dueDate` may be sent on: [opens, closes]. */
export function sendWindow(dueDate: string): { opens: string; closes: string } {
  return {
    opens: addDays(dueDate, -SEND_WINDOW.earliestDaysBefore),
    closes: addDays(dueDate, -SEND_WINDOW.latestDaysBefore),
  };
}
