"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useActionState, useEffect, useRef } from "react";
import { FormMessage } from "@/components/ui/field";
import { SubmitButton } from "@/components/ui/submit-button";
import { idle, type ActionState } from "@/lib/forms/action-state";
import { simulatePaymentAction } from "@/lib/dashboard/actions/orders";
import { useI18n } from "@/lib/i18n/client";

/** Sandbox only: pays the order through the same services a real payment would. */
export function SimulatePayment({
  orderId,
  compact = false,
  onDone,
}: {
  orderId: string;
  compact?: boolean;
  onDone?: () => void;
}) {
  const { t } = useI18n();
  const client = useQueryClient();
  const [state, action] = useActionState<ActionState<{ id: string }>, FormData>(simulatePaymentAction, idle);
  const onDoneRef = useRef(onDone);
  onDoneRef.current = onDone;
  const doneAt = state.status === "success" ? state.at : 0;
  // Once per successful answer (`at` is new each time), not on every re-render.
  useEffect(() => {
    if (doneAt === 0) return;
    void client.invalidateQueries({ queryKey: ["dashboard"] });
    onDoneRef.current?.();
  }, [doneAt, client]);
  return (
    <form action={action} className="space-y-2">
      <input type="hidden" name="id" value={orderId} />
      <SubmitButton variant="secondary" pendingLabel={t("order.simulating")}>
        {t("order.simulate")}
      </SubmitButton>
      {compact ? null : <p className="text-xs text-slate-600">{t("order.simulateHint")}</p>}
      <FormMessage
        error={state.status === "error" ? (state.error ?? state.fieldErrors?.id?.[0]) : undefined}
        success={state.status === "success" ? state.message : undefined}
      />
    </form>
  );
}
