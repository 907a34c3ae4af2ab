"use server";

import { headers } from "next/headers";
import { after } from "next/server";
import { env, publicBaseUrl } from "@/lib/env";
import { InvalidInput } from "@/lib/errors";
import { validatedAction } from "@/lib/forms/validated-action";
import { clientAddress } from "@/lib/http/client-address";
import { getLocale } from "@/lib/i18n/server";
import { sendMail } from "@/lib/mail/mailer";
import { signUpConfirmMail, signUpExistingMail } from "@/lib/mail/messages";
import { signUpMerchant } from "@/lib/merchants/service";
import { hashPassword } from "@/lib/identity/password-hash";
import { signUpConfirmForm, signUpForm } from "@/lib/identity/dashboard/schemas";
import { openSignUp, sealSignUp, SIGN_UP_LINK_HOURS, type SignUpRequest } from "@/lib/identity/dashboard/sign-up-link";
import { takeSignUpAttempt } from "@/lib/identity/dashboard/throttle";
import { userByEmail } from "@/lib/identity/dashboard/users";

/**
 * Self-service sign-up (docs/security.md#sign-up-and-invitations): a standard merchant, its first user and its PIX key in one
 * transaction. No API key yet: the merchant creates one on the Developers page, where it is shown.
 *
 * With mail (SMTP_URL), nothing is created until the address's owner opens the link mailed to it, and
 * the form's answer is the same whether the address already has an account or not ("check your
 * e-mail"): the owner of an existing account is mailed that someone tried, instead of a link. So the
 * form cannot be used to learn who has an account (docs/security.md, "Sign-up and invitations").
 * Without SMTP_URL no mail reaches a visitor, so the account is created at once and the browser signs
 * in with what was typed; an address in use is then refused as such (a sandbox convenience).
 */
export type SignUpOutcome = { email: string; next: "checkMail" | "signIn"; hours: number };

export const signUpAction = validatedAction(signUpForm, async (input): Promise<{ data: SignUpOutcome }> => {
  // Before the password is hashed (docs/api.md#rate-limits).
  if (!(await takeSignUpAttempt(clientAddress(await headers())))) throw InvalidInput.of("auth.tooManySignUps");
  // Hashed on every path, so the time the answer takes says nothing either.
  const request: SignUpRequest = {
    companyName: input.companyName,
    pixKey: input.pixKey,
    email: input.email,
    passwordHash: await hashPassword(input.password),
  };
  if (!env().SMTP_URL) {
    await createAccount(request);
    return { data: { email: input.email, next: "signIn", hours: SIGN_UP_LINK_HOURS } };
  }
  const existing = await userByEmail(input.email);
  const locale = await getLocale();
  const mail = existing
    ? signUpExistingMail(locale, { signIn: `${publicBaseUrl()}/signin`, reset: `${publicBaseUrl()}/forgot-password` })
    : signUpConfirmMail(locale, {
        link: `${publicBaseUrl()}/signup/confirm?token=${sealSignUp(request)}`,
        hours: SIGN_UP_LINK_HOURS,
      });
  // Sent after the answer: how long the SMTP server takes must not tell the two cases apart.
  after(() => sendMail({ ...mail, to: existing?.email ?? input.email, merchantId: existing?.merchantId ?? null }));
  return { data: { email: input.email, next: "checkMail", hours: SIGN_UP_LINK_HOURS } };
});

/** The link's button: creates the account the link describes, then the visitor signs in. */
export const confirmSignUpAction = validatedAction<typeof signUpConfirmForm, null>(
  signUpConfirmForm,
  async ({ token }) => {
    const request = openSignUp(token);
    if (!request) throw InvalidInput.of("auth.signUpLinkInvalid");
    try {
      await createAccount(request);
    } catch (err) {
      // Opened a second time: the account is there already, which is what the visitor wants.
      if (!(err instanceof InvalidInput && err.coded.code === "auth.emailTaken")) throw err;
    }
    return { redirectTo: "/signin?created=1" };
  },
);

async function createAccount(r: SignUpRequest): Promise<void> {
  try {
    await signUpMerchant(r, { mode: env().PAYMENTS_MODE });
  } catch (err) {
    // The service's sentence is for operators and API clients; the visitor reads the form's own, in both languages.
    if (err instanceof InvalidInput && err.coded.code === "auth.emailTaken") throw InvalidInput.of("auth.emailTaken");
    throw err;
  }
}
