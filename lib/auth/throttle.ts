import { sql } from "drizzle-orm";
import { db } from "@/db";

// Password guessing is slowed by scrypt; this caps it per account as well: at most a few sign-in
// attempts per e-mail per minute, counted in the shared rate_limits table (one upsert, every
// instance sees it; old windows are purged with the API's).

export const SIGN_IN_ATTEMPTS_PER_MINUTE = 10;
export const TOO_MANY_ATTEMPTS = "TooManyAttempts";

/** Counts one attempt for this e-mail; false once the minute's allowance is used up. */
export async function takeSignInAttempt(email: string): Promise<boolean> {
  const key = `signin:${email.trim().toLowerCase().slice(0, 254)}`;
  const [row] = await db().execute<{ count: number }>(sql`
    insert into rate_limits (key, window_start, count) values (${key}, date_trunc('minute', now()), 1)
    on conflict (key, window_start) do update set count = rate_limits.count + 1
    returning count`);
  return Number(row.count) <= SIGN_IN_ATTEMPTS_PER_MINUTE;
}
