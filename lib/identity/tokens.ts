import { createHash, randomBytes } from "node:crypto";

// Links sent by mail (password reset, invitation) carry 256 random bits; only their SHA-256 is
// stored, so reading the database does not hand out working links. A fast hash is enough for
// values this random (the same reasoning as API keys: docs/security.md#api-keys).

export function newLinkToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString("base64url");
  return { token, hash: hashLinkToken(token) };
}

export function hashLinkToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** Tokens we issue are 43 base64url characters; anything else is not looked up at all. */
export function isLinkToken(value: unknown): value is string {
  return typeof value === "string" && /^[A-Za-z0-9_-]{43}$/.test(value);
}
