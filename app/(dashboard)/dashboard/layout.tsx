import { DashboardNav } from "@/components/layout/dashboard-nav";
import { LanguageSwitch } from "@/components/layout/language-switch";
import { Logo } from "@/components/layout/logo";
import { SignOutButton } from "@/components/layout/sign-out-button";
import { StepUpProvider } from "@/components/security/step-up";
import { requireMerchant } from "@/lib/identity/dashboard/session";
import type { UserRole } from "@/db/schema";
import { can } from "@/lib/identity/roles";
import { env } from "@/lib/env";
import { getI18n } from "@/lib/i18n/server";

/** Pages a role cannot open are left out of the navigation (and answer 404 if opened anyway). */
function hiddenPages(role: UserRole): string[] {
  const hidden: string[] = [];
  if (!can(role, "orders.create")) hidden.push("/dashboard/orders/new");
  if (!can(role, "team.manage")) hidden.push("/dashboard/team");
  if (!can(role, "audit.view")) hidden.push("/dashboard/audit");
  // The outbox exists only while no SMTP server is configured.
  if (env().SMTP_URL) hidden.push("/dashboard/outbox");
  return hidden;
}

// Every dashboard page sits behind this check; pages and actions check again themselves
// (requireMerchant is cached per request), since a layout does not guard server actions.
export default async function DashboardLayout({ children }: { children: React.ReactNode }) {
  const { merchant, email, role, twoFactor, stepUpFresh, factorEnrolledHere, factorHeldUntil } =
    await requireMerchant();
  const { locale, t } = await getI18n();
  const sandbox = env().PAYMENTS_MODE === "sandbox";
  return (
    <div className="min-h-screen">
      <a
        href="#content"
        className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2"
      >
        {t("app.skipToContent")}
      </a>
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex max-w-7xl flex-wrap items-center justify-between gap-3 px-4 py-3 sm:px-6">
          <div className="flex items-center gap-3">
            <Logo href="/dashboard" label={t("app.name")} />
            {sandbox ? (
              <span
                title={t("app.sandboxHint")}
                className="rounded-full bg-amber-100 px-2 py-0.5 text-xs font-semibold text-amber-900"
              >
                {t("app.sandbox")}
              </span>
            ) : null}
          </div>
          <div className="ml-auto flex items-center gap-2">
            <div className="hidden text-right text-xs leading-tight sm:block">
              <p className="font-semibold text-slate-900" data-testid="merchant-name">
                {merchant.companyName}
              </p>
              <p className="text-slate-600">{email}</p>
            </div>
            <LanguageSwitch locale={locale} />
            <SignOutButton />
          </div>
        </div>
      </header>
      <div className="mx-auto max-w-7xl px-4 sm:px-6 lg:grid lg:grid-cols-[13rem_1fr] lg:gap-8">
        <aside className="border-b border-slate-200 py-3 lg:border-0 lg:py-8">
          <DashboardNav hidden={hiddenPages(role)} />
        </aside>
        <main id="content" className="min-w-0 py-6 lg:py-8">
          <StepUpProvider
            value={{
              twoFactor,
              needed: !stepUpFresh,
              minutes: env().STEP_UP_MINUTES,
              enrolledHere: factorEnrolledHere,
              heldUntil: factorHeldUntil?.toISOString() ?? null,
              sandbox,
            }}
          >
            {children}
          </StepUpProvider>
        </main>
      </div>
    </div>
  );
}
