"use client";

import { cn } from "@/components/ui/cn";
import type { MessageKey } from "@/lib/i18n";
import { useI18n } from "@/lib/i18n/client";

const TONES: Record<string, string> = {
  AWAITING_AUTHORISATION: "bg-amber-50 text-amber-800 ring-amber-200",
  ACTIVE: "bg-brand-50 text-brand-900 ring-brand-100",
  COMPLETED: "bg-sky-50 text-sky-800 ring-sky-200",
  CANCELLED: "bg-slate-100 text-slate-700 ring-slate-200",
  EXPIRED: "bg-slate-100 text-slate-700 ring-slate-200",
  REJECTED: "bg-red-50 text-red-800 ring-red-200",
  // Cycles
  CREATING: "bg-sky-50 text-sky-800 ring-sky-200",
  SCHEDULED: "bg-amber-50 text-amber-800 ring-amber-200",
  RETRYING: "bg-orange-50 text-orange-800 ring-orange-200",
  PAID: "bg-brand-50 text-brand-900 ring-brand-100",
  FAILED: "bg-red-50 text-red-800 ring-red-200",
};

const badge = "inline-flex items-center rounded-full px-2.5 py-0.5 text-xs font-semibold ring-1 ring-inset";

/** A subscription's status in a word and a colour (never colour alone). */
export function SubscriptionStatus({ status }: { status: string }) {
  const { t } = useI18n();
  return (
    <span
      data-status={status}
      data-testid="subscription-status"
      className={cn(badge, TONES[status] ?? TONES.CANCELLED)}
    >
      {t(`sub.status.${status}` as MessageKey)}
    </span>
  );
}

/** A cycle's status. */
export function CycleStatus({ status, immediate = false }: { status: string; immediate?: boolean }) {
  const { t } = useI18n();
  // Journey 3's payment at authorisation is not scheduled at a bank: it waits for the payer.
  const key = immediate && status === "SCHEDULED" ? "sub.cycleStatus.AWAITING_PAYER" : `sub.cycleStatus.${status}`;
  return (
    <span data-status={status} data-testid="cycle-status" className={cn(badge, TONES[status] ?? TONES.CANCELLED)}>
      {t(key as MessageKey)}
    </span>
  );
}
