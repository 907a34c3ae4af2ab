import "server-only";
import type { JWT } from "next-auth/jwt";
import { DEFAULT_LOCALE, isLocale, LANG_COOKIE, type Locale } from "@/lib/i18n";
import { audit } from "@/lib/identity/audit";
import { FactorLocked } from "@/lib/identity/factor-attempts";
import { isStorableText } from "@/lib/storable-text";
import { createSession, revokeSession } from "@/lib/identity/sessions";
import { verifySecondFactor } from "@/lib/identity/two-factor";
import { addressOf, headerGetter, type HeaderBag } from "./request-address";
import { takeSignInAttempt, TOO_MANY_ATTEMPTS } from "./throttle";
import { authenticate } from "./users";

// Sign-in: password first, then the second factor when the user has one. The sign-in code is not a
// step-up: moving money asks for a code of its own, so a session left open (or taken over) cannot
// withdraw on the strength of how it began. Every outcome but a malformed form is audited. The code
// is rationed like every second-factor check (lib/identity/factor-attempts.ts): locked out, even
// the right one is refused.

/** next-auth hands a thrown message to the sign-in form as `error`. */
export const TWO_FACTOR_LOCKED = "TwoFactorLocked";

/** The visitor's language from the request's `lang` cookie (alert mails are written in it). */
function localeOf(headers: { get(name: string): string | null }): Locale {
  const lang = new RegExp(`(?:^|;\\s*)${LANG_COOKIE}=([^;]*)`).exec(headers.get("cookie") ?? "")?.[1];
  return isLocale(lang) ? lang : DEFAULT_LOCALE;
}

export async function signInWithPassword(credentials: Record<string, string | undefined>, rawHeaders: HeaderBag) {
  const email = String(credentials.email ?? "");
  // No stored e-mail holds a NUL, and PostgreSQL would refuse the throttle's key: wrong credentials.
  if (!isStorableText(email)) return null;
  const headers = headerGetter(rawHeaders);
  const ip = addressOf(headers);
  // Before the password is hashed. next-auth hands a thrown message to the sign-in form as `error`.
  if (!(await takeSignInAttempt(email, ip))) throw new Error(TOO_MANY_ATTEMPTS);
  const user = await authenticate(email, String(credentials.password ?? ""));
  if (!user) return null;
  const actor = { merchantId: user.merchantId, userId: user.id, email: user.email, ip };
  if (user.twoFactor) {
    const otp = String(credentials.otp ?? "").trim();
    if (otp === "") throw new Error("TwoFactorRequired");
    let factor: Awaited<ReturnType<typeof verifySecondFactor>>;
    try {
      factor = await verifySecondFactor(
        { actor: { ...actor, userId: user.id }, locale: localeOf(headers) },
        "signIn",
        otp,
      );
    } catch (err) {
      if (err instanceof FactorLocked) throw new Error(TWO_FACTOR_LOCKED);
      throw err;
    }
    if (!factor) {
      await audit(actor, "auth.signInFailed", null, { reason: "second factor" });
      throw new Error("TwoFactorInvalid");
    }
  }
  const session = await createSession(user.id, { ip, userAgent: headers.get("user-agent") });
  await audit(actor, "auth.signIn", session.id, { secondFactor: user.twoFactor });
  return { id: user.id, email: user.email, name: user.name, merchantId: user.merchantId, sessionId: session.id };
}

/** next-auth's sign-out event: the session row is revoked, so copies of the cookie stop working too. */
export async function signedOut(token: JWT | null | undefined): Promise<void> {
  if (!token?.uid || !token.sid || !token.merchantId) return;
  if (await revokeSession(token.uid, token.sid)) {
    await audit(
      { merchantId: token.merchantId, userId: token.uid, email: token.email ?? "", ip: null },
      "auth.signOut",
      token.sid,
    );
  }
}
