"use client";

import { cn } from "@/components/ui/cn";
import type { MessageKey } from "@/lib/i18n";
import { useI18n } from "@/lib/i18n/client";

// Small pieces the recipient pages share: a status pill (colour and word), a balance that reads red
// when a refund left it below zero, and the notice of a held PIX key.

const TONES = {
  ACTIVE: "bg-brand-50 text-brand-900 ring-brand-100",
  DISABLED: "bg-slate-100 text-slate-700 ring-slate-200",
  PENDING: "bg-amber-50 text-amber-800 ring-amber-200",
  CREDITED: "bg-brand-50 text-brand-900 ring-brand-100",
  COMPLETED: "bg-brand-50 text-brand-900 ring-brand-100",
  REFUNDED: "bg-violet-50 text-violet-800 ring-violet-200",
  CANCELLED: "bg-slate-100 text-slate-700 ring-slate-200",
  FAILED: "bg-red-50 text-red-800 ring-red-200",
} as const;

export function Pill({ status, label }: { status: string; label: MessageKey }) {
  const { t } = useI18n();
  return (
    <span
      data-status={status}
      className={cn(
        "inline-flex items-center whitespace-nowrap rounded-full px-2.5 py-0.5 text-xs font-semibold ring-1 ring-inset",
        TONES[status as keyof typeof TONES] ?? TONES.DISABLED,
      )}
    >
      {t(label)}
    </span>
  );
}

/** A BRL amount of a view (a number with 2 decimals), red below zero. */
export function Brl({ value, className }: { value: number; className?: string }) {
  const { money } = useI18n();
  return (
    <span className={cn("tabular-nums", value < 0 ? "text-red-700" : undefined, className)}>
      {money(Math.round(value * 100))}
    </span>
  );
}

export function KeyHeld({ until }: { until: string }) {
  const { t, dateTime } = useI18n();
  return (
    <span className="inline-flex items-center gap-1 text-xs font-medium text-amber-800" data-testid="key-held">
      <svg
        aria-hidden="true"
        viewBox="0 0 24 24"
        className="size-3.5"
        fill="none"
        stroke="currentColor"
        strokeWidth="2"
      >
        <circle cx="12" cy="12" r="9" />
        <path d="M12 7v5l3 2" />
      </svg>
      {t("recipients.keyHeld", { until: dateTime(until) })}
    </span>
  );
}
