import { eq, sql } from "drizzle-orm";
import { db } from "@/db";
import { factorFailures, users } from "@/db/schema";
import { DomainError } from "@/lib/errors";
import { addressBucket } from "@/lib/http/client-address";
import { rateLimiter } from "@/lib/http/rate-limit";
import { formatDateTime, type Locale } from "@/lib/i18n";
import { sendMail } from "@/lib/mail/mailer";
import { factorFailuresMail } from "@/lib/mail/messages";
import { log } from "@/lib/log";
import { alertAdmins } from "./alerts";
import { audit, type Actor } from "./audit";

// Every check of a second factor (the sign-in code, a step-up, turning 2FA off, a recovery code, the
// code mailed to enrol) is rationed, so six digits cannot be guessed by asking often enough
// (docs/security.md, "Wrong codes"):
//  - per user (factor_failures): the 5th wrong code in a row locks the user's checks for 1 minute,
//    each further one doubles it (2, 4, 8 … minutes), capped at an hour. A right code resets the count;
//    so does a day without failures. While locked, no code is even looked at: the right one fails too.
//  - per client address: 30 wrong codes a minute, whoever they were for (one address spraying many
//    accounts), counted by the shared limiter (lib/http/rate-limit.ts).
// Each check is counted as a failure *before* the code is compared and un-counted when it was right:
// requests racing each other cannot slip more guesses past the lock than the count allows.

export const LOCK_AFTER_FAILURES = 5;
export const FIRST_LOCK_SECONDS = 60;
export const MAX_LOCK_SECONDS = 60 * 60;
export const FAILURES_PER_ADDRESS_PER_MINUTE = 30;
/** Failures older than this no longer count towards a lock. */
const FORGET_AFTER = sql`interval '24 hours'`;

/** Which check failed, for the audit trail and the alert. */
export type FactorCheck = "signIn" | "stepUp" | "disable" | "enrolEmail";

/** Second-factor checks refused for a while; the dashboard words it from its code (lib/i18n/api-errors.ts). */
export class FactorLocked extends DomainError {
  override readonly status: number = 429;
  constructor(readonly retryAfterSeconds: number) {
    const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
    super(`Too many wrong codes. Try again in ${minutes} min.`, { code: "security.factorLocked", values: { minutes } });
  }
}

/** The user is mailed at the 5th, 10th, 20th, 40th … failure in a row; owners and admins from the 10th on. */
export function alertAt(failures: number): { user: boolean; admins: boolean } {
  const user = failures >= LOCK_AFTER_FAILURES && Number.isInteger(Math.log2(failures / LOCK_AFTER_FAILURES));
  return { user, admins: user && failures >= 2 * LOCK_AFTER_FAILURES };
}

const addressKey = (ip: string | null) => `factor-fail-ip:${addressBucket(ip ?? "unknown")}`;

function secondsUntil(at: Date | null): number {
  return at ? Math.max(1, Math.ceil((at.getTime() - Date.now()) / 1000)) : FIRST_LOCK_SECONDS;
}

/**
 * Counts one check as a failure, unless the user's checks are locked (then throws FactorLocked and
 * counts nothing). Returns the count, this check included.
 */
async function reserve(userId: string): Promise<{ failures: number; lockedUntil: Date | null }> {
  const failures = sql`(case when ${factorFailures.lastFailureAt} < now() - ${FORGET_AFTER} then 1 else ${factorFailures.failures} + 1 end)`;
  // From the LOCK_AFTER_FAILURES-th failure in a row, a lock doubling from FIRST_LOCK_SECONDS up to
  // MAX_LOCK_SECONDS, in SQL so the count and the lock it implies are written by one statement.
  const lock = sql`case when ${failures} >= ${LOCK_AFTER_FAILURES}::int
    then now() + make_interval(secs => least(${MAX_LOCK_SECONDS}::float8, ${FIRST_LOCK_SECONDS}::float8 * power(2::float8, least(${failures} - ${LOCK_AFTER_FAILURES}::int, 20)::float8))) end`;
  const [row] = await db()
    .insert(factorFailures)
    .values({ userId, failures: 1, lastFailureAt: sql`now()`, lockedUntil: null })
    .onConflictDoUpdate({
      target: factorFailures.userId,
      set: { failures, lastFailureAt: sql`now()`, lockedUntil: lock },
      setWhere: sql`${factorFailures.lockedUntil} is null or ${factorFailures.lockedUntil} <= now()`,
    })
    .returning({ failures: factorFailures.failures, lockedUntil: factorFailures.lockedUntil });
  if (row) return row;
  const [locked] = await db()
    .select({ until: factorFailures.lockedUntil })
    .from(factorFailures)
    .where(eq(factorFailures.userId, userId))
    .limit(1);
  throw new FactorLocked(secondsUntil(locked?.until ?? null));
}

/** Until when the user's second-factor checks are locked, or null. */
export async function factorLockedUntil(userId: string): Promise<Date | null> {
  const [row] = await db()
    .select({ until: factorFailures.lockedUntil })
    .from(factorFailures)
    .where(eq(factorFailures.userId, userId))
    .limit(1);
  return row?.until && row.until.getTime() > Date.now() ? row.until : null;
}

/**
 * Runs one second-factor check for `actor` (a user): refused with FactorLocked while the user or the
 * address is locked out, counted and audited when `verify` answers null, forgotten when it answers.
 */
export async function rationedFactorCheck<T>(
  actor: Actor & { userId: string },
  check: FactorCheck,
  locale: Locale,
  verify: () => Promise<T | null>,
): Promise<T | null> {
  const perAddress = rateLimiter().peek(addressKey(actor.ip), FAILURES_PER_ADDRESS_PER_MINUTE);
  if (perAddress > 0) throw new FactorLocked(perAddress);
  const { failures, lockedUntil } = await reserve(actor.userId);
  let result: T | null = null;
  try {
    result = await verify();
  } finally {
    if (result !== null) {
      await db()
        .update(factorFailures)
        .set({ failures: 0, lockedUntil: null })
        .where(eq(factorFailures.userId, actor.userId));
    }
  }
  if (result !== null) return result;
  await rateLimiter().take(addressKey(actor.ip), FAILURES_PER_ADDRESS_PER_MINUTE);
  await audit(actor, "twoFactor.failed", actor.userId, { check, failures });
  if (lockedUntil) {
    await audit(actor, "twoFactor.locked", actor.userId, { check, failures, until: lockedUntil.toISOString() });
    await alertOnFailures(actor, failures, lockedUntil, locale);
  }
  return null;
}

async function alertOnFailures(
  actor: Actor & { userId: string },
  failures: number,
  until: Date,
  locale: Locale,
): Promise<void> {
  const who = alertAt(failures);
  if (!who.user) return;
  try {
    const [user] = await db()
      .select({ email: users.email, merchantId: users.merchantId })
      .from(users)
      .where(eq(users.id, actor.userId))
      .limit(1);
    if (!user) return;
    const vars = { count: failures, until: formatDateTime(until, locale), ip: actor.ip ?? "?" };
    await sendMail({ ...factorFailuresMail(locale, vars), to: user.email, merchantId: user.merchantId });
    if (who.admins)
      await alertAdmins(
        { ...actor, merchantId: user.merchantId },
        "factorFailures",
        `${user.email} (${failures})`,
        locale,
      );
  } catch (err) {
    // The lock stands whether or not the mail left.
    log.warn("second-factor failure alert not sent", { err });
  }
}
