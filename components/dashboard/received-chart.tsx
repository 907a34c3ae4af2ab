"use client";

import { formatDay } from "@/lib/i18n";
import { useI18n } from "@/lib/i18n/client";

type Day = { day: string; centavos: number; count: number };

/**
 * Thirty CSS bars, one per day. Screen readers get a one-line summary and the full figures as a
 * table; sighted users get a bar chart with each day's figure in its tooltip.
 */
export function ReceivedChart({ days }: { days: Day[] }) {
  const { t, money, locale } = useI18n();
  const max = Math.max(0, ...days.map((d) => d.centavos));
  const total = days.reduce((s, d) => s + d.centavos, 0);
  const labelled = [0, Math.floor(days.length / 2), days.length - 1];
  return (
    <figure aria-labelledby="chart-title">
      <figcaption id="chart-title" className="text-base font-semibold text-slate-900">
        {t("overview.chartTitle")}
      </figcaption>
      <p className="mt-1 text-sm text-slate-600">
        {max === 0 ? t("overview.chartEmpty") : t("overview.chartSummary", { total: money(total), max: money(max) })}
      </p>
      <div aria-hidden="true" className="mt-4">
        <div className="flex h-40 items-end gap-[3px] border-b border-slate-300">
          {days.map((d) => (
            <div
              key={d.day}
              title={`${formatDay(d.day, locale)}: ${money(d.centavos)}`}
              className="flex-1 rounded-t-sm bg-brand-500 hover:bg-brand-700"
              style={{ height: max > 0 ? `${Math.max(d.centavos > 0 ? 3 : 0, (d.centavos / max) * 100)}%` : "0%" }}
            />
          ))}
        </div>
        <div className="relative mt-1 h-4 text-xs text-slate-600">
          {labelled.map((i) => (
            <span
              key={i}
              className="absolute"
              style={
                i === 0
                  ? { left: 0 }
                  : i === days.length - 1
                    ? { right: 0 }
                    : { left: "50%", transform: "translateX(-50%)" }
              }
            >
              {days[i] ? formatDay(days[i].day, locale) : ""}
            </span>
          ))}
        </div>
      </div>
      <table className="sr-only">
        <caption>{t("overview.chartTitle")}</caption>
        <thead>
          <tr>
            <th scope="col">{t("overview.chartDay")}</th>
            <th scope="col">{t("overview.chartAmount")}</th>
          </tr>
        </thead>
        <tbody>
          {days.map((d) => (
            <tr key={d.day}>
              <td>{formatDay(d.day, locale)}</td>
              <td>{money(d.centavos)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
