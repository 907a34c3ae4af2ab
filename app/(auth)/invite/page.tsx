import type { Metadata } from "next";
import { AcceptInvitationForm } from "@/components/auth/account-forms";
import { Alert, Card } from "@/components/ui/card";
import { getI18n } from "@/lib/i18n/server";
import { openInvitation } from "@/lib/identity/team";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getI18n()).t("auth.inviteAccept"), referrer: "no-referrer" };
}

export default async function InvitePage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const token = (await searchParams).token;
  const { t } = await getI18n();
  const invitation = typeof token === "string" ? await openInvitation(token) : null;
  if (!invitation || typeof token !== "string") {
    return (
      <Card>
        <Alert>
          <p data-testid="invite-invalid">{t("auth.inviteInvalid")}</p>
        </Alert>
      </Card>
    );
  }
  return (
    <Card>
      <h1 className="text-xl font-bold text-slate-900">{t("auth.inviteTitle", { company: invitation.companyName })}</h1>
      <p className="mb-6 mt-1 text-sm text-slate-600">
        {t("auth.inviteSubtitle", { role: t(`team.role.${invitation.role}`) })}
      </p>
      <AcceptInvitationForm token={token} email={invitation.email} />
    </Card>
  );
}
