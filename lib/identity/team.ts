import { and, asc, eq, gt, isNull, sql } from "drizzle-orm";
import { db, type Tx } from "@/db";
import { merchants, teamInvitations, users, type User, type UserRole } from "@/db/schema";
import { Conflict, InvalidInput, NotFound } from "@/lib/errors";
import { isUuid } from "@/lib/ids";
import { hashPassword } from "@/lib/identity/password-hash";
import { assignableRoles } from "./roles";
import { hashLinkToken, isLinkToken, newLinkToken } from "./tokens";

// A merchant's team: members with a role, and invitations mailed to new ones. Who may change whom
// follows lib/identity/roles.ts; a merchant always keeps at least one owner (checked with the
// team's rows locked, so two admins demoting the last two owners at once cannot both succeed).

export const INVITATION_DAYS = 7;

export type Member = Pick<User, "id" | "email" | "name" | "role" | "createdAt"> & { twoFactor: boolean };

export async function listMembers(merchantId: string): Promise<Member[]> {
  const rows = await db()
    .select({
      id: users.id,
      email: users.email,
      name: users.name,
      role: users.role,
      createdAt: users.createdAt,
      totpEnabledAt: users.totpEnabledAt,
    })
    .from(users)
    .where(eq(users.merchantId, merchantId))
    .orderBy(asc(users.createdAt));
  return rows.map(({ totpEnabledAt, ...m }) => ({ ...m, twoFactor: totpEnabledAt !== null }));
}

export async function pendingInvitations(merchantId: string) {
  return db()
    .select({
      id: teamInvitations.id,
      email: teamInvitations.email,
      role: teamInvitations.role,
      expiresAt: teamInvitations.expiresAt,
    })
    .from(teamInvitations)
    .where(
      and(
        eq(teamInvitations.merchantId, merchantId),
        isNull(teamInvitations.acceptedAt),
        isNull(teamInvitations.revokedAt),
        gt(teamInvitations.expiresAt, sql`now()`),
      ),
    )
    .orderBy(asc(teamInvitations.createdAt));
}

function mayAssign(actorRole: UserRole, role: UserRole) {
  if (!assignableRoles(actorRole).includes(role)) throw InvalidInput.of("team.cannotManage");
}

/**
 * A new invitation (earlier pending ones to the same address are retired); the link's token is
 * returned once. An address that is already on this team is refused as such (the Team page lists it
 * anyway). One that has an account with another merchant cannot join (an address belongs to one
 * merchant), but the inviter is not told: that would say who uses the service. The invitation is
 * recorded as any other, and `elsewhere` says to mail its owner why they cannot join, instead of a
 * link (docs/security.md, "Sign-up and invitations").
 */
export async function inviteMember(
  merchantId: string,
  by: { userId: string; role: UserRole },
  email: string,
  role: UserRole,
): Promise<{ id: string; token: string; elsewhere: { email: string; merchantId: string } | null }> {
  mayAssign(by.role, role);
  const normalized = email.trim().toLowerCase();
  const [existing] = await db()
    .select({ email: users.email, merchantId: users.merchantId })
    .from(users)
    .where(eq(sql`lower(${users.email})`, normalized))
    .limit(1);
  if (existing?.merchantId === merchantId) throw Conflict.of("team.alreadyMember");
  const { token, hash } = newLinkToken();
  const id = await db().transaction(async (tx) => {
    await tx
      .update(teamInvitations)
      .set({ revokedAt: sql`now()` })
      .where(
        and(
          eq(teamInvitations.merchantId, merchantId),
          eq(sql`lower(${teamInvitations.email})`, normalized),
          isNull(teamInvitations.acceptedAt),
          isNull(teamInvitations.revokedAt),
        ),
      );
    const [row] = await tx
      .insert(teamInvitations)
      .values({
        merchantId,
        email: normalized,
        role,
        tokenHash: hash,
        invitedBy: by.userId,
        expiresAt: sql`now() + make_interval(days => ${INVITATION_DAYS})`,
      })
      .returning({ id: teamInvitations.id });
    return row.id;
  });
  return { id, token, elsewhere: existing ?? null };
}

export async function revokeInvitation(merchantId: string, id: string): Promise<string> {
  if (!isUuid(id)) throw new NotFound("Invitation not found");
  const [row] = await db()
    .update(teamInvitations)
    .set({ revokedAt: sql`now()` })
    .where(
      and(
        eq(teamInvitations.id, id),
        eq(teamInvitations.merchantId, merchantId),
        isNull(teamInvitations.acceptedAt),
        isNull(teamInvitations.revokedAt),
      ),
    )
    .returning({ email: teamInvitations.email });
  if (!row) throw new NotFound("Invitation not found");
  return row.email;
}

/** The pending invitation behind a link, with its merchant's name, or null. */
export async function openInvitation(token: unknown) {
  if (!isLinkToken(token)) return null;
  const [row] = await db()
    .select({ email: teamInvitations.email, role: teamInvitations.role, companyName: merchants.companyName })
    .from(teamInvitations)
    .innerJoin(merchants, eq(merchants.id, teamInvitations.merchantId))
    .where(
      and(
        eq(teamInvitations.tokenHash, hashLinkToken(token)),
        isNull(teamInvitations.acceptedAt),
        isNull(teamInvitations.revokedAt),
        gt(teamInvitations.expiresAt, sql`now()`),
      ),
    )
    .limit(1);
  return row ?? null;
}

/** Spends the invitation and creates the member, in one transaction. */
export async function acceptInvitation(token: unknown, input: { name: string; password: string }): Promise<User> {
  if (!isLinkToken(token)) throw InvalidInput.of("auth.inviteInvalid");
  const passwordHash = await hashPassword(input.password);
  return db().transaction(async (tx) => {
    const [inv] = await tx
      .update(teamInvitations)
      .set({ acceptedAt: sql`now()` })
      .where(
        and(
          eq(teamInvitations.tokenHash, hashLinkToken(token)),
          isNull(teamInvitations.acceptedAt),
          isNull(teamInvitations.revokedAt),
          gt(teamInvitations.expiresAt, sql`now()`),
        ),
      )
      .returning();
    if (!inv) throw InvalidInput.of("auth.inviteInvalid");
    const [user] = await tx
      .insert(users)
      .values({
        merchantId: inv.merchantId,
        email: inv.email,
        name: input.name.trim() || null,
        passwordHash,
        role: inv.role,
      })
      .onConflictDoNothing()
      .returning();
    if (!user) throw Conflict.of("team.alreadyMember");
    return user;
  });
}

async function lockTeam(tx: Tx, merchantId: string) {
  return tx
    .select({ id: users.id, role: users.role, email: users.email })
    .from(users)
    .where(eq(users.merchantId, merchantId))
    .for("update");
}

function target(team: Awaited<ReturnType<typeof lockTeam>>, userId: string) {
  const found = team.find((m) => m.id === userId);
  if (!found) throw new NotFound("Member not found");
  return found;
}

function keepsAnOwner(team: Awaited<ReturnType<typeof lockTeam>>, changed: string) {
  if (!team.some((m) => m.role === "owner" && m.id !== changed)) throw InvalidInput.of("team.lastOwner");
}

export async function changeRole(
  merchantId: string,
  actorRole: UserRole,
  userId: string,
  role: UserRole,
): Promise<{ email: string; from: UserRole }> {
  if (!isUuid(userId)) throw new NotFound("Member not found");
  mayAssign(actorRole, role);
  return db().transaction(async (tx) => {
    const team = await lockTeam(tx, merchantId);
    const member = target(team, userId);
    mayAssign(actorRole, member.role);
    if (member.role === "owner" && role !== "owner") keepsAnOwner(team, userId);
    await tx.update(users).set({ role }).where(eq(users.id, userId));
    return { email: member.email, from: member.role };
  });
}

/** Removes a member; their sessions, codes and links go with the row (ON DELETE CASCADE). */
export async function removeMember(merchantId: string, actorRole: UserRole, userId: string): Promise<string> {
  if (!isUuid(userId)) throw new NotFound("Member not found");
  return db().transaction(async (tx) => {
    const team = await lockTeam(tx, merchantId);
    const member = target(team, userId);
    mayAssign(actorRole, member.role);
    if (member.role === "owner") keepsAnOwner(team, userId);
    await tx.delete(users).where(and(eq(users.id, userId), eq(users.merchantId, merchantId)));
    return member.email;
  });
}
