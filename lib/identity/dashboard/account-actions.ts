"use server";

import { headers } from "next/headers";
import { after } from "next/server";
import { publicBaseUrl } from "@/lib/env";
import { validatedAction } from "@/lib/forms/validated-action";
import { getI18n, getLocale } from "@/lib/i18n/server";
import { sendMail } from "@/lib/mail/mailer";
import { passwordResetMail } from "@/lib/mail/messages";
import { alertAdmins } from "@/lib/identity/alerts";
import { audit } from "@/lib/identity/audit";
import { createPasswordReset, RESET_MINUTES, resetPassword } from "@/lib/identity/password-change";
import { acceptInvitation } from "@/lib/identity/team";
import { addressOf } from "./request-address";
import { acceptInviteForm, forgotPasswordForm, resetPasswordForm } from "./schemas";
import { takeSignInAttempt } from "./throttle";

// What a visitor who is not signed in can do with their account: ask for a reset link, use it, or
// accept an invitation. The first answers the same whether the e-mail has an account or not.

export const requestPasswordResetAction = validatedAction(forgotPasswordForm, async ({ email }) => {
  // Counted with sign-in attempts: one allowance per address for everything that probes an account.
  const ip = addressOf(await headers());
  if (await takeSignInAttempt(email, ip)) {
    const reset = await createPasswordReset(email);
    if (reset) {
      const link = `${publicBaseUrl()}/reset-password?token=${reset.token}`;
      const mail = passwordResetMail(await getLocale(), link, RESET_MINUTES);
      // Sent after the answer: how long an SMTP server takes must not tell who has an account.
      after(async () => {
        await sendMail({ ...mail, to: reset.user.email, merchantId: reset.user.merchantId });
        await audit(
          { merchantId: reset.user.merchantId, userId: reset.user.id, email: reset.user.email, ip },
          "auth.passwordResetRequested",
          reset.user.id,
        );
      });
    }
  }
  return { data: { minutes: RESET_MINUTES } };
});

export const resetPasswordAction = validatedAction<typeof resetPasswordForm, null>(
  resetPasswordForm,
  async ({ token, password }) => {
    const user = await resetPassword(token, password);
    const ip = addressOf(await headers());
    await audit({ merchantId: user.merchantId, userId: user.id, email: user.email, ip }, "auth.passwordReset", user.id);
    return { redirectTo: "/signin?reset=1" };
  },
);

export const acceptInvitationAction = validatedAction<typeof acceptInviteForm, null>(
  acceptInviteForm,
  async ({ token, name, password }) => {
    const user = await acceptInvitation(token, { name, password });
    const actor = { merchantId: user.merchantId, userId: user.id, email: user.email, ip: addressOf(await headers()) };
    await audit(actor, "team.joined", user.id, { role: user.role });
    const { t, locale } = await getI18n();
    await alertAdmins(actor, "member", `${user.email} (${t(`team.role.${user.role}`)})`, locale);
    return { redirectTo: "/signin?joined=1" };
  },
);
