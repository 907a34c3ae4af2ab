"use client";

import { cn } from "@/components/ui/cn";
import type { MessageKey } from "@/lib/i18n";
import { useI18n } from "@/lib/i18n/client";
import { describeFailure } from "@/lib/i18n/failure-reasons";

/**
 * A stored failure reason as the merchant's sentence (lib/i18n/failure-reasons.ts), inside the page's
 * own frame ("Motivo: {reason}"). The provider's text stays on the element as data, and is shown
 * under the sentence, marked as data, when the table does not know it.
 */
export function FailureReason({
  reason,
  frame,
  unknown,
  className,
}: {
  reason: string;
  frame: MessageKey;
  unknown?: MessageKey;
  className?: string;
}) {
  const { t } = useI18n();
  const f = describeFailure(t, reason, unknown);
  return (
    <span
      className={cn("block break-words", className)}
      data-testid="failure-reason"
      data-failure-code={f.code}
      data-raw={f.raw}
    >
      {t(frame, { reason: f.text })}
      {f.code === "unknown" ? (
        <span className="block text-slate-600">
          {t("failure.raw")}:{" "}
          <span translate="no" className="font-mono">
            {f.raw}
          </span>
        </span>
      ) : null}
    </span>
  );
}
