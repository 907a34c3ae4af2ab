"use client";

import { useEffect, useState } from "react";
import { formatDuration } from "@/lib/i18n";
import { useI18n } from "@/lib/i18n/client";

/**
 * Time left until `expiresAt`, ticking each second. The visible clock is aria-hidden and a label
 * carries the meaning, so screen readers are not flooded with a change every second.
 */
export function Countdown({ expiresAt, onExpire }: { expiresAt: string; onExpire?: () => void }) {
  const { t } = useI18n();
  const target = new Date(expiresAt).getTime();
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const left = now === null ? null : Math.max(0, Math.round((target - now) / 1000));
  useEffect(() => {
    if (left === 0) onExpire?.();
  }, [left, onExpire]);
  if (left === null) return <span className="text-sm text-slate-600">{t("order.countdownLabel")}</span>;
  if (left === 0) return <span className="text-sm font-medium text-red-700">{t("order.expired")}</span>;
  return (
    <span
      className="inline-flex items-center gap-1.5 text-sm text-slate-700"
      role="timer"
      aria-label={t("order.expiresIn", { time: formatDuration(left) })}
    >
      <svg aria-hidden="true" viewBox="0 0 24 24" className="size-4" fill="none" stroke="currentColor" strokeWidth="2">
        <circle cx="12" cy="12" r="9" />
        <path d="M12 7v5l3 2" strokeLinecap="round" />
      </svg>
      <span aria-hidden="true">{t("order.expiresIn", { time: formatDuration(left) })}</span>
    </span>
  );
}
