"use client";

import { useActionState } from "react";
import { FormMessage } from "@/components/ui/field";
import { SubmitButton } from "@/components/ui/submit-button";
import { idle, type ActionState } from "@/lib/forms/action-state";
import { revokeOtherSessionsAction, revokeSessionAction } from "@/lib/dashboard/actions/security";
import { useI18n } from "@/lib/i18n/client";
import { deviceParts } from "@/lib/identity/device-label";

export type SessionItem = {
  id: string;
  current: boolean;
  createdAt: string;
  lastSeenAt: string;
  ip: string | null;
  userAgent: string | null;
};

function RevokeOne({ id }: { id: string }) {
  const { t } = useI18n();
  const [state, action] = useActionState<ActionState<{ id: string }>, FormData>(revokeSessionAction, idle);
  return (
    <form action={action}>
      <input type="hidden" name="id" value={id} />
      <SubmitButton variant="secondary" pendingLabel={t("common.loading")} className="!min-h-8 !px-3 !py-1 text-xs">
        {t("security.revoke")}
      </SubmitButton>
      {state.status === "error" ? <FormMessage error={state.error} /> : null}
    </form>
  );
}

/** "Chrome em Android"; whichever half is known; "Dispositivo desconhecido" when neither is. */
function deviceLabel(userAgent: string | null, t: ReturnType<typeof useI18n>["t"]): string {
  const { browser, os } = deviceParts(userAgent);
  if (browser && os) return t("security.device", { browser, os });
  if (browser) return browser;
  if (os) return t("security.deviceOsOnly", { os });
  return t("security.unknownDevice");
}

/** Every open session of this user, this one marked; sign out one or all the others. */
export function SessionsList({ sessions }: { sessions: SessionItem[] }) {
  const { t, tp, dateTime } = useI18n();
  const [state, action] = useActionState<ActionState<{ count: number }>, FormData>(revokeOtherSessionsAction, idle);
  return (
    <div className="space-y-4">
      {state.status === "success" ? <FormMessage success={tp("security.revokedOthers", state.data.count)} /> : null}
      <ul className="divide-y divide-slate-100 border-t border-slate-100" aria-label={t("security.sessions")}>
        {sessions.map((s) => (
          <li key={s.id} data-testid="session-row" className="flex flex-wrap items-center justify-between gap-3 py-3">
            <div className="min-w-0 max-w-full text-sm">
              <p className="break-words font-medium text-slate-900">
                <span data-testid="session-device" title={s.userAgent ?? undefined}>
                  {deviceLabel(s.userAgent, t)}
                </span>
                {s.current ? (
                  <span className="ml-2 rounded-full bg-brand-50 px-2 py-0.5 text-xs font-semibold text-brand-900">
                    {t("security.thisSession")}
                  </span>
                ) : null}
              </p>
              <p className="break-words text-xs text-slate-600">
                {s.ip ?? "?"} · {t("security.signedInAt", { time: dateTime(s.createdAt) })} ·{" "}
                {t("security.lastSeen", { time: dateTime(s.lastSeenAt) })}
              </p>
            </div>
            {s.current ? null : <RevokeOne id={s.id} />}
          </li>
        ))}
      </ul>
      <form action={action}>
        <SubmitButton variant="danger" pendingLabel={t("common.loading")} disabled={sessions.length < 2}>
          {t("security.revokeOthers")}
        </SubmitButton>
      </form>
    </div>
  );
}
