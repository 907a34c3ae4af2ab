import { and, eq, gt, isNull, sql } from "drizzle-orm";
import { db } from "@/db";
import { passwordResets, userSessions, users, type User } from "@/db/schema";
import { InvalidInput } from "@/lib/errors";
import { hashPassword, verifyPassword } from "@/lib/identity/password-hash";
import { hashLinkToken, isLinkToken, newLinkToken } from "./tokens";

// Changing a password (knowing the current one) and resetting it through a mailed link. Both end
// the user's other sessions: whoever held the old password may hold a session too. A reset does
// not touch the second factor: a stolen mailbox alone still cannot sign in.

export const RESET_MINUTES = 30;

export async function changePassword(
  userId: string,
  current: string,
  next: string,
  keepSessionId: string,
): Promise<number> {
  const [user] = await db().select().from(users).where(eq(users.id, userId)).limit(1);
  if (!user || !(await verifyPassword(current, user.passwordHash))) throw InvalidInput.of("security.wrongPassword");
  const passwordHash = await hashPassword(next);
  return db().transaction(async (tx) => {
    await tx
      .update(users)
      .set({ passwordHash, passwordChangedAt: sql`now()` })
      .where(eq(users.id, userId));
    const revoked = await tx
      .update(userSessions)
      .set({ revokedAt: sql`now()` })
      .where(
        and(
          eq(userSessions.userId, userId),
          isNull(userSessions.revokedAt),
          sql`${userSessions.id} <> ${keepSessionId}`,
        ),
      )
      .returning({ id: userSessions.id });
    return revoked.length;
  });
}

/** A reset link for the account with this e-mail, or null when there is none (the caller answers the same either way). */
export async function createPasswordReset(email: string): Promise<{ user: User; token: string } | null> {
  const normalized = email.trim().toLowerCase();
  if (normalized === "" || normalized.length > 254) return null;
  const [user] = await db()
    .select()
    .from(users)
    .where(eq(sql`lower(${users.email})`, normalized))
    .limit(1);
  if (!user) return null;
  const { token, hash } = newLinkToken();
  await db().transaction(async (tx) => {
    // Only the newest link works: asking again retires the earlier ones.
    await tx
      .update(passwordResets)
      .set({ usedAt: sql`now()` })
      .where(and(eq(passwordResets.userId, user.id), isNull(passwordResets.usedAt)));
    await tx
      .insert(passwordResets)
      .values({ userId: user.id, tokenHash: hash, expiresAt: sql`now() + make_interval(mins => ${RESET_MINUTES})` });
  });
  return { user, token };
}

/** Whether a reset link still works (for the page that asks for the new password). */
export async function resetLinkIsLive(token: unknown): Promise<boolean> {
  if (!isLinkToken(token)) return false;
  const [row] = await db()
    .select({ id: passwordResets.id })
    .from(passwordResets)
    .where(
      and(
        eq(passwordResets.tokenHash, hashLinkToken(token)),
        isNull(passwordResets.usedAt),
        gt(passwordResets.expiresAt, sql`now()`),
      ),
    )
    .limit(1);
  return Boolean(row);
}

/** Spends the link (once, even under concurrent submits), sets the password and ends every session. */
export async function resetPassword(token: unknown, next: string): Promise<User> {
  if (!isLinkToken(token)) throw InvalidInput.of("auth.resetInvalid");
  const passwordHash = await hashPassword(next);
  return db().transaction(async (tx) => {
    const [spent] = await tx
      .update(passwordResets)
      .set({ usedAt: sql`now()` })
      .where(
        and(
          eq(passwordResets.tokenHash, hashLinkToken(token)),
          isNull(passwordResets.usedAt),
          gt(passwordResets.expiresAt, sql`now()`),
        ),
      )
      .returning({ userId: passwordResets.userId });
    if (!spent) throw InvalidInput.of("auth.resetInvalid");
    const [user] = await tx
      .update(users)
      .set({ passwordHash, passwordChangedAt: sql`now()` })
      .where(eq(users.id, spent.userId))
      .returning();
    await tx
      .update(userSessions)
      .set({ revokedAt: sql`now()` })
      .where(and(eq(userSessions.userId, spent.userId), isNull(userSessions.revokedAt)));
    return user;
  });
}
