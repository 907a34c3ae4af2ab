"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useActionState, useEffect } from "react";
import { Alert, EmptyState } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { FormMessage, Input } from "@/components/ui/field";
import { StepUpField } from "@/components/security/step-up";
import { SubmitButton } from "@/components/ui/submit-button";
import { idle, type ActionState } from "@/lib/forms/action-state";
import {
  createWebhookAction,
  deleteWebhookAction,
  redeliverAction,
  sendTestEventAction,
} from "@/lib/dashboard/actions/developers";
import { getJson } from "@/lib/browser/fetch-json";
import { POLL_MS, queryKeys } from "@/lib/browser/query-keys";
import type { WebhookPanel } from "@/lib/dashboard/server/webhooks";
import { useI18n } from "@/lib/i18n/client";

/** lib/webhooks/test-event.ts's type; that module reads the database, so it is not imported here. */
const TEST_EVENT_TYPE = "webhook.test";

type Endpoint = WebhookPanel["endpoints"][number];
type Delivery = Endpoint["deliveries"][number];

const DELIVERY_TONE: Record<string, string> = {
  pending: "text-amber-800",
  succeeded: "text-brand-900",
  failed: "text-red-700",
  cancelled: "text-slate-600",
};

function useRefreshOnSuccess(state: ActionState<unknown>) {
  const client = useQueryClient();
  const at = state.status === "success" ? state.at : 0;
  useEffect(() => {
    if (at !== 0) void client.invalidateQueries({ queryKey: queryKeys.webhooks() });
  }, [at, client]);
}

function DeleteEndpoint({ endpoint }: { endpoint: Endpoint }) {
  const { t } = useI18n();
  const [state, action] = useActionState<ActionState<{ id: string }>, FormData>(deleteWebhookAction, idle);
  useRefreshOnSuccess(state);
  return (
    <form
      action={action}
      onSubmit={(e) => {
        if (!window.confirm(t("developers.deleteWebhookConfirm", { url: endpoint.url }))) e.preventDefault();
      }}
    >
      <input type="hidden" name="id" value={endpoint.id} />
      <SubmitButton
        variant="danger"
        pendingLabel={t("common.loading")}
        className="!min-h-8 !px-3 !py-1"
        aria-label={`${t("developers.deleteWebhook")} ${endpoint.url}`}
      >
        {t("developers.deleteWebhook")}
      </SubmitButton>
      {state.status === "error" ? <FormMessage error={state.error} /> : null}
    </form>
  );
}

function Redeliver({ endpointId, delivery, label }: { endpointId: string; delivery: Delivery; label: string }) {
  const { t } = useI18n();
  const [state, action] = useActionState<ActionState<{ deliveryId: string }>, FormData>(redeliverAction, idle);
  useRefreshOnSuccess(state);
  return (
    <form action={action} className="flex flex-wrap items-center gap-2">
      <input type="hidden" name="endpointId" value={endpointId} />
      <input type="hidden" name="deliveryId" value={delivery.id} />
      <SubmitButton
        variant="secondary"
        pendingLabel={t("common.loading")}
        className="!min-h-8 !px-3 !py-1 text-xs"
        aria-label={label}
      >
        {t("developers.redeliver")}
      </SubmitButton>
      {state.status === "error" ? <span className="text-xs text-red-700">{state.error}</span> : null}
      {state.status === "success" ? (
        <span role="status" className="text-xs text-brand-900">
          {t("developers.redelivered")}
        </span>
      ) : null}
    </form>
  );
}

function SendTestEvent({ endpoint }: { endpoint: Endpoint }) {
  const { t } = useI18n();
  const [state, action] = useActionState<ActionState<{ eventId: string }>, FormData>(sendTestEventAction, idle);
  useRefreshOnSuccess(state);
  return (
    <form action={action} className="flex flex-col items-start gap-1">
      <input type="hidden" name="id" value={endpoint.id} />
      <SubmitButton
        variant="secondary"
        pendingLabel={t("developers.sendingTestEvent")}
        className="!min-h-8 !px-3 !py-1"
        aria-label={`${t("developers.sendTestEvent")} ${endpoint.url}`}
      >
        {t("developers.sendTestEvent")}
      </SubmitButton>
      {state.status === "error" ? <span className="text-xs text-red-700">{state.error}</span> : null}
      {state.status === "success" ? (
        <span role="status" className="text-xs text-brand-900">
          {t("developers.testEventSent")}
        </span>
      ) : null}
    </form>
  );
}

/** What the receiver answered last: its status code (or why nothing was sent), how long it took, and the start of its body. */
function LastAnswer({ delivery }: { delivery: Delivery }) {
  const { t } = useI18n();
  const last = delivery.attemptsLog[delivery.attemptsLog.length - 1];
  if (!last) return <p className="text-xs text-slate-600">{t("developers.notSentYet")}</p>;
  return (
    <div className="min-w-0 space-y-1 text-xs">
      <p className="text-slate-700">
        {last.statusCode ? `HTTP ${last.statusCode}` : t("developers.noAnswer")} · {last.durationMs} ms
      </p>
      {last.error && !last.statusCode ? <p className="break-words text-red-700">{last.error}</p> : null}
      {last.responseExcerpt ? (
        <p
          className="break-all rounded bg-slate-50 px-2 py-1 font-mono text-slate-700"
          translate="no"
          data-testid="delivery-response"
        >
          <span className="sr-only">{t("developers.colResponse")}: </span>
          {last.responseExcerpt.length > 200 ? `${last.responseExcerpt.slice(0, 200)}…` : last.responseExcerpt}
        </p>
      ) : null}
    </div>
  );
}

/** Every delivery on one line with its status, its last answer and "Reenviar"; earlier attempts behind a toggle. */
function DeliveryLog({ endpoint, canManage }: { endpoint: Endpoint; canManage: boolean }) {
  const { t, tp, dateTime } = useI18n();
  if (endpoint.deliveries.length === 0) return <p className="text-sm text-slate-600">{t("developers.noDeliveries")}</p>;
  return (
    <ul className="divide-y divide-slate-100">
      {endpoint.deliveries.map((d) => (
        <li key={d.id} className="space-y-2 py-3" data-testid="webhook-delivery">
          <div className="flex flex-wrap items-start justify-between gap-2">
            <div className="min-w-0 text-sm">
              <p className="flex flex-wrap items-center gap-2">
                <span translate="no" className="break-all font-mono text-xs text-slate-900">
                  {d.eventType}
                </span>
                {d.eventType === TEST_EVENT_TYPE ? (
                  <span className="rounded-full bg-sky-100 px-2 py-0.5 text-xs font-semibold text-sky-900">
                    {t("developers.testBadge")}
                  </span>
                ) : null}
                {d.redeliveryOf ? (
                  <span className="rounded-full bg-slate-100 px-2 py-0.5 text-xs text-slate-700">
                    {t("developers.redeliveryBadge")}
                  </span>
                ) : null}
              </p>
              <p className="text-xs text-slate-600">{dateTime(d.createdAt)}</p>
            </div>
            <p className={`text-xs font-semibold ${DELIVERY_TONE[d.status] ?? ""}`} data-testid="delivery-status">
              {t(`order.deliveryStatus.${d.status}`)} · {tp("order.deliveryAttempts", d.attempts)}
            </p>
          </div>
          <div className="flex flex-wrap items-end justify-between gap-2">
            <LastAnswer delivery={d} />
            {d.status !== "pending" && canManage ? (
              <Redeliver
                endpointId={endpoint.id}
                delivery={d}
                label={`${t("developers.redeliver")} · ${dateTime(d.createdAt)}`}
              />
            ) : null}
          </div>
          {d.attemptsLog.length > 1 ? (
            <details className="text-xs">
              <summary className="cursor-pointer rounded text-slate-700 focus-visible:outline-2 focus-visible:outline-brand-700">
                {t("developers.allAttempts")}
              </summary>
              <ol className="mt-1 space-y-1 text-slate-700">
                {d.attemptsLog.map((a) => (
                  <li key={a.attempt}>
                    #{a.attempt} · {dateTime(a.startedAt)} · {a.statusCode ? `HTTP ${a.statusCode}` : (a.error ?? "—")}{" "}
                    · {a.durationMs} ms
                  </li>
                ))}
              </ol>
            </details>
          ) : null}
        </li>
      ))}
    </ul>
  );
}

/** Endpoints (the secret shown once), each with its delivery log and redeliver; polled so new deliveries appear. */
export function WebhooksPanel({ initial, canManage }: { initial: WebhookPanel; canManage: boolean }) {
  const { t } = useI18n();
  const [state, action] = useActionState<ActionState<{ url: string; secret: string }>, FormData>(
    createWebhookAction,
    idle,
  );
  useRefreshOnSuccess(state);
  const { data } = useQuery({
    queryKey: queryKeys.webhooks(),
    queryFn: () => getJson<WebhookPanel>("/dashboard/api/webhooks"),
    initialData: initial,
    refetchInterval: POLL_MS * 2,
  });
  return (
    <div className="space-y-4">
      {state.status === "success" ? (
        <Alert tone="success">
          <p className="font-semibold">{t("developers.webhookSecret")}</p>
          <p className="mb-2">{t("developers.webhookSecretHint")}</p>
          <div className="flex flex-col gap-2 sm:flex-row sm:items-center">
            <code
              className="block min-w-0 flex-1 break-all rounded border border-brand-100 bg-white px-2 py-1 font-mono text-xs"
              data-testid="webhook-secret"
            >
              {state.data.secret}
            </code>
            <CopyButton value={state.data.secret} what={t("developers.webhookSecret")} />
          </div>
        </Alert>
      ) : null}
      {canManage ? (
        <form action={action} className="grid gap-3 sm:grid-cols-[2fr_1fr_auto] sm:items-end" noValidate>
          <Input
            label={t("developers.webhookUrl")}
            name="url"
            type="url"
            required
            placeholder="https://example.com/webhooks"
            defaultValue={state.status === "error" ? state.values?.url : undefined}
            errors={state.status === "error" ? state.fieldErrors?.url : undefined}
          />
          <Input
            label={t("developers.webhookDescription")}
            name="description"
            optional
            defaultValue={state.status === "error" ? state.values?.description : undefined}
            errors={state.status === "error" ? state.fieldErrors?.description : undefined}
          />
          <SubmitButton pendingLabel={t("developers.addingWebhook")}>{t("developers.addWebhook")}</SubmitButton>
          <div className="sm:col-span-3">
            <StepUpField liveOnly errors={state.status === "error" ? state.fieldErrors?.otp : undefined} />
          </div>
        </form>
      ) : null}
      {state.status === "error" && !state.fieldErrors ? <FormMessage error={state.error} /> : null}
      {data.endpoints.length === 0 ? (
        <EmptyState title={t("developers.noWebhooks")} />
      ) : (
        <ul className="space-y-4">
          {data.endpoints.map((e) => (
            <li key={e.id} className="rounded-lg border border-slate-200 p-4" data-testid="webhook-endpoint">
              <div className="mb-3 flex flex-wrap items-start justify-between gap-3">
                <div className="min-w-0">
                  <p className="break-all font-mono text-sm font-semibold text-slate-900">{e.url}</p>
                  {e.description ? <p className="text-xs text-slate-600">{e.description}</p> : null}
                  {e.status === "disabled" ? (
                    <p className="text-xs font-semibold text-red-700">{t("developers.disabled")}</p>
                  ) : null}
                  {e.secretReadable ? null : (
                    <p className="text-xs font-semibold text-red-700" data-testid="webhook-secret-unreadable">
                      {t("developers.webhookSecretUnreadable")}
                    </p>
                  )}
                </div>
                {canManage ? (
                  <div className="flex flex-wrap items-start gap-2">
                    {e.status === "enabled" ? <SendTestEvent endpoint={e} /> : null}
                    <DeleteEndpoint endpoint={e} />
                  </div>
                ) : null}
              </div>
              <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-slate-600">
                {t("developers.deliveries")}
              </h3>
              <DeliveryLog endpoint={e} canManage={canManage} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
