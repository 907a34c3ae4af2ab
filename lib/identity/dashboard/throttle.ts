import { addressBucket } from "@/lib/http/client-address";
import { rateLimiter } from "@/lib/http/rate-limit";

// Password guessing is slowed by scrypt, and scrypt is what an attacker would make us spend: each
// sign-in or sign-up hashes a password (tens of milliseconds, 32 MiB). So both are capped per client
// address before any hashing, and sign-in per account too (many addresses guessing one password).
// Counted by the shared limiter (lib/http/rate-limit.ts: every instance sees them, within its
// documented bound); these caps hold whatever RATE_LIMIT_PER_MINUTE says.

export const SIGN_IN_ATTEMPTS_PER_MINUTE = 10;
export const SIGN_IN_ATTEMPTS_PER_ADDRESS_PER_MINUTE = 30;
export const SIGN_UPS_PER_ADDRESS_PER_MINUTE = 10;
export const TOO_MANY_ATTEMPTS = "TooManyAttempts";

/** Counts one sign-in attempt from this address for this e-mail; false once either allowance is used up. */
export async function takeSignInAttempt(email: string, address: string): Promise<boolean> {
  if ((await rateLimiter().take(`signin-ip:${addressBucket(address)}`, SIGN_IN_ATTEMPTS_PER_ADDRESS_PER_MINUTE)) > 0)
    return false;
  const account = `signin:${email.trim().toLowerCase().slice(0, 254)}`;
  return (await rateLimiter().take(account, SIGN_IN_ATTEMPTS_PER_MINUTE)) === 0;
}

/** Counts one sign-up from this address; false once the minute's allowance is used up. */
export async function takeSignUpAttempt(address: string): Promise<boolean> {
  return (await rateLimiter().take(`signup-ip:${addressBucket(address)}`, SIGN_UPS_PER_ADDRESS_PER_MINUTE)) === 0;
}
