import type { PayoutInterval } from "@/db/schema";
import { saoPauloDay, saoPauloDayStart } from "@/lib/day-range";
import { addDays } from "@/lib/pix/business-days";

// When a recipient's automatic payouts fall due (docs/api.md#automatic-payouts). Times are
// America/Sao_Paulo: each slot is one São Paulo calendar day, starting at its local midnight —
// every day (daily), one weekday (weekly), or one day of the month (monthly; a monthDay past the end
// of a shorter month is that month's last day). A slot can be paid from its start until the next
// slot starts, once; only slots starting at or after the schedule was set count, so setting a
// schedule never pays at once for a day already begun. Pure: the job (./auto-payouts.ts) and the
// views both go by these.

export const WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** What a schedule is, with its weekday as ISO 1 (Monday) … 7 (Sunday). */
export type PayoutSchedule = {
  interval: PayoutInterval;
  weekday: number | null;
  monthDay: number | null;
  minimumCentavos: number | null;
  since: Date;
};

/** ISO weekday (1 Monday … 7 Sunday) of a YYYY-MM-DD day. */
export function isoWeekday(day: string): number {
  const d = new Date(`${day}T00:00:00Z`).getUTCDay();
  return d === 0 ? 7 : d;
}

const pad = (n: number, w = 2) => String(n).padStart(w, "0");

/** Day `monthDay` of the month `offset` months from `day`'s, or that month's last day. */
function dayOfMonth(day: string, monthDay: number, offset: number): string {
  const [y, m] = day.split("-").map(Number);
  const index = y * 12 + (m - 1) + offset;
  const year = Math.floor(index / 12);
  const month = (index % 12) + 1;
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return `${pad(year, 4)}-${pad(month)}-${pad(Math.min(monthDay, last))}`;
}

/** The latest slot day on or before `day`. */
export function slotOnOrBefore(s: Pick<PayoutSchedule, "interval" | "weekday" | "monthDay">, day: string): string {
  if (s.interval === "daily") return day;
  if (s.interval === "weekly") return addDays(day, -((isoWeekday(day) - s.weekday! + 7) % 7));
  const thisMonth = dayOfMonth(day, s.monthDay!, 0);
  return thisMonth <= day ? thisMonth : dayOfMonth(day, s.monthDay!, -1);
}

/** The first slot day after `day`. */
export function slotAfter(s: Pick<PayoutSchedule, "interval" | "weekday" | "monthDay">, day: string): string {
  if (s.interval === "daily") return addDays(day, 1);
  if (s.interval === "weekly") return addDays(day, (s.weekday! - isoWeekday(day) + 7) % 7 || 7);
  const thisMonth = dayOfMonth(day, s.monthDay!, 0);
  return thisMonth > day ? thisMonth : dayOfMonth(day, s.monthDay!, 1);
}

/** The slot that may be paid at `at`: the latest one begun, unless it began before the schedule was set. */
export function dueSlot(s: PayoutSchedule, at: Date): string | null {
  const slot = slotOnOrBefore(s, saoPauloDay(at));
  return saoPauloDayStart(slot).getTime() >= s.since.getTime() ? slot : null;
}

/** The next slot to begin after `at` (and not before the schedule was set): what the views show. */
export function nextSlot(s: PayoutSchedule, at: Date): string {
  let slot = slotAfter(s, saoPauloDay(at));
  while (saoPauloDayStart(slot).getTime() < s.since.getTime()) slot = slotAfter(s, slot);
  return slot;
}

type ScheduleColumns = {
  payoutInterval: PayoutInterval | null;
  payoutWeekday: number | null;
  payoutMonthDay: number | null;
  payoutMinimumCentavos: number | null;
  payoutScheduleSince: Date | null;
};

/** A recipient row's schedule, or null when it has none. */
export function scheduleOf(r: ScheduleColumns): PayoutSchedule | null {
  if (!r.payoutInterval || !r.payoutScheduleSince) return null;
  return {
    interval: r.payoutInterval,
    weekday: r.payoutWeekday,
    monthDay: r.payoutMonthDay,
    minimumCentavos: r.payoutMinimumCentavos,
    since: r.payoutScheduleSince,
  };
}

/** The columns a schedule asked for is stored in (all null for none), set at `since`. */
export function scheduleColumns(
  s: { interval: PayoutInterval; weekday?: Weekday; monthDay?: number; minimumValue?: number } | null,
  since: Date,
): ScheduleColumns {
  if (!s)
    return {
      payoutInterval: null,
      payoutWeekday: null,
      payoutMonthDay: null,
      payoutMinimumCentavos: null,
      payoutScheduleSince: null,
    };
  return {
    payoutInterval: s.interval,
    payoutWeekday: s.weekday ? WEEKDAYS.indexOf(s.weekday) + 1 : null,
    payoutMonthDay: s.monthDay ?? null,
    payoutMinimumCentavos: s.minimumValue ?? null,
    payoutScheduleSince: since,
  };
}

/** Whether two stored schedules are the same (a PATCH sending the same one keeps its start). */
export function sameSchedule(a: ScheduleColumns, b: ScheduleColumns): boolean {
  return (
    a.payoutInterval === b.payoutInterval &&
    a.payoutWeekday === b.payoutWeekday &&
    a.payoutMonthDay === b.payoutMonthDay &&
    a.payoutMinimumCentavos === b.payoutMinimumCentavos
  );
}
