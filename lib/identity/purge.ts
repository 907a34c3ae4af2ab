import { and, isNotNull, lt, or, sql } from "drizzle-orm";
import { db } from "@/db";
import { passwordResets, teamInvitations, userSessions } from "@/db/schema";
import { purgeEmailCodes } from "./email-codes";

// Account-security rows that no longer decide anything: sessions ended a month ago (the sessions list
// shows open ones only), spent or expired reset links and mailed codes, invitations long expired. Run
// by the sweep.
// The audit trail keeps what happened; these tables only decide what is still allowed.

export async function purgeSpentAccountRows(): Promise<number> {
  const monthAgo = sql`now() - interval '30 days'`;
  const sessions = await db()
    .delete(userSessions)
    .where(
      or(
        lt(userSessions.expiresAt, monthAgo),
        and(isNotNull(userSessions.revokedAt), lt(userSessions.revokedAt, monthAgo)),
      ),
    )
    .returning({ id: userSessions.id });
  const resets = await db()
    .delete(passwordResets)
    .where(lt(passwordResets.expiresAt, sql`now() - interval '1 day'`))
    .returning({ id: passwordResets.id });
  const invitations = await db()
    .delete(teamInvitations)
    .where(lt(teamInvitations.expiresAt, monthAgo))
    .returning({ id: teamInvitations.id });
  const codes = await purgeEmailCodes();
  return sessions.length + resets.length + invitations.length + codes;
}
