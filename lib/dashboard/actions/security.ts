"use server";

import { revalidatePath } from "next/cache";
import { actorOf } from "@/lib/auth/session";
import { formatDateTime } from "@/lib/i18n";
import { getLocale } from "@/lib/i18n/server";
import { sendMail } from "@/lib/mail/mailer";
import { passwordChangedMail } from "@/lib/mail/messages";
import { merchantAction } from "@/lib/dashboard/server/merchant-action";
import { audit } from "@/lib/security/audit";
import { changePassword } from "@/lib/security/passwords";
import { markStepUp, revokeOtherSessions, revokeSession } from "@/lib/security/sessions";
import { beginTotpEnrollment, confirmTotpEnrollment, disableTwoFactor } from "@/lib/security/two-factor";
import { emptyForm, orderIdForm, passwordChangeForm, totpCodeForm } from "../schemas";

// The signed-in user's own account: second factor, password and sessions. Every role may do these
// for itself.

/** Step one of enrolment: the secret comes back to this browser once, to show as a QR code. */
export const beginTotpAction = merchantAction(emptyForm, async (_input, { userId }) => {
  const { secret, uri } = await beginTotpEnrollment(userId);
  return { data: { secret, uri } };
});

/** Step two: the recovery codes come back once. Enrolling proves the factor, so it counts as a step-up. */
export const confirmTotpAction = merchantAction(totpCodeForm, async ({ code }, signedIn) => {
  const codes = await confirmTotpEnrollment(signedIn.userId, code);
  await markStepUp(signedIn.sessionId);
  await audit(actorOf(signedIn), "twoFactor.enabled", signedIn.userId);
  revalidatePath("/dashboard", "layout");
  return { data: { codes }, message: "security.enabled" as const };
});

export const disableTotpAction = merchantAction(totpCodeForm, async ({ code }, signedIn) => {
  await disableTwoFactor(signedIn.userId, code);
  await audit(actorOf(signedIn), "twoFactor.disabled", signedIn.userId);
  revalidatePath("/dashboard", "layout");
  return { data: null, message: "security.disabled" as const };
});

export const changePasswordAction = merchantAction(passwordChangeForm, async ({ currentPassword, newPassword }, signedIn) => {
  const revoked = await changePassword(signedIn.userId, currentPassword, newPassword, signedIn.sessionId);
  const actor = actorOf(signedIn);
  await audit(actor, "auth.passwordChanged", signedIn.userId, { sessionsEnded: revoked });
  const locale = await getLocale();
  await sendMail({
    ...passwordChangedMail(locale, { ip: actor.ip ?? "?", time: formatDateTime(new Date(), locale) }),
    to: signedIn.email,
    merchantId: signedIn.merchant.id,
  });
  revalidatePath("/dashboard/security");
  return { data: null, message: "security.passwordChanged" as const };
});

export const revokeSessionAction = merchantAction(orderIdForm, async ({ id }, signedIn) => {
  if (await revokeSession(signedIn.userId, id)) await audit(actorOf(signedIn), "auth.sessionRevoked", id);
  revalidatePath("/dashboard/security");
  return { data: { id }, message: "security.revoked" as const };
});

export const revokeOtherSessionsAction = merchantAction(emptyForm, async (_input, signedIn) => {
  const count = await revokeOtherSessions(signedIn.userId, signedIn.sessionId);
  await audit(actorOf(signedIn), "auth.sessionsRevoked", signedIn.userId, { count });
  revalidatePath("/dashboard/security");
  return { data: { count } };
});
