import { createHmac, randomBytes } from "node:crypto";

// Standard Webhooks signing (https://www.standardwebhooks.com): the secret is `whsec_` + base64 of
// random bytes, the HMAC key is those bytes, and the signature covers `<id>.<timestamp>.<body>` where
// body is the exact bytes sent. Receivers verify with any Standard Webhooks library.

export const SECRET_PREFIX = "whsec_";

/** 32 random bytes: above the 24 bytes Standard Webhooks asks at least (docs/webhooks.md#endpoints) and the HMAC-SHA256 block-size sweet spot. */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString("base64");
}

export function secretKey(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error("webhook secret must start with whsec_");
  return Buffer.from(secret.slice(SECRET_PREFIX.length), "base64");
}

/** `v1,<base64 HMAC-SHA256(key, "<msgId>.<timestamp>.<body>")>` */
export function signature(secret: string, msgId: string, timestampSeconds: number, body: Buffer): string {
  const mac = createHmac("sha256", secretKey(secret));
  mac.update(`${msgId}.${timestampSeconds}.`);
  mac.update(body);
  return `v1,${mac.digest("base64")}`;
}

/** The three Standard Webhooks headers for one attempt; the timestamp is the attempt's own. */
export function signatureHeaders(
  secret: string,
  msgId: string,
  body: Buffer,
  now: Date = new Date(),
): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    "webhook-id": msgId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signature(secret, msgId, timestamp, body),
  };
}
