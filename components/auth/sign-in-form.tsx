"use client";

import Link from "next/link";
import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useActionState, useState } from "react";
import { FormMessage, Input } from "@/components/ui/field";
import { SubmitButton } from "@/components/ui/submit-button";
import { useI18n } from "@/lib/i18n/client";

type State = { error?: string; email?: string };

export function SignInForm({ callbackUrl }: { callbackUrl: string }) {
  const { t } = useI18n();
  const router = useRouter();
  // Controlled, so React's reset after the action does not clear it: a mistyped e-mail should not cost the password too.
  const [password, setPassword] = useState("");
  const [state, action] = useActionState<State, FormData>(async (_prev, form) => {
    const email = String(form.get("email") ?? "");
    const result = await signIn("credentials", { email, password: String(form.get("password") ?? ""), redirect: false });
    // TooManyAttempts is lib/auth/throttle's message (a client component cannot import that server module).
    if (result?.error === "TooManyAttempts") return { error: "auth.tooManyAttempts", email };
    if (!result?.ok || result.error) return { error: "auth.invalidCredentials", email };
    router.replace(callbackUrl);
    router.refresh();
    return { email };
  }, {});
  return (
    <form action={action} className="space-y-4" noValidate>
      <FormMessage error={state.error} />
      <Input label={t("auth.email")} name="email" type="email" autoComplete="email" required defaultValue={state.email} />
      <Input
        label={t("auth.password")}
        name="password"
        type="password"
        autoComplete="current-password"
        required
        value={password}
        onChange={(e) => setPassword(e.target.value)}
      />
      <SubmitButton pendingLabel={t("auth.signingIn")} className="w-full">
        {t("auth.submitSignIn")}
      </SubmitButton>
      <p className="text-center text-sm text-slate-600">
        {t("auth.noAccount")}{" "}
        <Link href="/signup" className="font-semibold text-brand-700 underline-offset-2 hover:underline">
          {t("nav.signUp")}
        </Link>
      </p>
    </form>
  );
}
