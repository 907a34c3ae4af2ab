"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useActionState, useEffect, useState } from "react";
import { Card, CardTitle } from "@/components/ui/card";
import { FormMessage, Input } from "@/components/ui/field";
import { StatusBadge } from "@/components/ui/status-badge";
import { SubmitButton } from "@/components/ui/submit-button";
import { refundOrderAction } from "@/lib/dashboard/actions/refunds";
import type { OrderDetail } from "@/lib/dashboard/server/order-detail";
import { idle, type ActionState } from "@/lib/forms/action-state";
import type { Locale } from "@/lib/i18n";
import { useI18n } from "@/lib/i18n/client";

type Answer = ActionState<{ id: string; status: "PENDING" | "COMPLETED" | "FAILED" }>;

/** Centavos as a person types them in this locale ("20,50" in pt-BR), for the amount's default. */
const typed = (centavos: number, locale: Locale) => {
  const plain = (centavos / 100).toFixed(2);
  return locale === "pt-BR" ? plain.replace(".", ",") : plain;
};

/** The refund form (CONTRACT §11): the amount defaults to what is left; the service decides again. */
function RefundForm({ orderId, leftCentavos, sandbox }: { orderId: string; leftCentavos: number; sandbox: boolean }) {
  const { t, money, locale } = useI18n();
  const client = useQueryClient();
  const [state, action] = useActionState<Answer, FormData>(refundOrderAction, idle);
  const [value, setValue] = useState(() => typed(leftCentavos, locale));
  const [reason, setReason] = useState("");
  const doneAt = state.status === "success" ? state.at : 0;
  useEffect(() => {
    if (doneAt === 0) return;
    setReason("");
    void client.invalidateQueries({ queryKey: ["dashboard"] });
  }, [doneAt, client]);
  // What is left changes after a refund (or one that failed): the default follows it.
  useEffect(() => setValue(typed(leftCentavos, locale)), [leftCentavos, locale]);

  const failed = state.status === "success" && state.data.status === "FAILED";
  const errors = state.status === "error" ? state.fieldErrors : undefined;
  return (
    <form action={action} className="space-y-3" data-testid="refund-form">
      <input type="hidden" name="id" value={orderId} />
      <Input
        label={t("refunds.value")}
        name="value"
        inputMode="decimal"
        required
        value={value}
        onChange={(e) => setValue(e.target.value)}
        hint={t("refunds.valueHint", { left: money(leftCentavos) })}
        errors={errors?.value}
      />
      <Input
        label={t("refunds.reason")}
        name="reason"
        optional
        maxLength={140}
        value={reason}
        onChange={(e) => setReason(e.target.value)}
        hint={sandbox ? `${t("refunds.reasonHint")} ${t("refunds.sandboxHint")}` : t("refunds.reasonHint")}
        errors={errors?.reason}
      />
      <FormMessage
        error={state.status === "error" ? (state.error ?? errors?.id?.[0]) : failed ? state.message : undefined}
        success={state.status === "success" && !failed ? state.message : undefined}
      />
      <SubmitButton variant="secondary" pendingLabel={t("refunds.submitting")}>
        {t("refunds.submit")}
      </SubmitButton>
    </form>
  );
}

/** A PIX or exchange-wallet order's refunds, and the form while something is left to refund. */
export function RefundsPanel({ order }: { order: Pick<OrderDetail, "id" | "refunds" | "refundable"> }) {
  const { t, money, dateTime } = useI18n();
  return (
    <Card aria-labelledby="refunds-title">
      <CardTitle id="refunds-title">{t("refunds.title")}</CardTitle>
      {order.refunds.length === 0 ? (
        <p className="mt-2 text-sm text-slate-600">{t("refunds.empty")}</p>
      ) : (
        <ul className="mt-3 divide-y divide-slate-100">
          {order.refunds.map((r) => (
            <li key={r.id} className="flex flex-wrap items-start justify-between gap-2 py-2 text-sm" data-testid="refund">
              <span className="min-w-0">
                <span className="block font-medium tabular-nums text-slate-900">{money(r.valueCentavos)}</span>
                {r.reason ? <span className="block break-words text-xs text-slate-600">{r.reason}</span> : null}
                {r.status === "FAILED" && r.failureReason ? (
                  <span className="block break-words text-xs text-red-800">{t("refunds.failureReason", { reason: r.failureReason })}</span>
                ) : null}
              </span>
              <span className="text-right text-xs">
                <StatusBadge status={r.status} />
                <span className="mt-1 block text-slate-600">{dateTime(r.createdAt)}</span>
              </span>
            </li>
          ))}
        </ul>
      )}
      {order.refundable ? (
        <div className="mt-4 border-t border-slate-100 pt-4">
          <p className="mb-3 text-sm font-medium text-slate-800">{t("refunds.left", { left: money(order.refundable.leftCentavos) })}</p>
          <RefundForm orderId={order.id} leftCentavos={order.refundable.leftCentavos} sandbox={order.refundable.sandbox} />
        </div>
      ) : null}
    </Card>
  );
}
