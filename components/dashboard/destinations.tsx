"use client";

import { useActionState, useState } from "react";
import { StepUpField } from "@/components/security/step-up";
import { Alert, Card, CardTitle, EmptyState } from "@/components/ui/card";
import { cn } from "@/components/ui/cn";
import { FormMessage, Input, Select } from "@/components/ui/field";
import { SubmitButton } from "@/components/ui/submit-button";
import {
  addDestinationAction,
  confirmDestinationAction,
  removeDestinationAction,
  setAllowlistAction,
} from "@/lib/dashboard/actions/destinations";
import { idle, type ActionState } from "@/lib/forms/action-state";
import { useI18n } from "@/lib/i18n/client";

// Withdrawals → Destinations: the address book, the registered payout key beside it, and the API
// allow-list switch. The server actions decide who may do what; this page only leaves out buttons a
// role could not use.

export type DestinationItem = {
  id: string;
  kind: "pix_key" | "chain_address";
  value: string;
  label: string | null;
  /** held: its hold has not ended; released: not confirmed, but nothing waits for it in the dashboard. */
  status: "confirmed" | "held" | "released";
  holdUntil: string | null;
  lastUsedAt: string | null;
};

type Props = {
  items: DestinationItem[];
  registered: { key: string; heldUntil: string | null } | null;
  allowlist: boolean;
  holdHours: number;
  canAdd: boolean;
  canConfirm: boolean;
  canSwitch: boolean;
};

type State = ActionState<null>;
const errorOf = (s: State) => (s.status === "error" ? s.error : undefined);

const BADGE = {
  confirmed: "bg-brand-50 text-brand-900 ring-brand-100",
  held: "bg-amber-50 text-amber-900 ring-amber-200",
  released: "bg-slate-100 text-slate-700 ring-slate-200",
};

function StatusBadge({ status, until }: { status: DestinationItem["status"]; until: string | null }) {
  const { t, dateTime } = useI18n();
  const text =
    status === "held" && until
      ? t("destinations.status.held", { until: dateTime(until) })
      : t(status === "confirmed" ? "destinations.status.confirmed" : "destinations.status.released");
  return (
    <span
      className={cn(
        "inline-flex items-center rounded-full px-2.5 py-0.5 text-xs font-semibold ring-1 ring-inset",
        BADGE[status],
      )}
    >
      {text}
    </span>
  );
}

function ConfirmForm({ item }: { item: DestinationItem }) {
  const { t } = useI18n();
  const [state, action] = useActionState<State, FormData>(confirmDestinationAction, idle);
  return (
    <form action={action} className="space-y-2" noValidate>
      <input type="hidden" name="id" value={item.id} />
      <StepUpField errors={state.status === "error" ? state.fieldErrors?.otp : undefined} />
      <SubmitButton
        pendingLabel={t("common.loading")}
        className="!min-h-8 !px-3 !py-1"
        aria-label={`${t("destinations.confirm")} ${item.value}`}
      >
        {t("destinations.confirm")}
      </SubmitButton>
      {state.status === "error" && !state.fieldErrors?.otp ? <FormMessage error={errorOf(state)} /> : null}
    </form>
  );
}

function RemoveForm({ item }: { item: DestinationItem }) {
  const { t } = useI18n();
  const [state, action] = useActionState<State, FormData>(removeDestinationAction, idle);
  return (
    <form
      action={action}
      onSubmit={(e) => {
        if (!window.confirm(t("destinations.removeConfirm", { value: item.value }))) e.preventDefault();
      }}
    >
      <input type="hidden" name="id" value={item.id} />
      <SubmitButton
        variant="secondary"
        pendingLabel={t("common.loading")}
        className="!min-h-8 !px-3 !py-1"
        aria-label={`${t("destinations.remove")} ${item.value}`}
      >
        {t("destinations.remove")}
      </SubmitButton>
      <FormMessage error={errorOf(state)} />
    </form>
  );
}

function Row({ item, canAdd, canConfirm }: { item: DestinationItem; canAdd: boolean; canConfirm: boolean }) {
  const { t, dateTime } = useI18n();
  return (
    <li
      className="flex flex-col gap-3 py-4 sm:flex-row sm:items-start sm:justify-between"
      data-testid="destination-row"
      data-status={item.status}
      data-value={item.value}
    >
      <div className="min-w-0 flex-1 space-y-1">
        <p className="text-sm font-semibold text-slate-900">
          {item.label ?? t(`destinations.kind.${item.kind}`)}{" "}
          {item.label ? (
            <span className="font-normal text-slate-600">· {t(`destinations.kind.${item.kind}`)}</span>
          ) : null}
        </p>
        <p className="break-all font-mono text-xs text-slate-800" translate="no">
          {item.value}
        </p>
        <div className="flex flex-wrap items-center gap-2 text-xs text-slate-600">
          <StatusBadge status={item.status} until={item.holdUntil} />
          <span>
            {item.lastUsedAt
              ? t("destinations.lastUsed", { time: dateTime(item.lastUsedAt) })
              : t("destinations.neverUsed")}
          </span>
        </div>
        {item.status === "released" ? <p className="text-xs text-slate-600">{t("destinations.releasedHint")}</p> : null}
      </div>
      <div className="flex shrink-0 flex-wrap items-start gap-2 sm:w-56 sm:justify-end">
        {canConfirm && item.status !== "confirmed" ? <ConfirmForm item={item} /> : null}
        {canAdd ? <RemoveForm item={item} /> : null}
      </div>
    </li>
  );
}

function AddForm() {
  const { t } = useI18n();
  const [state, action] = useActionState<State, FormData>(addDestinationAction, idle);
  const values = state.status === "error" ? state.values : undefined;
  const errors = state.status === "error" ? state.fieldErrors : undefined;
  const [kind, setKind] = useState(values?.kind ?? "pix_key");
  return (
    <form action={action} className="space-y-4" noValidate key={state.status === "success" ? state.at : "form"}>
      <FormMessage
        error={errors ? undefined : errorOf(state)}
        success={state.status === "success" ? state.message : undefined}
      />
      <Select
        label={t("destinations.kind")}
        name="kind"
        value={kind}
        onChange={(e) => setKind(e.target.value)}
        options={[
          { value: "pix_key", label: t("destinations.kind.pix_key") },
          { value: "chain_address", label: t("destinations.kind.chain_address") },
        ]}
      />
      <Input
        label={t(kind === "pix_key" ? "withdrawals.pixKey" : "withdrawals.toAddress")}
        name="value"
        required
        spellCheck={false}
        autoComplete="off"
        defaultValue={values?.value}
        errors={errors?.value}
        hint={kind === "pix_key" ? t("auth.pixKeyHint") : undefined}
      />
      <Input
        label={t("destinations.label")}
        name="label"
        optional
        maxLength={60}
        defaultValue={values?.label}
        errors={errors?.label}
        hint={t("destinations.labelHint")}
      />
      <StepUpField errors={errors?.otp} />
      <SubmitButton pendingLabel={t("common.loading")}>{t("destinations.addSubmit")}</SubmitButton>
    </form>
  );
}

function AllowlistSwitch({ on, canSwitch }: { on: boolean; canSwitch: boolean }) {
  const { t } = useI18n();
  const [state, action] = useActionState<State, FormData>(setAllowlistAction, idle);
  return (
    <div className="space-y-3" data-testid="allowlist" data-enabled={on}>
      <p className="text-sm text-slate-700">{t(on ? "destinations.allowlistOn" : "destinations.allowlistOff")}</p>
      {canSwitch ? (
        <form action={action} className="space-y-3" noValidate>
          <FormMessage
            error={state.status === "error" && !state.fieldErrors?.otp ? state.error : undefined}
            success={state.status === "success" ? state.message : undefined}
          />
          <input type="hidden" name="enabled" value={on ? "off" : "on"} />
          <StepUpField errors={state.status === "error" ? state.fieldErrors?.otp : undefined} />
          <SubmitButton variant={on ? "secondary" : "primary"} pendingLabel={t("common.loading")}>
            {t(on ? "destinations.turnOff" : "destinations.turnOn")}
          </SubmitButton>
        </form>
      ) : null}
    </div>
  );
}

export function Destinations({ items, registered, allowlist, holdHours, canAdd, canConfirm, canSwitch }: Props) {
  const { t, dateTime } = useI18n();
  return (
    <div className="space-y-6">
      <p className="max-w-3xl text-sm text-slate-600">
        {holdHours > 0 ? t("destinations.intro", { hours: holdHours }) : t("destinations.introNoHold")}
      </p>
      <div className="grid gap-6 lg:grid-cols-[1fr_22rem]">
        <Card aria-labelledby="destinations-list-title">
          <CardTitle id="destinations-list-title">{t("destinations.list")}</CardTitle>
          {registered ? (
            <div className="mt-3 rounded-lg border border-slate-200 bg-slate-50 px-3 py-3" data-testid="registered-key">
              <p className="text-sm font-semibold text-slate-900">{t("destinations.registered")}</p>
              <p className="break-all font-mono text-xs text-slate-800" translate="no">
                {registered.key}
              </p>
              <div className="mt-1 flex flex-wrap items-center gap-2 text-xs text-slate-600">
                {registered.heldUntil ? (
                  <StatusBadge status="held" until={registered.heldUntil} />
                ) : (
                  <StatusBadge status="confirmed" until={null} />
                )}
                <span>{t("destinations.registeredHint")}</span>
              </div>
            </div>
          ) : null}
          {items.length === 0 ? (
            <div className="mt-3">
              <EmptyState title={t("destinations.empty")} />
            </div>
          ) : (
            <ul className="mt-1 divide-y divide-slate-100" aria-labelledby="destinations-list-title">
              {items.map((item) => (
                <Row key={item.id} item={item} canAdd={canAdd} canConfirm={canConfirm} />
              ))}
            </ul>
          )}
        </Card>
        <div className="space-y-6">
          {canAdd ? (
            <Card aria-labelledby="destinations-add-title">
              <CardTitle id="destinations-add-title" className="mb-4">
                {t("destinations.add")}
              </CardTitle>
              <AddForm />
            </Card>
          ) : null}
          <Card aria-labelledby="allowlist-title">
            <CardTitle id="allowlist-title" className="mb-2">
              {t("destinations.allowlist")}
            </CardTitle>
            <AllowlistSwitch on={allowlist} canSwitch={canSwitch} />
          </Card>
          {registered?.heldUntil ? (
            <Alert tone="warning">
              <p>{t("settings.payoutHeld", { until: dateTime(registered.heldUntil) })}</p>
            </Alert>
          ) : null}
        </div>
      </div>
    </div>
  );
}
