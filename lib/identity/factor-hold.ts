import { and, eq, isNotNull, sql } from "drizzle-orm";
import { db, type Executor } from "@/db";
import { users, type User } from "@/db/schema";
import { env } from "@/lib/env";

// A user whose second factor was enrolled or removed recently is held: their money moves and other
// step-up actions wait until another owner confirms the change (dashboard, or the link mailed to the
// owners) or FACTOR_CHANGE_HOLD_HOURS pass. Whoever got hold of a password and a mailbox gets a
// day's delay and the owners a warning, not the money (docs/security.md, "Second-factor changes").

type FactorState = Pick<User, "factorChangedAt" | "factorConfirmedAt">;

/** Until when the user's last factor change holds their money moves, or null when it does not. */
export function factorHeldUntil(
  u: FactorState,
  now = Date.now(),
  holdHours = env().FACTOR_CHANGE_HOLD_HOURS,
): Date | null {
  if (holdHours === 0 || !u.factorChangedAt) return null;
  const until = u.factorChangedAt.getTime() + holdHours * 3_600_000;
  if (until <= now) return null;
  if (u.factorConfirmedAt && u.factorConfirmedAt.getTime() >= u.factorChangedAt.getTime()) return null;
  return new Date(until);
}

/** Records a change of the user's factor (enrolled, removed): the hold starts again, unconfirmed. */
export async function startFactorHold(userId: string, ex: Executor): Promise<void> {
  await ex
    .update(users)
    .set({ factorChangedAt: sql`now()`, factorConfirmedAt: null, factorConfirmedBy: null })
    .where(eq(users.id, userId));
}

/**
 * Confirms `subjectId`'s latest factor change (by an owner, or by a mailed link: `by` null). Only a
 * change still unconfirmed, of a member of `merchantId`; the member's e-mail, or null when there was
 * nothing to confirm.
 */
export async function confirmFactorChange(
  merchantId: string,
  subjectId: string,
  by: string | null,
  ex: Executor = db(),
): Promise<string | null> {
  const [row] = await ex
    .update(users)
    .set({ factorConfirmedAt: sql`now()`, factorConfirmedBy: by })
    .where(
      and(
        eq(users.id, subjectId),
        eq(users.merchantId, merchantId),
        isNotNull(users.factorChangedAt),
        sql`(${users.factorConfirmedAt} is null or ${users.factorConfirmedAt} < ${users.factorChangedAt})`,
      ),
    )
    .returning({ email: users.email });
  return row?.email ?? null;
}

export type HeldMember = {
  id: string;
  email: string;
  role: User["role"];
  twoFactor: boolean;
  changedAt: Date;
  heldUntil: Date;
};

/** Members of the merchant whose factor change is still held, for the owners to confirm. */
export async function heldMembers(merchantId: string, now = Date.now()): Promise<HeldMember[]> {
  const rows = await db()
    .select()
    .from(users)
    .where(and(eq(users.merchantId, merchantId), isNotNull(users.factorChangedAt)));
  return rows.flatMap((u) => {
    const heldUntil = factorHeldUntil(u, now);
    return heldUntil && u.factorChangedAt
      ? [
          {
            id: u.id,
            email: u.email,
            role: u.role,
            twoFactor: u.totpEnabledAt !== null,
            changedAt: u.factorChangedAt,
            heldUntil,
          },
        ]
      : [];
  });
}
