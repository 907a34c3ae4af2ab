"use client";

import { useActionState } from "react";
import { Alert, EmptyState } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { StepUpField } from "@/components/security/step-up";
import { FormMessage, Input } from "@/components/ui/field";
import { SubmitButton } from "@/components/ui/submit-button";
import { idle, type ActionState } from "@/lib/forms/action-state";
import { createApiKeyAction, revokeApiKeyAction } from "@/lib/dashboard/actions/developers";
import type { ApiScope } from "@/lib/identity/api-keys/scopes";
import type { MessageKey } from "@/lib/i18n";
import { useI18n } from "@/lib/i18n/client";
import { apiKeyShown } from "@/lib/identity/audit-text";

export type ApiKeyItem = {
  id: string;
  name: string;
  prefix: string;
  lastFour: string | null;
  scopes: ApiScope[];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
};

// Every scope, in the order they are shown, with its name and what it lets a key do. A Record over
// ApiScope: a new scope does not type-check until it is described here.
const SCOPES = {
  read: { name: "developers.scopeName.read", hint: "developers.scopeHint.read" },
  payments: { name: "developers.scopeName.payments", hint: "developers.scopeHint.payments" },
  refunds: { name: "developers.scopeName.refunds", hint: "developers.scopeHint.refunds" },
  withdrawals: { name: "developers.scopeName.withdrawals", hint: "developers.scopeHint.withdrawals" },
} as const satisfies Record<ApiScope, { name: MessageKey; hint: MessageKey }>;
const ALL_SCOPES = Object.keys(SCOPES) as ApiScope[];
/** Ticked when the form opens: a key that reads and takes payments; money out is asked for explicitly. */
const TICKED_FIRST: readonly ApiScope[] = ["read", "payments"];

/** "Full access", "Read only", or the scopes' names: what the list shows for a key. */
function useAccessLabel() {
  const { t } = useI18n();
  return (scopes: readonly ApiScope[]) => {
    if (ALL_SCOPES.every((s) => scopes.includes(s))) return t("developers.scope.full");
    if (scopes.length === 1 && scopes[0] === "read") return t("developers.scope.read");
    return ALL_SCOPES.filter((s) => scopes.includes(s))
      .map((s) => t(SCOPES[s].name))
      .join(" · ");
  };
}

/** One checkbox per scope the member may give (the server checks again); named as lib/dashboard/schemas.ts scopeField names them. */
function ScopeChoice({
  grantable,
  values,
  errors,
}: {
  grantable: readonly ApiScope[];
  values?: Record<string, string>;
  errors?: string[];
}) {
  const { t } = useI18n();
  return (
    <fieldset className="space-y-2" aria-describedby={errors?.length ? "scope-errors" : undefined}>
      <legend className="text-sm font-medium text-slate-800">{t("developers.scope")}</legend>
      <div className="grid gap-2 sm:grid-cols-2">
        {grantable.map((s) => (
          <label
            key={s}
            className="flex items-start gap-2 rounded-lg border border-slate-200 p-2 text-sm"
            data-testid={`scope-${s}`}
          >
            <input
              type="checkbox"
              name={`scope-${s}`}
              defaultChecked={values ? values[`scope-${s}`] === "on" : TICKED_FIRST.includes(s)}
              className="mt-0.5 size-4 shrink-0 accent-brand-700"
            />
            <span className="min-w-0">
              <span className="block font-medium text-slate-900">{t(SCOPES[s].name)}</span>
              <span className="block text-xs text-slate-600">{t(SCOPES[s].hint)}</span>
            </span>
          </label>
        ))}
      </div>
      {grantable.length < ALL_SCOPES.length ? (
        <p className="text-xs text-slate-600">{t("developers.scopesLimited")}</p>
      ) : null}
      {errors?.length ? (
        <p id="scope-errors" className="text-xs font-medium text-red-700">
          {errors.join(" ")}
        </p>
      ) : null}
    </fieldset>
  );
}

function RevokeButton({ item }: { item: ApiKeyItem }) {
  const { t } = useI18n();
  const [state, action] = useActionState<ActionState<{ id: string }>, FormData>(revokeApiKeyAction, idle);
  return (
    <form
      action={action}
      onSubmit={(e) => {
        if (!window.confirm(t("developers.revokeConfirm", { name: item.name }))) e.preventDefault();
      }}
    >
      <input type="hidden" name="id" value={item.id} />
      <SubmitButton
        variant="danger"
        pendingLabel={t("common.loading")}
        aria-label={`${t("developers.revoke")} ${item.name}`}
        className="!min-h-8 !px-3 !py-1"
      >
        {t("developers.revoke")}
      </SubmitButton>
      {state.status === "error" ? <FormMessage error={state.error} /> : null}
    </form>
  );
}

/** Create (the key is shown once, here) with the scopes the member may give, list with access, prefix and last use, revoke. */
export function ApiKeys({
  keys,
  canManage,
  grantable,
}: {
  keys: ApiKeyItem[];
  canManage: boolean;
  grantable: ApiScope[];
}) {
  const { t, dateTime } = useI18n();
  const access = useAccessLabel();
  const [state, action] = useActionState<ActionState<{ key: string; name: string }>, FormData>(
    createApiKeyAction,
    idle,
  );
  return (
    <div className="space-y-4">
      {state.status === "success" ? (
        <Alert tone="success">
          <p className="font-semibold">{t("developers.newKey")}</p>
          <p className="mb-2">{t("developers.newKeyHint")}</p>
          <div className="flex flex-col gap-2 sm:flex-row sm:items-center">
            <code
              className="block min-w-0 flex-1 break-all rounded border border-brand-100 bg-white px-2 py-1 font-mono text-xs"
              data-testid="new-api-key"
            >
              {state.data.key}
            </code>
            <CopyButton value={state.data.key} what={t("developers.newKey")} />
          </div>
        </Alert>
      ) : null}
      {canManage ? (
        <form action={action} className="space-y-3" noValidate>
          <Input
            label={t("developers.keyName")}
            name="name"
            required
            maxLength={100}
            className="sm:max-w-md"
            defaultValue={state.status === "error" ? state.values?.name : undefined}
            errors={state.status === "error" ? state.fieldErrors?.name : undefined}
          />
          <ScopeChoice
            grantable={grantable}
            values={state.status === "error" ? state.values : undefined}
            errors={state.status === "error" ? state.fieldErrors?.scopes : undefined}
          />
          <StepUpField liveOnly errors={state.status === "error" ? state.fieldErrors?.otp : undefined} />
          <SubmitButton pendingLabel={t("developers.creatingKey")}>{t("developers.createKey")}</SubmitButton>
        </form>
      ) : null}
      {state.status === "error" && !state.fieldErrors ? <FormMessage error={state.error} /> : null}
      {keys.length === 0 ? (
        <EmptyState title={t("developers.noKeys")} />
      ) : (
        <ul className="divide-y divide-slate-100 border-t border-slate-100" aria-label={t("developers.apiKeys")}>
          {keys.map((k) => (
            <li key={k.id} data-testid="api-key-row" className="flex flex-wrap items-center justify-between gap-3 py-3">
              <div className="min-w-0">
                <p className="text-sm font-semibold text-slate-900">
                  {k.name} <span className="ml-1 font-mono text-xs font-normal text-slate-700">{apiKeyShown(k)}</span>{" "}
                  <span className="ml-1 text-xs font-normal text-slate-600" data-testid="api-key-access">
                    {access(k.scopes)}
                  </span>
                </p>
                <p className="text-xs text-slate-600">
                  {t("developers.colCreated")}: {dateTime(k.createdAt)} · {t("developers.colLastUsed")}:{" "}
                  {k.lastUsedAt ? dateTime(k.lastUsedAt) : t("developers.never")}
                </p>
              </div>
              {k.revokedAt ? (
                <span className="rounded-full bg-slate-100 px-2.5 py-0.5 text-xs font-semibold text-slate-700">
                  {t("developers.revoked")}
                </span>
              ) : (
                <div className="flex items-center gap-3">
                  <span className="rounded-full bg-brand-50 px-2.5 py-0.5 text-xs font-semibold text-brand-900 ring-1 ring-inset ring-brand-100">
                    {t("developers.active")}
                  </span>
                  {canManage ? <RevokeButton item={k} /> : null}
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
