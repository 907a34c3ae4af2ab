"use client";

import { useI18n } from "@/lib/i18n/client";
import type { DestinationPeek } from "@/lib/withdrawals/peek";

// What a review step says, before it asks for the code, about a destination that is new or still
// held: that the request will be recorded with its money reserved and wait for an owner's
// confirmation or the hold's end, and that it can be cancelled meanwhile (lib/withdrawals/peek.ts).

export function DestinationNotice({ peek }: { peek: DestinationPeek }) {
  const { t, dateTime } = useI18n();
  const until = peek.until ? dateTime(peek.until) : "";
  const text =
    peek.state === "new"
      ? peek.until
        ? t("withdrawals.reviewDestinationNew", { until })
        : t("withdrawals.reviewDestinationNewNoHold")
      : peek.state === "held"
        ? t("withdrawals.reviewDestinationHeld", { until })
        : peek.state === "payoutKeyHeld"
          ? t("withdrawals.payoutHeld", { until })
          : null;
  if (!text) return null;
  return (
    <p
      role="status"
      className="rounded-lg border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900"
      data-testid="destination-notice"
      data-state={peek.state}
    >
      {text}
    </p>
  );
}
