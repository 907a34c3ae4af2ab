"use client";

import Link from "next/link";
import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useActionState } from "react";
import { Alert } from "@/components/ui/card";
import { FormMessage, Input } from "@/components/ui/field";
import { SubmitButton } from "@/components/ui/submit-button";
import { idle, type ActionState } from "@/lib/forms/action-state";
import { signUpAction, type SignUpOutcome } from "@/lib/identity-flows/sign-up";
import { useI18n } from "@/lib/i18n/client";

export function SignUpForm() {
  const { t, tp } = useI18n();
  const router = useRouter();
  // With mail, the server mails a link and this page says so, whether or not the address already has
  // an account; without it, the account exists now and this browser signs in with what was typed.
  const [state, action] = useActionState<ActionState<SignUpOutcome>, FormData>(async (prev, form) => {
    const result = await signUpAction(prev, form);
    if (result.status !== "success" || result.data.next === "checkMail") return result;
    const login = await signIn("credentials", {
      email: String(form.get("email")),
      password: String(form.get("password")),
      redirect: false,
    });
    if (!login?.ok || login.error) return { status: "error", error: "common.error" };
    router.replace("/dashboard");
    router.refresh();
    return result;
  }, idle);
  if (state.status === "success" && state.data.next === "checkMail") {
    return (
      <Alert tone="success">
        <p data-testid="sign-up-sent">
          {t("auth.signUpSent", { email: state.data.email, hours: tp("span.hours", state.data.hours) })}
        </p>
      </Alert>
    );
  }
  const errors = state.status === "error" ? state.fieldErrors : undefined;
  const values = state.status === "error" ? state.values : undefined;
  return (
    <form action={action} className="space-y-4" noValidate>
      <FormMessage error={state.status === "error" ? state.error : undefined} />
      <Input
        label={t("auth.companyName")}
        name="companyName"
        autoComplete="organization"
        required
        defaultValue={values?.companyName}
        errors={errors?.companyName}
      />
      <Input
        label={t("auth.email")}
        name="email"
        type="email"
        autoComplete="email"
        required
        defaultValue={values?.email}
        errors={errors?.email}
      />
      <Input
        label={t("auth.password")}
        name="password"
        type="password"
        autoComplete="new-password"
        required
        minLength={8}
        hint={t("auth.passwordHint")}
        errors={errors?.password}
      />
      <Input
        label={t("auth.pixKey")}
        name="pixKey"
        required
        hint={t("auth.pixKeyHint")}
        defaultValue={values?.pixKey}
        errors={errors?.pixKey}
      />
      <SubmitButton pendingLabel={t("auth.creating")} className="w-full">
        {t("auth.submitSignUp")}
      </SubmitButton>
      <p className="text-center text-sm text-slate-600">
        {t("auth.haveAccount")}{" "}
        <Link href="/signin" className="font-semibold text-brand-700 underline-offset-2 hover:underline">
          {t("nav.signIn")}
        </Link>
      </p>
    </form>
  );
}
