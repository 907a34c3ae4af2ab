"use client";

import { useActionState } from "react";
import { StepUpField } from "@/components/security/step-up";
import { FormMessage } from "@/components/ui/field";
import { SubmitButton } from "@/components/ui/submit-button";
import type { UserRole } from "@/db/schema";
import { idle, type ActionState } from "@/lib/forms/action-state";
import { confirmFactorChangeAction } from "@/lib/dashboard/actions/security";
import { useI18n } from "@/lib/i18n/client";

// For owners: members whose second factor changed recently and whose money moves wait for an owner
// to vouch for it (lib/identity/factor-hold.ts). Confirming takes the owner's own fresh factor.

export type HeldMemberItem = {
  id: string;
  email: string;
  role: UserRole;
  twoFactor: boolean;
  changedAt: string;
  heldUntil: string;
};

function HeldMember({ member }: { member: HeldMemberItem }) {
  const { t, dateTime } = useI18n();
  const [state, action] = useActionState<ActionState<{ id: string }>, FormData>(confirmFactorChangeAction, idle);
  if (state.status === "success") {
    return (
      <li className="py-3">
        <FormMessage success={state.message} />
      </li>
    );
  }
  return (
    <li data-testid="held-member" className="space-y-2 py-3">
      <p className="break-words text-sm font-semibold text-slate-900">
        {member.email} <span className="font-normal text-slate-600">({t(`team.role.${member.role}`)})</span>
      </p>
      <p className="text-sm text-slate-700">
        {t(member.twoFactor ? "security.heldEnrolled" : "security.heldRemoved", {
          time: dateTime(member.changedAt),
          until: dateTime(member.heldUntil),
        })}
      </p>
      {member.twoFactor ? (
        <form action={action} className="flex flex-wrap items-end gap-3" noValidate>
          <input type="hidden" name="id" value={member.id} />
          <StepUpField errors={state.status === "error" ? state.fieldErrors?.otp : undefined} />
          <SubmitButton variant="secondary" pendingLabel={t("common.loading")}>
            {t("security.confirmFactor")}
          </SubmitButton>
        </form>
      ) : null}
      <FormMessage error={state.status === "error" ? state.error : undefined} />
    </li>
  );
}

export function FactorChangesPanel({ members }: { members: HeldMemberItem[] }) {
  const { t } = useI18n();
  return (
    <div>
      <p className="mb-2 text-sm text-slate-600">{t("security.heldHint")}</p>
      <ul className="divide-y divide-slate-100">
        {members.map((m) => (
          <HeldMember key={m.id} member={m} />
        ))}
      </ul>
    </div>
  );
}
