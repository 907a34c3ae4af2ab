import type { Metadata } from "next";
import { TeamPanel } from "@/components/security/team-panel";
import { Card, PageHeader } from "@/components/ui/card";
import { requirePermission } from "@/lib/identity/dashboard/session";
import { getI18n } from "@/lib/i18n/server";
import { assignableRoles } from "@/lib/identity/roles";
import { listMembers, pendingInvitations } from "@/lib/identity/team";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getI18n()).t("team.title") };
}

export default async function TeamPage() {
  const { merchant, userId, role } = await requirePermission("team.manage");
  const [{ t }, members, invitations] = await Promise.all([
    getI18n(),
    listMembers(merchant.id),
    pendingInvitations(merchant.id),
  ]);
  const roles = assignableRoles(role);
  return (
    <>
      <PageHeader title={t("team.title")} />
      <Card>
        <TeamPanel
          roles={roles}
          members={members.map((m) => ({
            ...m,
            you: m.id === userId,
            manageable: m.id !== userId && roles.includes(m.role),
          }))}
          invitations={invitations.map((i) => ({ ...i, expiresAt: i.expiresAt.toISOString() }))}
        />
      </Card>
    </>
  );
}
