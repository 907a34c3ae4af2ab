import { and, count, eq, isNull, lt, or, sql } from "drizzle-orm";
import { createHash, randomInt } from "node:crypto";
import { db } from "@/db";
import { recoveryCodes, users } from "@/db/schema";
import { Conflict, InvalidInput } from "@/lib/errors";
import { seal, unseal } from "./sealed";
import { matchTotp, newTotpSecret, totpUri } from "./totp";

// A user's second factor: a TOTP authenticator, and ten one-time recovery codes for when it is
// lost. Enrolment stores the secret first and turns it on only once the user proves their app
// produces codes for it. A code is good once: the step it matched is recorded with a conditional
// UPDATE, so two requests racing with the same code cannot both pass.

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
  if (!user) throw new InvalidInput("security.userGone");
  return user;
}

/** Step one: a new secret for the authenticator app (shown as a QR code and as text). */
export async function beginTotpEnrollment(userId: string): Promise<{ secret: string; uri: string }> {
  const user = await loadUser(userId);
  if (user.totpEnabledAt) throw new Conflict("security.twoFactorAlreadyOn");
  const secret = newTotpSecret();
  await db()
    .update(users)
    .set({ totpSecret: seal(SEAL, secret), totpLastStep: null })
    .where(and(eq(users.id, userId), isNull(users.totpEnabledAt)));
  return { secret, uri: totpUri(secret, user.email) };
}

/** Step two: a code from the app turns 2FA on; the recovery codes are returned this once. */
export async function confirmTotpEnrollment(userId: string, code: string): Promise<string[]> {
  const user = await loadUser(userId);
  if (user.totpEnabledAt) throw new Conflict("security.twoFactorAlreadyOn");
  const secret = user.totpSecret ? unseal(SEAL, user.totpSecret) : null;
  if (!secret) throw new InvalidInput("security.enrollAgain");
  const step = matchTotp(secret, code);
  if (step === null) throw new InvalidInput("security.wrongCode");
  const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
  await db().transaction(async (tx) => {
    const done = await tx
      .update(users)
      .set({ totpEnabledAt: sql`now()`, totpLastStep: step })
      .where(and(eq(users.id, userId), isNull(users.totpEnabledAt)))
      .returning({ id: users.id });
    if (done.length === 0) throw new Conflict("security.twoFactorAlreadyOn");
    await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
    await tx.insert(recoveryCodes).values(codes.map((c) => ({ userId, codeHash: hashCode(c) })));
  });
  return codes;
}

export type SecondFactor = "totp" | "recovery";

/** Checks a TOTP code or an unused recovery code, spending it; null when it does not count. */
export async function verifySecondFactor(userId: string, code: string): Promise<SecondFactor | null> {
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
    .where(and(eq(recoveryCodes.userId, userId), eq(recoveryCodes.codeHash, hashCode(trimmed)), isNull(recoveryCodes.usedAt)))
    .returning({ id: recoveryCodes.id });
  return used.length ? "recovery" : null;
}

/** Turning 2FA off needs a valid second factor, like any other change that weakens the account. */
export async function disableTwoFactor(userId: string, code: string): Promise<void> {
  if (!(await verifySecondFactor(userId, code))) throw new InvalidInput("security.wrongCode");
  await db().transaction(async (tx) => {
    await tx.update(users).set({ totpSecret: null, totpEnabledAt: null, totpLastStep: null }).where(eq(users.id, userId));
    await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
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
