import { and, count, eq, isNull, lt, or, sql } from "drizzle-orm";
import { createHash, randomInt } from "node:crypto";
import { db } from "@/db";
import { recoveryCodes, users } from "@/db/schema";
import { Conflict, InvalidInput } from "@/lib/errors";
import type { Locale } from "@/lib/i18n";
import { verifyPassword } from "@/lib/identity/password-hash";
import { audit, type Actor } from "./audit";
import { issueEmailCode, consumeEmailCode } from "./email-codes";
import { rationedFactorCheck, type FactorCheck } from "./factor-attempts";
import { retireFactorLinks } from "./factor-change";
import { startFactorHold } from "./factor-hold";
import { seal, unseal } from "./sealed";
import { markFactorEnrolled } from "./sessions";
import { matchTotp, newTotpSecret, totpUri } from "./totp";

// A user's second factor: a TOTP authenticator, and ten one-time recovery codes for when it is
// lost. Enrolment needs the password again and a code mailed to the user, stores the secret first
// and turns it on only once the user proves their app produces codes for it. A code is good once:
// the step it matched is recorded with a conditional UPDATE, so two requests racing with the same
// code cannot both pass. Every check is rationed (lib/identity/factor-attempts.ts).

const SEAL = "totp";
const RECOVERY_CODES = 10;
const ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"; // no 0/o, 1/l/i: read off paper

const hashCode = (code: string) => createHash("sha256").update(code.replace(/[\s-]/g, "").toLowerCase()).digest("hex");

function newRecoveryCode(): string {
  const chars = Array.from({ length: 10 }, () => ALPHABET[randomInt(ALPHABET.length)]);
  return `${chars.slice(0, 5).join("")}-${chars.slice(5).join("")}`;
}

async function loadUser(userId: string) {
  const [user] = await db().select().from(users).where(eq(users.id, userId)).limit(1);
  if (!user) throw InvalidInput.of("security.userGone");
  return user;
}

/**
 * Step one, for a user without a factor: the password again (a session alone does not enrol), then
 * a new secret for the authenticator app (shown as a QR code and as text) and a code for the caller
 * to mail to the user. Neither turns anything on: step two needs both the app's code and the mailed one.
 */
export async function beginTotpEnrollment(
  userId: string,
  password: string,
): Promise<{ secret: string; uri: string; emailCode: string }> {
  const user = await loadUser(userId);
  if (user.totpEnabledAt) throw Conflict.of("security.twoFactorAlreadyOn");
  if (password.length > 1024 || !(await verifyPassword(password, user.passwordHash)))
    throw InvalidInput.of("security.wrongPassword");
  const secret = newTotpSecret();
  const emailCode = await db().transaction(async (tx) => {
    await tx
      .update(users)
      .set({ totpSecret: seal(SEAL, secret), totpLastStep: null })
      .where(and(eq(users.id, userId), isNull(users.totpEnabledAt)));
    return issueEmailCode(userId, "enrol_factor", tx);
  });
  return { secret, uri: totpUri(secret, user.email), emailCode };
}

/** Who is checking a code, from where, in which language alerts go out (lib/identity/factor-attempts.ts). */
export type FactorContext = { actor: Actor & { userId: string }; locale: Locale };

/**
 * Step two: a code from the app and the code mailed in step one turn 2FA on, and the recovery codes
 * are returned this once. The mailed code is rationed like every second-factor check. The change
 * starts the member's hold and marks `sessionId` as the one it was enrolled on, which never counts
 * as stepped up (lib/identity/sessions.ts).
 */
export async function confirmTotpEnrollment(
  ctx: FactorContext,
  codes: { app: string; email: string },
  sessionId: string | null,
): Promise<string[]> {
  const userId = ctx.actor.userId;
  const user = await loadUser(userId);
  if (user.totpEnabledAt) throw Conflict.of("security.twoFactorAlreadyOn");
  const secret = user.totpSecret ? unseal(SEAL, user.totpSecret) : null;
  if (!secret) throw InvalidInput.of("security.enrollAgain");
  // The app's code first: it proves only that the app was set up (the secret was just shown), so a
  // typo there is not a guess and must not spend the mailed code.
  const step = matchTotp(secret, codes.app);
  if (step === null) throw InvalidInput.of("security.wrongCode");
  const mailed = await rationedFactorCheck(ctx.actor, "enrolEmail", ctx.locale, async () =>
    (await consumeEmailCode(userId, "enrol_factor", codes.email)) ? true : null,
  );
  if (!mailed) throw InvalidInput.of("security.wrongEmailCode");
  const recovery = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
  await db().transaction(async (tx) => {
    const done = await tx
      .update(users)
      .set({ totpEnabledAt: sql`now()`, totpLastStep: step })
      .where(and(eq(users.id, userId), isNull(users.totpEnabledAt)))
      .returning({ id: users.id });
    if (done.length === 0) throw Conflict.of("security.twoFactorAlreadyOn");
    await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
    await tx.insert(recoveryCodes).values(recovery.map((c) => ({ userId, codeHash: hashCode(c) })));
    await startFactorHold(userId, tx);
    await retireFactorLinks(userId, tx);
    if (sessionId) await markFactorEnrolled(sessionId, tx);
  });
  return recovery;
}

export type SecondFactor = "totp" | "recovery";

/** Checks a TOTP code or an unused recovery code, spending it; null when it does not count. Unrationed: callers use verifySecondFactor. */
async function matchSecondFactor(userId: string, code: string): Promise<SecondFactor | null> {
  const trimmed = code.trim();
  if (trimmed === "" || trimmed.length > 32) return null;
  const user = await loadUser(userId);
  if (!user.totpEnabledAt || !user.totpSecret) return null;
  if (/^\d[\d\s]*$/.test(trimmed)) {
    const secret = unseal(SEAL, user.totpSecret);
    const step = secret ? matchTotp(secret, trimmed) : null;
    if (step === null) return null;
    const spent = await db()
      .update(users)
      .set({ totpLastStep: step })
      .where(and(eq(users.id, userId), or(isNull(users.totpLastStep), lt(users.totpLastStep, step))))
      .returning({ id: users.id });
    return spent.length ? "totp" : null;
  }
  const used = await db()
    .update(recoveryCodes)
    .set({ usedAt: sql`now()` })
    .where(
      and(
        eq(recoveryCodes.userId, userId),
        eq(recoveryCodes.codeHash, hashCode(trimmed)),
        isNull(recoveryCodes.usedAt),
      ),
    )
    .returning({ id: recoveryCodes.id });
  return used.length ? "recovery" : null;
}

/**
 * Checks a second factor (app code or recovery code) for `check`, spending it: null when it does not
 * count. Rationed per user and per address (lib/identity/factor-attempts.ts): throws FactorLocked
 * while locked out, whatever the code. A recovery code used is audited here.
 */
export async function verifySecondFactor(
  ctx: FactorContext,
  check: FactorCheck,
  code: string,
): Promise<SecondFactor | null> {
  const factor = await rationedFactorCheck(ctx.actor, check, ctx.locale, () =>
    matchSecondFactor(ctx.actor.userId, code),
  );
  if (factor === "recovery") await audit(ctx.actor, "twoFactor.recoveryCodeUsed", ctx.actor.userId, { check });
  return factor;
}

/**
 * Turning 2FA off (to replace a lost or changed authenticator too) needs the factor itself or a
 * recovery code, like any other change that weakens the account; it is a factor change (alert, hold).
 */
export async function disableTwoFactor(ctx: FactorContext, code: string): Promise<void> {
  if (!(await verifySecondFactor(ctx, "disable", code))) throw InvalidInput.of("security.wrongCode");
  const userId = ctx.actor.userId;
  await db().transaction(async (tx) => {
    await tx
      .update(users)
      .set({ totpSecret: null, totpEnabledAt: null, totpLastStep: null })
      .where(eq(users.id, userId));
    await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
    await startFactorHold(userId, tx);
    await retireFactorLinks(userId, tx);
  });
}

export async function twoFactorStatus(userId: string): Promise<{ enabled: boolean; recoveryCodesLeft: number }> {
  const user = await loadUser(userId);
  const [left] = await db()
    .select({ n: count() })
    .from(recoveryCodes)
    .where(and(eq(recoveryCodes.userId, userId), isNull(recoveryCodes.usedAt)));
  return { enabled: user.totpEnabledAt !== null, recoveryCodesLeft: Number(left?.n ?? 0) };
}
