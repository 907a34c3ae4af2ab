import type { AccountType } from "@/db/schema";

/** Withdrawal limits by account type, in centavos (docs/api.md#states-expiry-and-money). */
export const WITHDRAWAL_LIMITS: Record<AccountType, { perTransaction: number; daily: number }> = {
  standard: { perTransaction: 5_000_00, daily: 10_000_00 },
  verified: { perTransaction: 10_000_00, daily: 50_000_00 },
  business: { perTransaction: 25_000_00, daily: 100_000_00 },
};

export const LIMIT_TIME_ZONE = "America/Sao_Paulo";

/** The calendar day (YYYY-MM-DD) in São Paulo that a withdrawal made at `at` counts against. */
// en-CA formats as YYYY-MM-DD. Built once: constructing an Intl formatter costs more than a query.
const SAO_PAULO_DAY = new Intl.DateTimeFormat("en-CA", {
  timeZone: LIMIT_TIME_ZONE,
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
});

// Formatting a date in a time zone costs ~2% of CPU when every GET /account does it. São Paulo's
// offset is whole hours, so its midnight falls on a minute boundary: one answer per UTC minute.
let memo = { minute: Number.NaN, day: "" };

export function saoPauloDay(at: Date = new Date()): string {
  const minute = Math.floor(at.getTime() / 60_000);
  if (minute !== memo.minute) memo = { minute, day: SAO_PAULO_DAY.format(at) };
  return memo.day;
}
