import { Secret, TOTP } from "otpauth";

// RFC 6238 TOTP through `otpauth` (maintained, audited, no dependencies): SHA-1, 6 digits, 30 s,
// the parameters every authenticator app supports. A code is accepted one step either side of now,
// for clocks a little off; the step it matched is returned so the caller can refuse it a second time.

const PERIOD = 30;
const ISSUER = "PixCrypto";

export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totp(secret: string, label = ""): TOTP {
  return new TOTP({
    issuer: ISSUER,
    label,
    algorithm: "SHA1",
    digits: 6,
    period: PERIOD,
    secret: Secret.fromBase32(secret),
  });
}

/** The otpauth:// URI an authenticator app scans. */
export function totpUri(secret: string, account: string): string {
  return totp(secret, account).toString();
}

/** The time step a code matches (now ± 1 step), or null. Non-digit input never matches. */
export function matchTotp(secret: string, code: string, now = Date.now()): number | null {
  const token = code.replace(/\s+/g, "");
  if (!/^\d{6}$/.test(token)) return null;
  const delta = totp(secret).validate({ token, timestamp: now, window: 1 });
  return delta === null ? null : Math.floor(now / 1000 / PERIOD) + delta;
}

/** The current code: for tests and the e2e suite, which play the authenticator app. */
export function currentTotp(secret: string, now = Date.now()): string {
  return totp(secret).generate({ timestamp: now });
}
