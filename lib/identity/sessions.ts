import { and, desc, eq, gt, isNull, ne, sql } from "drizzle-orm";
import { db, type Executor } from "@/db";
import { userSessions } from "@/db/schema";
import { env } from "@/lib/env";

// Dashboard sessions on the server. The signed cookie only names a row; the row decides: revoked
// or expired, the cookie is worthless, however long its own signature would last. Signing out,
// "sign out everywhere" and a password change revoke rows.

export type UserSession = typeof userSessions.$inferSelect;
export const SESSION_MAX_AGE_SECONDS = 60 * 60 * 12; // a working day; the dashboard moves money

export async function createSession(
  userId: string,
  from: { ip?: string | null; userAgent?: string | null },
): Promise<UserSession> {
  const [row] = await db()
    .insert(userSessions)
    .values({
      userId,
      expiresAt: sql`now() + make_interval(secs => ${SESSION_MAX_AGE_SECONDS})`,
      ip: from.ip?.slice(0, 64) ?? null,
      userAgent: from.userAgent?.slice(0, 300) ?? null,
    })
    .returning();
  return row;
}

/** The session if it is still good for this user; last_seen_at is refreshed at most once a minute. */
export async function liveSession(sessionId: string, userId: string): Promise<UserSession | null> {
  const [row] = await db()
    .select()
    .from(userSessions)
    .where(
      and(
        eq(userSessions.id, sessionId),
        eq(userSessions.userId, userId),
        isNull(userSessions.revokedAt),
        gt(userSessions.expiresAt, sql`now()`),
      ),
    )
    .limit(1);
  if (!row) return null;
  if (row.lastSeenAt.getTime() < Date.now() - 60_000) {
    await db()
      .update(userSessions)
      .set({ lastSeenAt: sql`now()` })
      .where(eq(userSessions.id, sessionId));
  }
  return row;
}

export async function revokeSession(userId: string, sessionId: string): Promise<boolean> {
  const done = await db()
    .update(userSessions)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(userSessions.id, sessionId), eq(userSessions.userId, userId), isNull(userSessions.revokedAt)))
    .returning({ id: userSessions.id });
  return done.length > 0;
}

/** Every open session of the user, but `keep` (the one asking) when given. */
export async function revokeOtherSessions(userId: string, keep?: string): Promise<number> {
  const done = await db()
    .update(userSessions)
    .set({ revokedAt: sql`now()` })
    .where(
      and(
        eq(userSessions.userId, userId),
        isNull(userSessions.revokedAt),
        keep ? ne(userSessions.id, keep) : undefined,
      ),
    )
    .returning({ id: userSessions.id });
  return done.length;
}

export async function listOpenSessions(userId: string): Promise<UserSession[]> {
  return db()
    .select()
    .from(userSessions)
    .where(and(eq(userSessions.userId, userId), isNull(userSessions.revokedAt), gt(userSessions.expiresAt, sql`now()`)))
    .orderBy(desc(userSessions.lastSeenAt))
    .limit(50);
}

export async function markStepUp(sessionId: string): Promise<void> {
  await db()
    .update(userSessions)
    .set({ stepUpAt: sql`now()` })
    .where(and(eq(userSessions.id, sessionId), isNull(userSessions.factorEnrolledAt)));
}

/**
 * A factor was enrolled on this session: a code from it proves only what this session already had
 * (the password, the mailbox), so the session never counts as stepped up again; signing in anew with
 * the factor does.
 */
export async function markFactorEnrolled(sessionId: string, ex: Executor = db()): Promise<void> {
  await ex
    .update(userSessions)
    .set({ factorEnrolledAt: sql`now()`, stepUpAt: null })
    .where(eq(userSessions.id, sessionId));
}

/** A second factor proved on this session within the last STEP_UP_MINUTES, and not one enrolled on it. */
export function stepUpIsFresh(session: Pick<UserSession, "stepUpAt" | "factorEnrolledAt">, now = Date.now()): boolean {
  if (session.factorEnrolledAt !== null) return false;
  return session.stepUpAt !== null && session.stepUpAt.getTime() > now - env().STEP_UP_MINUTES * 60_000;
}
