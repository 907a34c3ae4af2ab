import { and, desc, eq, gt, isNull, lt, sql } from "drizzle-orm";
import { createHash, randomInt } from "node:crypto";
import { db, type Executor } from "@/db";
import { emailCodes } from "@/db/schema";

// One-time codes mailed to a user, to prove they read their mailbox as well as know their password
// (enrolling a second factor: docs/security.md). Six digits, CODE_MINUTES, at most MAX_ATTEMPTS
// tries each; a new code retires the older ones. Only a SHA-256 is stored, salted with the user's id
// and the purpose so one table of a million hashes does not read every row.

export type EmailCodePurpose = (typeof emailCodes.$inferSelect)["purpose"];

export const CODE_MINUTES = 10;
export const MAX_ATTEMPTS = 5;

const hash = (userId: string, purpose: EmailCodePurpose, code: string) =>
  createHash("sha256").update(`${purpose}:${userId}:${code}`).digest("hex");

/** A fresh code for `purpose` (the caller mails it); every older unused one stops working. */
export async function issueEmailCode(userId: string, purpose: EmailCodePurpose, ex: Executor = db()): Promise<string> {
  const code = String(randomInt(0, 1_000_000)).padStart(6, "0");
  await ex
    .update(emailCodes)
    .set({ usedAt: sql`now()` })
    .where(and(eq(emailCodes.userId, userId), eq(emailCodes.purpose, purpose), isNull(emailCodes.usedAt)));
  await ex.insert(emailCodes).values({
    userId,
    purpose,
    codeHash: hash(userId, purpose, code),
    expiresAt: sql`now() + make_interval(mins => ${CODE_MINUTES})`,
  });
  return code;
}

/**
 * Spends the user's newest live code when `code` is it: true once. Every try counts against the
 * code's MAX_ATTEMPTS, right or wrong, in the same statement that checks it, so concurrent tries
 * cannot exceed it and two requests with the right code cannot both pass.
 */
export async function consumeEmailCode(
  userId: string,
  purpose: EmailCodePurpose,
  code: string,
  ex: Executor = db(),
): Promise<boolean> {
  const typed = code.replace(/\s+/g, "");
  if (!/^\d{6}$/.test(typed)) {
    // Still a try: a malformed code costs the same as a wrong one.
    await spendAttempt(userId, purpose, null, ex);
    return false;
  }
  return spendAttempt(userId, purpose, hash(userId, purpose, typed), ex);
}

async function spendAttempt(
  userId: string,
  purpose: EmailCodePurpose,
  codeHash: string | null,
  ex: Executor,
): Promise<boolean> {
  const [newest] = await ex
    .select({ id: emailCodes.id })
    .from(emailCodes)
    .where(
      and(
        eq(emailCodes.userId, userId),
        eq(emailCodes.purpose, purpose),
        isNull(emailCodes.usedAt),
        gt(emailCodes.expiresAt, sql`now()`),
      ),
    )
    .orderBy(desc(emailCodes.createdAt))
    .limit(1);
  if (!newest) return false;
  const matches = codeHash === null ? sql`false` : sql`${emailCodes.codeHash} = ${codeHash}`;
  const [row] = await ex
    .update(emailCodes)
    .set({ attempts: sql`${emailCodes.attempts} + 1`, usedAt: sql`case when ${matches} then now() end` })
    .where(
      and(
        eq(emailCodes.id, newest.id),
        isNull(emailCodes.usedAt),
        lt(emailCodes.attempts, MAX_ATTEMPTS),
        gt(emailCodes.expiresAt, sql`now()`),
      ),
    )
    .returning({ usedAt: emailCodes.usedAt });
  return row?.usedAt != null;
}

/** Codes that decide nothing any more (used or expired a day ago), for the sweep. */
export async function purgeEmailCodes(): Promise<number> {
  const gone = await db()
    .delete(emailCodes)
    .where(lt(emailCodes.expiresAt, sql`now() - interval '1 day'`))
    .returning({ id: emailCodes.id });
  return gone.length;
}
