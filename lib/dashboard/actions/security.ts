"use server";

import { revalidatePath } from "next/cache";
import { actorOf, type SignedIn } from "@/lib/identity/dashboard/session";
import { takeSignInAttempt } from "@/lib/identity/dashboard/throttle";
import { InvalidInput } from "@/lib/errors";
import { formatDateTime } from "@/lib/i18n";
import { getLocale } from "@/lib/i18n/server";
import { sendMail } from "@/lib/mail/mailer";
import { enrolCodeMail, passwordChangedMail } from "@/lib/mail/messages";
import { merchantAction } from "@/lib/dashboard/server/merchant-action";
import { audit } from "@/lib/identity/audit";
import { changePassword } from "@/lib/identity/password-change";
import { CODE_MINUTES } from "@/lib/identity/email-codes";
import { announceFactorChange } from "@/lib/identity/factor-change";
import { confirmFactorChange } from "@/lib/identity/factor-hold";
import { revokeOtherSessions, revokeSession } from "@/lib/identity/sessions";
import { beginTotpEnrollment, confirmTotpEnrollment, disableTwoFactor } from "@/lib/identity/two-factor";
import { emptyForm, enrolConfirmForm, enrolStartForm, orderIdForm, passwordChangeForm, totpCodeForm } from "../schemas";

// The signed-in user's own account: second factor, password and sessions. Every role may do these
// for itself. Owners also confirm other members' new second factors (docs/security.md).

/** The user as the one acting on their own factor: rationing, audit and alerts need all of it. */
async function factorContext(signedIn: SignedIn) {
  return { actor: { ...actorOf(signedIn), userId: signedIn.userId }, locale: await getLocale() };
}

/**
 * Step one of enrolment: the password again, counted with sign-in attempts (it is a password guess
 * too). The secret comes back to this browser once, to show as a QR code; the code that step two
 * also needs goes to the user's mailbox.
 */
export const beginTotpAction = merchantAction(enrolStartForm, async ({ password }, signedIn) => {
  const { actor, locale } = await factorContext(signedIn);
  if (!(await takeSignInAttempt(signedIn.email, signedIn.ip))) throw InvalidInput.of("auth.tooManyAttempts");
  const { secret, uri, emailCode } = await beginTotpEnrollment(signedIn.userId, password);
  const time = formatDateTime(new Date(), locale);
  await sendMail({
    ...enrolCodeMail(locale, { code: emailCode, minutes: CODE_MINUTES, ip: actor.ip ?? "?", time }),
    to: signedIn.email,
    merchantId: signedIn.merchant.id,
  });
  await audit(actor, "twoFactor.enrolCodeSent", signedIn.userId);
  return { data: { secret, uri, email: signedIn.email, minutes: CODE_MINUTES } };
});

/**
 * Step two: the app's code and the mailed one turn 2FA on; the recovery codes come back once. This
 * session does not count as stepped up (the factor was enrolled on it), the member's money moves
 * wait for another owner's confirmation, and every owner and admin is told.
 */
export const confirmTotpAction = merchantAction(enrolConfirmForm, async ({ code, emailCode }, signedIn) => {
  const ctx = await factorContext(signedIn);
  const codes = await confirmTotpEnrollment(ctx, { app: code, email: emailCode }, signedIn.sessionId);
  await audit(ctx.actor, "twoFactor.enabled", signedIn.userId);
  await announceFactorChange({ ...ctx.actor, merchantId: signedIn.merchant.id }, "enrolled", ctx.locale);
  revalidatePath("/dashboard", "layout");
  return { data: { codes }, message: "security.enabled" as const };
});

/** Off (or, before enrolling another, replaced) only with the factor itself or a recovery code; every owner and admin is told. */
export const disableTotpAction = merchantAction(totpCodeForm, async ({ code }, signedIn) => {
  const ctx = await factorContext(signedIn);
  await disableTwoFactor(ctx, code);
  await audit(ctx.actor, "twoFactor.disabled", signedIn.userId);
  await announceFactorChange({ ...ctx.actor, merchantId: signedIn.merchant.id }, "removed", ctx.locale);
  revalidatePath("/dashboard", "layout");
  return { data: null, message: "security.disabled" as const };
});

/** Another owner vouches for a member's new factor, so the member's money moves need not wait (never one's own). */
export const confirmFactorChangeAction = merchantAction(
  orderIdForm,
  async ({ id }, signedIn) => {
    if (id === signedIn.userId) throw InvalidInput.of("security.confirmOwnFactor");
    const member = await confirmFactorChange(signedIn.merchant.id, id, signedIn.userId);
    if (!member) throw InvalidInput.of("security.nothingToConfirm");
    await audit(actorOf(signedIn), "twoFactor.changeConfirmed", id, { by: "owner", member });
    revalidatePath("/dashboard/security");
    return { data: { id }, message: "security.factorConfirmed" as const };
  },
  { permission: "factorChange.confirm", stepUp: true },
);

export const changePasswordAction = merchantAction(
  passwordChangeForm,
  async ({ currentPassword, newPassword }, signedIn) => {
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
  },
);

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
