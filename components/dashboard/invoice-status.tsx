"use client";

import { cn } from "@/components/ui/cn";
import type { MessageKey } from "@/lib/i18n";
import { useI18n } from "@/lib/i18n/client";

const TONES: Record<string, string> = {
  PROCESSING: "bg-sky-50 text-sky-800 ring-sky-200",
  OPEN: "bg-amber-50 text-amber-800 ring-amber-200",
  PAID: "bg-brand-50 text-brand-900 ring-brand-100",
  EXPIRED: "bg-slate-100 text-slate-700 ring-slate-200",
  CANCELLED: "bg-slate-100 text-slate-700 ring-slate-200",
  REFUSED: "bg-red-50 text-red-800 ring-red-200",
};

/** An invoice's status in a word and a colour (never colour alone); "Vencida" for an OPEN one past its due date. */
export function InvoiceStatus({ status, overdue = false }: { status: string; overdue?: boolean }) {
  const { t } = useI18n();
  const shown = status === "OPEN" && overdue ? "OVERDUE" : status;
  return (
    <span
      data-status={status}
      data-testid="invoice-status"
      className={cn(
        "inline-flex items-center rounded-full px-2.5 py-0.5 text-xs font-semibold ring-1 ring-inset",
        shown === "OVERDUE" ? "bg-red-50 text-red-800 ring-red-200" : (TONES[status] ?? TONES.CANCELLED),
      )}
    >
      {t(`invoice.status.${shown}` as MessageKey)}
    </span>
  );
}
