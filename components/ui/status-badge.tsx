"use client";

import { displayStatus } from "@/lib/dashboard/status";
import { isMessageKey } from "@/lib/i18n";
import { useI18n } from "@/lib/i18n/client";
import { cn } from "./cn";

const TONES: Record<string, string> = {
  PENDING: "bg-amber-50 text-amber-800 ring-amber-200",
  PARTIAL_ORDER: "bg-sky-50 text-sky-800 ring-sky-200",
  COMPLETED: "bg-brand-50 text-brand-900 ring-brand-100",
  CANCELLED: "bg-slate-100 text-slate-700 ring-slate-200",
  EXPIRED: "bg-slate-100 text-slate-700 ring-slate-200",
  FAILED: "bg-red-50 text-red-800 ring-red-200",
  REFUND: "bg-violet-50 text-violet-800 ring-violet-200",
  REFUNDED: "bg-violet-50 text-violet-800 ring-violet-200",
};

/**
 * Status with a colour and a word (never colour alone). With the order's `kind`, an order closed by
 * its expiry reads "Expirado" (data-status keeps the API's status).
 */
export function StatusBadge({ status, kind, className }: { status: string; kind?: string; className?: string }) {
  const { t } = useI18n();
  const shown = displayStatus(kind, status);
  const key = `status.${shown}`;
  return (
    <span
      data-status={status}
      data-shown={shown}
      className={cn(
        "inline-flex items-center rounded-full px-2.5 py-0.5 text-xs font-semibold ring-1 ring-inset",
        TONES[shown] ?? TONES.CANCELLED,
        className,
      )}
    >
      {isMessageKey(key) ? t(key) : t("status.unknown")}
    </span>
  );
}
