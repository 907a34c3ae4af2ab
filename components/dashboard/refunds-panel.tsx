"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useActionState, useEffect, useState } from "react";
import { StepUpField } from "@/components/security/step-up";
import { Button } from "@/components/ui/button";
import { Card, CardTitle, DefinitionList } from "@/components/ui/card";
import { FormMessage, Input } from "@/components/ui/field";
import { StatusBadge } from "@/components/ui/status-badge";
import { SubmitButton } from "@/components/ui/submit-button";
import { refundOrderAction } from "@/lib/dashboard/actions/refunds";
import type { OrderDetail } from "@/lib/dashboard/order-views";
import { idle, type ActionState } from "@/lib/forms/action-state";
import { parseDecimalInput } from "@/lib/forms/form";
import { useI18n } from "@/lib/i18n/client";
import { brlNumberToCentavos } from "@/lib/money";
import { FailureReason } from "./failure-reason";

type Answer = ActionState<{ id: string; status: "PENDING" | "COMPLETED" | "FAILED" }>;
type Review = { value: string; centavos: number; reason: string };

/**
 * The server's answer on the confirm step, where the fields are hidden: every message it carries
 * but the step-up code's, which its own field shows.
 */
function confirmError(state: Answer): string | undefined {
  if (state.status !== "error") return undefined;
  const fields = Object.entries(state.fieldErrors ?? {})
    .filter(([field]) => field !== "otp")
    .flatMap(([, messages]) => messages);
  return fields.length > 0 ? fields.join(" ") : state.error;
}

/**
 * The refund form, in two steps: the amount (typed, never prefilled: a refund of everything must be
 * asked for) and reason, then a confirmation that names both and takes the step-up code. Only the
 * confirmation posts; the service decides again under the order's and the merchant's row locks.
 */
function RefundForm({
  orderId,
  leftCentavos,
  totalCentavos,
  sandbox,
}: {
  orderId: string;
  leftCentavos: number;
  totalCentavos: number;
  sandbox: boolean;
}) {
  const { t, money } = useI18n();
  const client = useQueryClient();
  const [state, action] = useActionState<Answer, FormData>(refundOrderAction, idle);
  const [value, setValue] = useState("");
  const [reason, setReason] = useState("");
  const [valueErrors, setValueErrors] = useState<string[] | undefined>();
  const [review, setReview] = useState<Review | null>(null);
  const doneAt = state.status === "success" ? state.at : 0;
  useEffect(() => {
    if (doneAt === 0) return;
    setReview(null);
    setValue("");
    setReason("");
    void client.invalidateQueries({ queryKey: ["dashboard"] });
  }, [doneAt, client]);

  function onReview(e: React.FormEvent) {
    e.preventDefault();
    const centavos = brlNumberToCentavos(parseDecimalInput(value));
    if (centavos === null || centavos <= 0) return setValueErrors(["errors.amount"]);
    if (centavos > leftCentavos)
      return setValueErrors([
        t("errors.api.refundExceeds", { left: money(leftCentavos), total: money(totalCentavos) }),
      ]);
    setValueErrors(undefined);
    setReview({ value, centavos, reason: reason.trim() });
  }

  if (review) {
    return (
      <form action={action} className="space-y-4" data-testid="refund-confirm">
        <h3 className="text-base font-semibold text-slate-900">{t("refunds.confirmTitle")}</h3>
        <input type="hidden" name="id" value={orderId} />
        <input type="hidden" name="value" value={review.value} />
        <input type="hidden" name="reason" value={review.reason} />
        <DefinitionList
          items={[
            {
              label: t("refunds.amount"),
              value: <strong data-testid="refund-confirm-amount">{money(review.centavos)}</strong>,
            },
            {
              label: t("refunds.reason"),
              value: <span data-testid="refund-confirm-reason">{review.reason || t("refunds.noReason")}</span>,
            },
            { label: t("refunds.leftAfter"), value: money(leftCentavos - review.centavos) },
          ]}
        />
        <p className="text-sm text-slate-700">{t("refunds.confirmHint")}</p>
        <StepUpField errors={state.status === "error" ? state.fieldErrors?.otp : undefined} />
        <FormMessage error={confirmError(state)} />
        <div className="flex flex-wrap gap-2">
          <SubmitButton pendingLabel={t("refunds.submitting")}>
            {t("refunds.confirm", { amount: money(review.centavos) })}
          </SubmitButton>
          <Button type="button" variant="secondary" onClick={() => setReview(null)}>
            {t("common.back")}
          </Button>
        </div>
      </form>
    );
  }

  const failed = state.status === "success" && state.data.status === "FAILED";
  return (
    <form onSubmit={onReview} className="space-y-3" data-testid="refund-form" noValidate>
      <Input
        label={t("refunds.value")}
        name="value"
        inputMode="decimal"
        required
        value={value}
        onChange={(e) => {
          setValue(e.target.value);
          setValueErrors(undefined);
        }}
        hint={t("refunds.valueHint", { left: money(leftCentavos) })}
        errors={valueErrors}
      />
      <Input
        label={t("refunds.reason")}
        name="reason"
        optional
        maxLength={140}
        value={reason}
        onChange={(e) => setReason(e.target.value)}
        hint={sandbox ? `${t("refunds.reasonHint")} ${t("refunds.sandboxHint")}` : t("refunds.reasonHint")}
      />
      <FormMessage
        error={failed ? state.message : undefined}
        success={state.status === "success" && !failed ? state.message : undefined}
      />
      <Button type="submit" variant="secondary">
        {t("refunds.review")}
      </Button>
    </form>
  );
}

/** A PIX or exchange-wallet order's refunds, and the form while something is left to refund. */
export function RefundsPanel({
  order,
}: {
  order: Pick<OrderDetail, "id" | "valueCentavos" | "refunds" | "refundable">;
}) {
  const { t, money, dateTime } = useI18n();
  return (
    <Card aria-labelledby="refunds-title">
      <CardTitle id="refunds-title">{t("refunds.title")}</CardTitle>
      {order.refunds.length === 0 ? (
        <p className="mt-2 text-sm text-slate-600">{t("refunds.empty")}</p>
      ) : (
        <ul className="mt-3 divide-y divide-slate-100">
          {order.refunds.map((r) => (
            <li
              key={r.id}
              className="flex flex-wrap items-start justify-between gap-2 py-2 text-sm"
              data-testid="refund"
            >
              <span className="min-w-0">
                <span className="block font-medium tabular-nums text-slate-900">{money(r.valueCentavos)}</span>
                {r.reason ? <span className="block break-words text-xs text-slate-600">{r.reason}</span> : null}
                {r.status === "FAILED" && r.failureReason ? (
                  <FailureReason
                    reason={r.failureReason}
                    frame="refunds.failureReason"
                    className="text-xs text-red-800"
                  />
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
          <p className="mb-3 text-sm font-medium text-slate-800">
            {t("refunds.left", { left: money(order.refundable.leftCentavos) })}
          </p>
          <RefundForm
            orderId={order.id}
            leftCentavos={order.refundable.leftCentavos}
            totalCentavos={order.valueCentavos}
            sandbox={order.refundable.sandbox}
          />
        </div>
      ) : null}
    </Card>
  );
}
