"use client";

import { useActionState } from "react";
import { Alert, EmptyState } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { StepUpField } from "@/components/security/step-up";
import { FormMessage, Input, Select } from "@/components/ui/field";
import { SubmitButton } from "@/components/ui/submit-button";
import { idle, type ActionState } from "@/lib/forms/action-state";
import { createApiKeyAction, revokeApiKeyAction } from "@/lib/dashboard/actions/developers";
import { useI18n } from "@/lib/i18n/client";

export type ApiKeyItem = { id: string; name: string; prefix: string; scope: "full" | "read"; createdAt: string; lastUsedAt: string | null; revokedAt: string | null };

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
      <SubmitButton variant="danger" pendingLabel={t("common.loading")} aria-label={`${t("developers.revoke")} ${item.name}`} className="!min-h-8 !px-3 !py-1">
        {t("developers.revoke")}
      </SubmitButton>
      {state.status === "error" ? <FormMessage error={state.error} /> : null}
    </form>
  );
}

/** Create (the key is shown once, here), list with prefix and last use, revoke. */
export function ApiKeys({ keys, canManage }: { keys: ApiKeyItem[]; canManage: boolean }) {
  const { t, dateTime } = useI18n();
  const [state, action] = useActionState<ActionState<{ key: string; name: string }>, FormData>(createApiKeyAction, idle);
  return (
    <div className="space-y-4">
      {state.status === "success" ? (
        <Alert tone="success">
          <p className="font-semibold">{t("developers.newKey")}</p>
          <p className="mb-2">{t("developers.newKeyHint")}</p>
          <div className="flex flex-col gap-2 sm:flex-row sm:items-center">
            <code className="block min-w-0 flex-1 break-all rounded border border-brand-100 bg-white px-2 py-1 font-mono text-xs" data-testid="new-api-key">
              {state.data.key}
            </code>
            <CopyButton value={state.data.key} what={t("developers.newKey")} />
          </div>
        </Alert>
      ) : null}
      {canManage ? (
        <form action={action} className="grid gap-3 sm:grid-cols-[2fr_1fr_auto] sm:items-end" noValidate>
          <Input
            label={t("developers.keyName")}
            name="name"
            required
            maxLength={100}
            className="flex-1"
            defaultValue={state.status === "error" ? state.values?.name : undefined}
            errors={state.status === "error" ? state.fieldErrors?.name : undefined}
          />
          <Select
            label={t("developers.scope")}
            name="scope"
            defaultValue={state.status === "error" ? state.values?.scope : "full"}
            options={[
              { value: "full", label: t("developers.scope.full") },
              { value: "read", label: t("developers.scope.read") },
            ]}
          />
          <SubmitButton pendingLabel={t("developers.creatingKey")}>{t("developers.createKey")}</SubmitButton>
          <div className="sm:col-span-3">
            <StepUpField errors={state.status === "error" ? state.fieldErrors?.otp : undefined} />
          </div>
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
                  {k.name} <span className="ml-1 font-mono text-xs font-normal text-slate-700">{k.prefix}…</span>{" "}
                  <span className="ml-1 text-xs font-normal text-slate-600">{t(`developers.scope.${k.scope}`)}</span>
                </p>
                <p className="text-xs text-slate-600">
                  {t("developers.colCreated")}: {dateTime(k.createdAt)} · {t("developers.colLastUsed")}: {k.lastUsedAt ? dateTime(k.lastUsedAt) : t("developers.never")}
                </p>
              </div>
              {k.revokedAt ? (
                <span className="rounded-full bg-slate-100 px-2.5 py-0.5 text-xs font-semibold text-slate-700">{t("developers.revoked")}</span>
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
