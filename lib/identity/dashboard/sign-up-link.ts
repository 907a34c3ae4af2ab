import { z } from "zod";
import { seal, unseal } from "@/lib/identity/sealed";

// The link that finishes a sign-up (docs/security.md, "Sign-up and invitations"). A sign-up creates
// nothing until the address's owner opens the link mailed to it, so the answer to the form is the same
// whether the address already has an account or not. The link carries the whole request, sealed
// (lib/identity/sealed.ts: AES-256-GCM under AUTH_SECRET; the password only as its scrypt hash), so
// nothing is stored for a sign-up that is never finished. Opening it twice cannot make two accounts:
// the e-mail's unique index decides.

export const SIGN_UP_LINK_HOURS = 24;
const PURPOSE = "signup";

const request = z.object({
  companyName: z.string(),
  pixKey: z.string(),
  email: z.string(),
  passwordHash: z.string(),
  /** When the link stops working, in ms since the epoch. */
  expiresAt: z.number(),
});
export type SignUpRequest = Omit<z.infer<typeof request>, "expiresAt">;

export function sealSignUp(r: SignUpRequest, now = Date.now()): string {
  return seal(PURPOSE, JSON.stringify({ ...r, expiresAt: now + SIGN_UP_LINK_HOURS * 3_600_000 }));
}

/** The sign-up a link's token holds, or null when it is not one of ours, was tampered with, or expired. */
export function openSignUp(token: unknown, now = Date.now()): SignUpRequest | null {
  if (typeof token !== "string" || token.length > 4096) return null;
  const text = unseal(PURPOSE, token);
  if (text === null) return null;
  let parsed: z.infer<typeof request>;
  try {
    parsed = request.parse(JSON.parse(text));
  } catch {
    return null;
  }
  if (parsed.expiresAt <= now) return null;
  const { expiresAt: _expiresAt, ...r } = parsed;
  return r;
}
