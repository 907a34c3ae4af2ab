import type { Metadata } from "next";
import { FactorChangesPanel } from "@/components/security/factor-changes-panel";
import { PasswordForm } from "@/components/security/password-form";
import { SessionsList } from "@/components/security/sessions-list";
import { TwoFactorPanel } from "@/components/security/two-factor-panel";
import { Card, CardTitle, PageHeader } from "@/components/ui/card";
import { requireMerchant } from "@/lib/identity/dashboard/session";
import { getI18n } from "@/lib/i18n/server";
import { heldMembers } from "@/lib/identity/factor-hold";
import { can } from "@/lib/identity/roles";
import { listOpenSessions } from "@/lib/identity/sessions";
import { twoFactorStatus } from "@/lib/identity/two-factor";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getI18n()).t("security.title") };
}

/** The signed-in user's own security: second factor, password, sessions. Open to every role; owners also confirm others' new factors. */
export default async function SecurityPage() {
  const { userId, sessionId, merchant, role, factorHeldUntil, factorEnrolledHere } = await requireMerchant();
  const owner = can(role, "factorChange.confirm");
  const [{ t }, twoFactor, sessions, held] = await Promise.all([
    getI18n(),
    twoFactorStatus(userId),
    listOpenSessions(userId),
    owner ? heldMembers(merchant.id) : Promise.resolve([]),
  ]);
  const others = held.filter((m) => m.id !== userId);
  return (
    <>
      <PageHeader title={t("security.title")} />
      {/* grid-cols-1 is minmax(0, 1fr): an implicit column would grow to its widest unbreakable content. */}
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
        <Card aria-labelledby="twofactor-title">
          <CardTitle id="twofactor-title" className="mb-4">
            {t("security.twoFactor")}
          </CardTitle>
          <TwoFactorPanel
            enabled={twoFactor.enabled}
            recoveryCodesLeft={twoFactor.recoveryCodesLeft}
            heldUntil={factorHeldUntil?.toISOString() ?? null}
            enrolledHere={factorEnrolledHere}
          />
        </Card>
        <Card aria-labelledby="password-title">
          <CardTitle id="password-title" className="mb-4">
            {t("security.password")}
          </CardTitle>
          <PasswordForm />
        </Card>
        {others.length > 0 ? (
          <Card aria-labelledby="held-title" className="lg:col-span-2">
            <CardTitle id="held-title">{t("security.heldTitle")}</CardTitle>
            <FactorChangesPanel
              members={others.map((m) => ({
                ...m,
                changedAt: m.changedAt.toISOString(),
                heldUntil: m.heldUntil.toISOString(),
              }))}
            />
          </Card>
        ) : null}
        <Card aria-labelledby="sessions-title" className="lg:col-span-2">
          <CardTitle id="sessions-title">{t("security.sessions")}</CardTitle>
          <p className="mb-4 mt-1 text-sm text-slate-600">{t("security.sessionsHint")}</p>
          <SessionsList
            sessions={sessions.map((s) => ({
              id: s.id,
              current: s.id === sessionId,
              createdAt: s.createdAt.toISOString(),
              lastSeenAt: s.lastSeenAt.toISOString(),
              ip: s.ip,
              userAgent: s.userAgent,
            }))}
          />
        </Card>
      </div>
    </>
  );
}
