import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { ConfigError, env } from "@/lib/env";

// Secrets the service must read back (TOTP seeds) are stored sealed with AES-256-GCM under a key
// derived from AUTH_SECRET: a copy of the database alone does not yield anyone's second factor.
// Format: v1.<iv>.<tag>.<ciphertext>, base64url.

function key(purpose: string): Buffer {
  const secret = env().AUTH_SECRET;
  if (!secret) throw new ConfigError("AUTH_SECRET is required to seal secrets");
  return Buffer.from(hkdfSync("sha256", secret, "pixcrypto", `seal:${purpose}`, 32));
}

export function seal(purpose: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key(purpose), iv);
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return ["v1", iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), body.toString("base64url")].join(
    ".",
  );
}

/** The sealed text, or null when it was sealed under another key or tampered with. */
export function unseal(purpose: string, sealed: string): string | null {
  const [version, iv, tag, body] = sealed.split(".");
  if (version !== "v1" || !iv || !tag || body === undefined) return null;
  try {
    const decipher = createDecipheriv("aes-256-gcm", key(purpose), Buffer.from(iv, "base64url"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    return null;
  }
}
