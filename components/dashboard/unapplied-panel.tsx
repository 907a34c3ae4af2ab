"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useActionState, useEffect, useState } from "react";
import { StepUpField } from "@/components/security/step-up";
import { Button } from "@/components/ui/button";
import { Card, CardTitle, DefinitionList } from "@/components/ui/card";
import { FormMessage, Input } from "@/components/ui/field";
import { SubmitButton } from "@/components/ui/submit-button";
import {
  acceptUnappliedAction,
  cancelUnappliedReturnAction,
  previewUnappliedReturnAction,
  returnUnappliedAction,
  type ReturnReview,
} from "@/lib/dashboard/actions/unapplied";
import { DestinationNotice } from "./destination-notice";
import type { UnappliedLine } from "@/lib/dashboard/order-views";
import { idle, type ActionState } from "@/lib/forms/action-state";
import { formatRate } from "@/lib/i18n";
import { useI18n } from "@/lib/i18n/client";

// An on-chain order's unapplied funds, one transfer per line, and what the merchant may do with each
// (docs/dashboard.md#unapplied-on-chain-funds): accept it as payment, or return it. Each goes through a
// review that says what will happen, and only the review's button posts, with the step-up code; the
// service decides again under the order's lock, and the database refuses a second resolution.

type Done = ActionState<{ id: string }>;
type Mode = "idle" | "accept" | "return";

/** The server's refusal on a review step: every message but the step-up code's, which its own field shows. */
function refusal(state: ActionState<unknown>): string | undefined {
  if (state.status !== "error") return undefined;
  const fields = Object.entries(state.fieldErrors ?? {})
    .filter(([field]) => field !== "otp")
    .flatMap(([, messages]) => messages);
  return fields.length > 0 ? fields.join(" ") : state.error;
}

function useRefreshOnSuccess(state: ActionState<unknown>, then: () => void) {
  const client = useQueryClient();
  const at = state.status === "success" ? state.at : 0;
  useEffect(() => {
    if (at === 0) return;
    then();
    void client.invalidateQueries({ queryKey: ["dashboard"] });
    // `then` is a fresh closure each render; only a new success matters.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [at, client]);
}

function AcceptReview({ orderId, line, onBack }: { orderId: string; line: UnappliedLine; onBack: () => void }) {
  const { t, money, crypto, locale } = useI18n();
  const [state, action] = useActionState<Done, FormData>(acceptUnappliedAction, idle);
  useRefreshOnSuccess(state, onBack);
  return (
    <form
      action={action}
      className="mt-3 space-y-4 rounded-lg border border-slate-200 p-4"
      data-testid="unapplied-accept-review"
    >
      <h3 className="text-base font-semibold text-slate-900">{t("unapplied.acceptTitle")}</h3>
      <input type="hidden" name="id" value={orderId} />
      <input type="hidden" name="transferId" value={line.transferId} />
      <DefinitionList
        items={[
          {
            label: t("unapplied.received"),
            value: <span className="tabular-nums">{`${crypto(line.amount)} ${line.asset}`}</span>,
          },
          {
            label: t("unapplied.rate"),
            value: t("order.rateValue", { asset: line.asset, rate: formatRate(line.rate, locale) }),
          },
          {
            label: t("unapplied.credit"),
            value: <strong data-testid="unapplied-credit">{money(line.creditCentavos)}</strong>,
          },
        ]}
      />
      <p className="text-sm text-slate-700">{t("unapplied.acceptHint")}</p>
      <StepUpField errors={state.status === "error" ? state.fieldErrors?.otp : undefined} />
      <FormMessage error={refusal(state)} />
      <div className="flex flex-wrap gap-2">
        <SubmitButton pendingLabel={t("unapplied.submitting")}>
          {t("unapplied.acceptConfirm", { amount: money(line.creditCentavos) })}
        </SubmitButton>
        <Button type="button" variant="secondary" onClick={onBack}>
          {t("common.back")}
        </Button>
      </div>
    </form>
  );
}

function ReturnConfirm({
  orderId,
  line,
  quote,
  toAddress,
  onBack,
}: {
  orderId: string;
  line: UnappliedLine;
  quote: ReturnReview;
  toAddress: string;
  onBack: () => void;
}) {
  const { t, crypto } = useI18n();
  const [state, action] = useActionState<Done, FormData>(returnUnappliedAction, idle);
  useRefreshOnSuccess(state, onBack);
  const unit = (v: string) => `${crypto(v)} ${quote.asset}`;
  return (
    <form
      action={action}
      className="mt-3 space-y-4 rounded-lg border border-slate-200 p-4"
      data-testid="unapplied-return-review"
    >
      <h3 className="text-base font-semibold text-slate-900">{t("unapplied.returnTitle")}</h3>
      <input type="hidden" name="id" value={orderId} />
      <input type="hidden" name="transferId" value={line.transferId} />
      <input type="hidden" name="toAddress" value={toAddress} />
      <DefinitionList
        items={[
          { label: t("unapplied.received"), value: <span className="tabular-nums">{unit(quote.amount)}</span> },
          { label: t("unapplied.returnFee"), value: <span className="tabular-nums">{unit(quote.fee)}</span> },
          {
            label: t("unapplied.returnSent"),
            value: (
              <strong className="tabular-nums" data-testid="unapplied-return-sent">
                {unit(quote.sent)}
              </strong>
            ),
          },
          {
            label: t("unapplied.destination"),
            value: (
              <span translate="no" className="break-all font-mono text-xs" data-testid="unapplied-return-to">
                {quote.to}
              </span>
            ),
          },
        ]}
      />
      <p className="text-sm text-slate-700">{t("unapplied.returnHint")}</p>
      {quote.destination ? <DestinationNotice peek={quote.destination} /> : null}
      <StepUpField errors={state.status === "error" ? state.fieldErrors?.otp : undefined} />
      <FormMessage error={refusal(state)} />
      <div className="flex flex-wrap gap-2">
        <SubmitButton pendingLabel={t("unapplied.submitting")}>
          {t("unapplied.returnConfirm", { amount: crypto(quote.sent), asset: quote.asset })}
        </SubmitButton>
        <Button type="button" variant="secondary" onClick={onBack}>
          {t("common.back")}
        </Button>
      </div>
    </form>
  );
}

/** The destination (blank: the sender), then the review, whose fee the server quotes. */
function ReturnForm({ orderId, line, onBack }: { orderId: string; line: UnappliedLine; onBack: () => void }) {
  const { t } = useI18n();
  const [state, action] = useActionState<ActionState<ReturnReview>, FormData>(previewUnappliedReturnAction, idle);
  const [toAddress, setToAddress] = useState("");
  const [quote, setQuote] = useState<ReturnReview | null>(null);
  const at = state.status === "success" ? state.at : 0;
  useEffect(() => {
    if (at !== 0 && state.status === "success") setQuote(state.data);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [at]);
  if (quote)
    return <ReturnConfirm orderId={orderId} line={line} quote={quote} toAddress={toAddress.trim()} onBack={onBack} />;
  return (
    <form
      action={action}
      className="mt-3 space-y-3 rounded-lg border border-slate-200 p-4"
      data-testid="unapplied-return-form"
      noValidate
    >
      <input type="hidden" name="id" value={orderId} />
      <input type="hidden" name="transferId" value={line.transferId} />
      <Input
        label={t("unapplied.returnTo")}
        name="toAddress"
        optional
        autoComplete="off"
        spellCheck={false}
        placeholder={line.fromAddress ?? "0x…"}
        value={toAddress}
        onChange={(e) => setToAddress(e.target.value)}
        hint={t("unapplied.returnToHint", { network: line.network })}
        errors={state.status === "error" ? state.fieldErrors?.toAddress : undefined}
      />
      <FormMessage error={state.status === "error" && !state.fieldErrors?.toAddress ? state.error : undefined} />
      <div className="flex flex-wrap gap-2">
        <SubmitButton pendingLabel={t("unapplied.submitting")}>{t("unapplied.returnReview")}</SubmitButton>
        <Button type="button" variant="secondary" onClick={onBack}>
          {t("common.back")}
        </Button>
      </div>
    </form>
  );
}

/** A return that waits for its new address: what releases it, and the button that cancels it (no code: it stops money leaving). */
function WaitingReturn({ orderId, r }: { orderId: string; r: NonNullable<UnappliedLine["resolution"]> }) {
  const { t, dateTime } = useI18n();
  const [state, action] = useActionState<Done, FormData>(cancelUnappliedReturnAction, idle);
  useRefreshOnSuccess(state, () => undefined);
  return (
    <form action={action} className="mt-2 space-y-2" data-testid="unapplied-waiting">
      <input type="hidden" name="id" value={orderId} />
      <input type="hidden" name="resolutionId" value={r.id} />
      {/* The address is one long word: it wraps anywhere rather than widen a phone's page. */}
      <p className="text-sm text-amber-800 [overflow-wrap:anywhere]">
        {t("unapplied.waitingDestination", { to: r.toAddress ?? "", until: dateTime(r.waitingUntil!) })}
      </p>
      <FormMessage error={refusal(state)} />
      <SubmitButton variant="secondary" pendingLabel={t("unapplied.submitting")}>
        {t("unapplied.cancelReturn")}
      </SubmitButton>
    </form>
  );
}

function Resolution({
  r,
  asset,
  orderId,
  canAct,
}: {
  r: NonNullable<UnappliedLine["resolution"]>;
  asset: string;
  orderId: string;
  canAct: boolean;
}) {
  const { t, money, crypto } = useI18n();
  const amount = crypto(r.sent ?? "0");
  const text =
    r.kind === "accept"
      ? t("unapplied.state.accepted", { amount: money(r.creditedCentavos ?? 0) })
      : r.status === "COMPLETED"
        ? t("unapplied.state.returned", { amount, asset })
        : r.status === "FAILED"
          ? t("unapplied.state.failed")
          : r.waitingUntil
            ? t("unapplied.state.waiting", { amount, asset })
            : t("unapplied.state.returning", { amount, asset });
  const tone =
    r.status === "FAILED"
      ? "text-amber-800"
      : r.kind === "accept" || r.status === "COMPLETED"
        ? "text-emerald-700"
        : "text-slate-800";
  return (
    <div className="mt-2 text-sm" data-testid="unapplied-resolution" data-status={`${r.kind}:${r.status}`}>
      <p className={`font-medium ${tone}`}>{text}</p>
      {r.toAddress ? (
        <p className="break-all text-xs text-slate-600">
          {t("unapplied.to", { address: "" })}
          <span translate="no" className="font-mono">
            {r.toAddress}
          </span>
        </p>
      ) : null}
      {r.txHash ? (
        <p className="break-all text-xs text-slate-600">
          {t("unapplied.tx", { hash: "" })}
          <span translate="no" className="font-mono" data-testid="unapplied-return-tx">
            {r.txHash}
          </span>
        </p>
      ) : null}
      {r.waitingUntil && canAct ? <WaitingReturn orderId={orderId} r={r} /> : null}
    </div>
  );
}

function UnappliedItem({ orderId, line, canAct }: { orderId: string; line: UnappliedLine; canAct: boolean }) {
  const { t, money, crypto } = useI18n();
  const [mode, setMode] = useState<Mode>("idle");
  const back = () => setMode("idle");
  return (
    <li className="py-3" data-testid="unapplied-line">
      <div className="flex flex-wrap items-start justify-between gap-2 text-sm">
        <span className="min-w-0">
          <span className="block font-semibold tabular-nums text-slate-900">
            {crypto(line.amount)} {line.asset}
          </span>
          <span className="block text-xs text-slate-700">{t(`unapplied.reason.${line.reason}`)}</span>
          {line.fromAddress ? (
            <span className="block break-all text-xs text-slate-600">
              {t("order.transferFrom", { address: "" })}
              <span translate="no" className="font-mono">
                {line.fromAddress}
              </span>
            </span>
          ) : null}
        </span>
        <span className="text-right text-xs text-slate-700">
          {t("unapplied.worth", { amount: money(line.creditCentavos) })}
        </span>
      </div>
      {line.resolution ? <Resolution r={line.resolution} asset={line.asset} orderId={orderId} canAct={canAct} /> : null}
      {!line.resolution && canAct && mode === "idle" ? (
        <div className="mt-3 flex flex-wrap gap-2">
          <Button variant="primary" onClick={() => setMode("accept")}>
            {t("unapplied.accept")}
          </Button>
          <Button variant="secondary" onClick={() => setMode("return")}>
            {t("unapplied.return")}
          </Button>
        </div>
      ) : null}
      {!line.resolution && mode === "accept" ? <AcceptReview orderId={orderId} line={line} onBack={back} /> : null}
      {!line.resolution && mode === "return" ? <ReturnForm orderId={orderId} line={line} onBack={back} /> : null}
    </li>
  );
}

/** `canAct`: the role may move money for the merchant (the actions check again). */
export function UnappliedPanel({
  orderId,
  lines,
  canAct,
}: {
  orderId: string;
  lines: UnappliedLine[];
  canAct: boolean;
}) {
  const { t } = useI18n();
  return (
    <Card aria-labelledby="unapplied-title" data-testid="unapplied-panel">
      <CardTitle id="unapplied-title">{t("unapplied.title")}</CardTitle>
      {/* Once every line is decided there is nothing left to ask of the merchant. */}
      {lines.some((l) => !l.resolution) ? <p className="mt-1 text-sm text-slate-600">{t("unapplied.intro")}</p> : null}
      <ul className="mt-2 divide-y divide-slate-100">
        {lines.map((l) => (
          <UnappliedItem key={l.transferId} orderId={orderId} line={l} canAct={canAct} />
        ))}
      </ul>
    </Card>
  );
}
