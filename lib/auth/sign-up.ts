"use server";

import { headers } from "next/headers";
import { env } from "@/lib/env";
import { InvalidInput } from "@/lib/errors";
import { signUpMerchant } from "@/lib/merchants/service";
import { validatedAction } from "@/lib/forms/validated-action";
import { clientAddress } from "@/lib/http/client-address";
import { signUpForm } from "./schemas";
import { takeSignUpAttempt } from "./throttle";

/**
 * Self-service sign-up (CONTRACT §2): a standard merchant, its first user and its PIX key in one
 * transaction. No API key yet: the merchant creates one on the Developers page, where it is shown.
 * The browser signs in with the same credentials right after.
 */
export const signUpAction = validatedAction(signUpForm, async (input) => {
  // Before the password is hashed (CONTRACT §9).
  if (!(await takeSignUpAttempt(clientAddress(await headers())))) throw new InvalidInput("auth.tooManySignUps");
  try {
    await signUpMerchant({ companyName: input.companyName, pixKey: input.pixKey, email: input.email, password: input.password }, { mode: env().PAYMENTS_MODE });
  } catch (err) {
    if (err instanceof InvalidInput && /already exists/.test(err.message)) throw new InvalidInput("auth.emailTaken");
    throw err;
  }
  return { data: { email: input.email } };
});
