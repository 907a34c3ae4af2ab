"use client";

import { useActionState } from "react";
import { StepUpField } from "@/components/security/step-up";
import { EmptyState } from "@/components/ui/card";
import { FormMessage, Input, Select } from "@/components/ui/field";
import { SubmitButton } from "@/components/ui/submit-button";
import type { UserRole } from "@/db/schema";
import { idle, type ActionState } from "@/lib/forms/action-state";
import {
  changeRoleAction,
  inviteMemberAction,
  removeMemberAction,
  revokeInvitationAction,
} from "@/lib/dashboard/actions/team";
import { useI18n } from "@/lib/i18n/client";

export type MemberItem = {
  id: string;
  email: string;
  name: string | null;
  role: UserRole;
  twoFactor: boolean;
  you: boolean;
  manageable: boolean;
};
export type InvitationItem = { id: string; email: string; role: UserRole; expiresAt: string };

function useRoleOptions(roles: UserRole[]) {
  const { t } = useI18n();
  return roles.map((r) => ({ value: r, label: t(`team.role.${r}`) }));
}

function MemberRow({ member, roles }: { member: MemberItem; roles: UserRole[] }) {
  const { t } = useI18n();
  const [roleState, changeRole] = useActionState<ActionState<{ id: string }>, FormData>(changeRoleAction, idle);
  const [removeState, remove] = useActionState<ActionState<{ id: string }>, FormData>(removeMemberAction, idle);
  const options = useRoleOptions(roles);
  const errorOf = (s: ActionState<{ id: string }>) => (s.status === "error" ? s.fieldErrors?.otp : undefined);
  return (
    <li data-testid="member-row" className="space-y-2 py-3">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="text-sm font-semibold text-slate-900">
          {member.email} {member.you ? <span className="font-normal text-slate-600">({t("team.you")})</span> : null}
        </p>
        <p className="text-xs text-slate-600">
          {t(`team.role.${member.role}`)} · {t("team.twoFactor")}: {member.twoFactor ? t("common.yes") : t("common.no")}
        </p>
      </div>
      {member.manageable ? (
        <div className="flex flex-wrap items-end gap-3">
          <form action={changeRole} className="flex flex-wrap items-end gap-2" noValidate>
            <input type="hidden" name="id" value={member.id} />
            <Select label={t("team.role")} name="role" defaultValue={member.role} options={options} />
            <StepUpField errors={errorOf(roleState)} />
            <SubmitButton variant="secondary" pendingLabel={t("common.loading")}>
              {t("team.changeRole")}
            </SubmitButton>
          </form>
          <form
            action={remove}
            className="flex flex-wrap items-end gap-2"
            onSubmit={(e) => {
              if (!window.confirm(t("team.removeConfirm", { email: member.email }))) e.preventDefault();
            }}
          >
            <input type="hidden" name="id" value={member.id} />
            <StepUpField errors={errorOf(removeState)} />
            <SubmitButton variant="danger" pendingLabel={t("common.loading")}>
              {t("team.remove")}
            </SubmitButton>
          </form>
        </div>
      ) : null}
      {[roleState, removeState].map((s, i) =>
        s.status === "error" || s.status === "success" ? (
          <FormMessage
            key={i}
            error={s.status === "error" ? s.error : undefined}
            success={s.status === "success" ? s.message : undefined}
          />
        ) : null,
      )}
    </li>
  );
}

function RevokeInvitation({ id }: { id: string }) {
  const { t } = useI18n();
  const [state, action] = useActionState<ActionState<{ id: string }>, FormData>(revokeInvitationAction, idle);
  return (
    <form action={action}>
      <input type="hidden" name="id" value={id} />
      <SubmitButton variant="secondary" pendingLabel={t("common.loading")} className="!min-h-8 !px-3 !py-1 text-xs">
        {t("team.revokeInvite")}
      </SubmitButton>
      {state.status === "error" ? <FormMessage error={state.error} /> : null}
    </form>
  );
}

export function TeamPanel({
  members,
  invitations,
  roles,
}: {
  members: MemberItem[];
  invitations: InvitationItem[];
  roles: UserRole[];
}) {
  const { t, dateTime } = useI18n();
  const [state, invite] = useActionState<ActionState<{ email: string }>, FormData>(inviteMemberAction, idle);
  const options = useRoleOptions(roles);
  return (
    <div className="space-y-6">
      <ul className="divide-y divide-slate-100 border-t border-slate-100" aria-label={t("team.members")}>
        {members.map((m) => (
          <MemberRow key={m.id} member={m} roles={roles} />
        ))}
      </ul>
      <section aria-labelledby="invite-title" className="space-y-3">
        <h3 id="invite-title" className="text-base font-semibold text-slate-900">
          {t("team.invite")}
        </h3>
        {state.status === "success" ? <FormMessage success={t("team.invited", { email: state.data.email })} /> : null}
        {state.status === "error" && !state.fieldErrors?.email ? <FormMessage error={state.error} /> : null}
        <form action={invite} className="grid gap-3 sm:grid-cols-[2fr_1fr_auto] sm:items-end" noValidate>
          <Input
            label={t("team.email")}
            name="email"
            type="email"
            required
            defaultValue={state.status === "error" ? state.values?.email : undefined}
            errors={state.status === "error" ? state.fieldErrors?.email : undefined}
          />
          <Select
            label={t("team.role")}
            name="role"
            defaultValue={state.status === "error" ? state.values?.role : "viewer"}
            options={options}
          />
          <SubmitButton pendingLabel={t("common.loading")}>{t("team.inviteSubmit")}</SubmitButton>
          <div className="sm:col-span-3">
            <StepUpField errors={state.status === "error" ? state.fieldErrors?.otp : undefined} />
          </div>
        </form>
        <p className="text-xs text-slate-600">{t("team.rolesHint")}</p>
      </section>
      <section aria-labelledby="pending-title" className="space-y-2">
        <h3 id="pending-title" className="text-base font-semibold text-slate-900">
          {t("team.pending")}
        </h3>
        {invitations.length === 0 ? (
          <EmptyState title={t("team.noInvites")} />
        ) : (
          <ul className="divide-y divide-slate-100">
            {invitations.map((i) => (
              <li
                key={i.id}
                data-testid="invitation-row"
                className="flex flex-wrap items-center justify-between gap-2 py-2 text-sm"
              >
                <span>
                  {i.email} · {t(`team.role.${i.role}`)} · {t("team.expires", { time: dateTime(i.expiresAt) })}
                </span>
                <RevokeInvitation id={i.id} />
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
