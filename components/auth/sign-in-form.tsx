"use client";

import Link from "next/link";
import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useActionState, useState } from "react";
import { FormMessage, Input } from "@/components/ui/field";
import { SubmitButton } from "@/components/ui/submit-button";
import type { MessageKey } from "@/lib/i18n";
import { useI18n } from "@/lib/i18n/client";

// While the code is asked for, the password typed a moment ago stays in this page's memory (React
// resets the form after each submit) so the person types only the code.
type State = { error?: string; email?: string; askCode?: boolean; password?: string };

// lib/identity/dashboard/sign-in's messages (a client component cannot import that server module).
const ERRORS: Record<string, MessageKey> = {
  TooManyAttempts: "auth.tooManyAttempts",
  TwoFactorRequired: "auth.twoFactorRequired",
  TwoFactorInvalid: "auth.twoFactorInvalid",
  TwoFactorLocked: "auth.twoFactorLocked",
};

/** E-mail and password; once the server says the account has a second factor, its code too. */
export function SignInForm({ callbackUrl, notice }: { callbackUrl: string; notice?: MessageKey }) {
  const { t } = useI18n();
  const router = useRouter();
  // Controlled, so React's reset after the action does not clear it: a mistyped e-mail should not cost the password too.
  const [password, setPassword] = useState("");
  const [state, action] = useActionState<State, FormData>(async (prev, form) => {
    const email = String(form.get("email") ?? "");
    const password = String(form.get("password") ?? "");
    const result = await signIn("credentials", {
      email,
      password,
      otp: String(form.get("otp") ?? ""),
      redirect: false,
    });
    const known = result?.error ? ERRORS[result.error] : undefined;
    const askCode =
      prev.askCode ||
      result?.error === "TwoFactorRequired" ||
      result?.error === "TwoFactorInvalid" ||
      result?.error === "TwoFactorLocked";
    if (known) return { error: known, email, askCode, password: askCode ? password : undefined };
    if (!result?.ok || result.error) return { error: "auth.invalidCredentials", email };
    router.replace(callbackUrl);
    router.refresh();
    return { email };
  }, {});
  return (
    <form action={action} className="space-y-4" noValidate>
      <FormMessage error={state.error} success={!state.error ? notice : undefined} />
      {state.askCode && state.password ? (
        <>
          <input type="hidden" name="email" value={state.email} />
          <input type="hidden" name="password" value={state.password} />
          <Input
            label={t("auth.otp")}
            name="otp"
            autoComplete="one-time-code"
            inputMode="numeric"
            required
            autoFocus
            maxLength={32}
            hint={t("auth.otpHint")}
          />
        </>
      ) : (
        <>
          <Input
            label={t("auth.email")}
            name="email"
            type="email"
            autoComplete="email"
            required
            defaultValue={state.email}
          />
          <Input
            label={t("auth.password")}
            name="password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </>
      )}
      <SubmitButton pendingLabel={t("auth.signingIn")} className="w-full">
        {t("auth.submitSignIn")}
      </SubmitButton>
      <p className="text-center text-sm text-slate-600">
        <Link href="/forgot-password" className="font-semibold text-brand-700 underline-offset-2 hover:underline">
          {t("auth.forgotPassword")}
        </Link>
      </p>
      <p className="text-center text-sm text-slate-600">
        {t("auth.noAccount")}{" "}
        <Link href="/signup" className="font-semibold text-brand-700 underline-offset-2 hover:underline">
          {t("nav.signUp")}
        </Link>
      </p>
    </form>
  );
}
