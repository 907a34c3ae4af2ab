"use server";

import { revalidatePath } from "next/cache";
import { after } from "next/server";
import { actorOf } from "@/lib/identity/dashboard/session";
import { publicBaseUrl } from "@/lib/env";
import { getI18n } from "@/lib/i18n/server";
import { sendMail } from "@/lib/mail/mailer";
import { invitationExistingMail, invitationMail } from "@/lib/mail/messages";
import { merchantAction } from "@/lib/dashboard/server/merchant-action";
import { audit } from "@/lib/identity/audit";
import { changeRole, INVITATION_DAYS, inviteMember, removeMember, revokeInvitation } from "@/lib/identity/team";
import { inviteForm, memberRoleForm, orderIdForm } from "../schemas";

// Managing the team decides who can move money: admins and owners only, with a fresh second factor
// (cancelling an invitation only narrows access, so it needs none), and every change is audited.

const manage = { permission: "team.manage" as const, stepUp: true };

export const inviteMemberAction = merchantAction(
  inviteForm,
  async ({ email, role }, signedIn) => {
    const { id, token, elsewhere } = await inviteMember(
      signedIn.merchant.id,
      { userId: signedIn.userId, role: signedIn.role },
      email,
      role,
    );
    await audit(actorOf(signedIn), "team.invited", id, { email, role });
    const { locale, t } = await getI18n();
    const vars = { company: signedIn.merchant.companyName, role: t(`team.role.${role}`) };
    // An address with an account at another merchant gets why it cannot join, not a link; the inviter
    // sees the same answer either way, and the mail goes after it so its timing tells nothing.
    const mail = elsewhere
      ? { ...invitationExistingMail(locale, vars), to: elsewhere.email, merchantId: elsewhere.merchantId }
      : {
          ...invitationMail(locale, {
            ...vars,
            link: `${publicBaseUrl()}/invite?token=${token}`,
            days: INVITATION_DAYS,
          }),
          to: email,
          merchantId: signedIn.merchant.id,
        };
    after(() => sendMail(mail));
    revalidatePath("/dashboard/team");
    return { data: { email } };
  },
  manage,
);

export const revokeInvitationAction = merchantAction(
  orderIdForm,
  async ({ id }, signedIn) => {
    const email = await revokeInvitation(signedIn.merchant.id, id);
    await audit(actorOf(signedIn), "team.inviteRevoked", id, { email });
    revalidatePath("/dashboard/team");
    return { data: { id }, message: "team.inviteRevoked" as const };
  },
  { permission: "team.manage" },
);

export const changeRoleAction = merchantAction(
  memberRoleForm,
  async ({ id, role }, signedIn) => {
    const { email, from } = await changeRole(signedIn.merchant.id, signedIn.role, id, role);
    await audit(actorOf(signedIn), "team.roleChanged", id, { email, from, to: role });
    revalidatePath("/dashboard/team");
    return { data: { id }, message: "team.roleChanged" as const };
  },
  manage,
);

export const removeMemberAction = merchantAction(
  orderIdForm,
  async ({ id }, signedIn) => {
    const email = await removeMember(signedIn.merchant.id, signedIn.role, id);
    await audit(actorOf(signedIn), "team.removed", id, { email });
    revalidatePath("/dashboard/team");
    return { data: { id }, message: "team.removed" as const };
  },
  manage,
);
