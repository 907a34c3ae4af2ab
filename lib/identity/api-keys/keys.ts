import { createHmac, hash } from "node:crypto";
import { env } from "@/lib/env";
import { randomBase62 } from "@/lib/ids";

// API keys are 190+ random bits, so a fast hash is enough at rest: a slow one would cost every request.
// An optional server-side pepper makes a leaked table useless without the server's configuration.

export type KeyMode = "sandbox" | "live";

export function keyPrefixFor(mode: KeyMode): string {
  return mode === "live" ? "sk_live_" : "sk_test_";
}

export function generateApiKey(mode: KeyMode): { key: string; prefix: string; lastFour: string; hash: string } {
  const key = keyPrefixFor(mode) + randomBase62(40);
  return { key, prefix: key.slice(0, 12), lastFour: key.slice(-4), hash: hashApiKey(key) };
}

export function hashApiKey(key: string): string {
  const pepper = env().API_KEY_PEPPER;
  return pepper ? createHmac("sha256", pepper).update(key).digest("hex") : hash("sha256", key, "hex");
}

const KEY_SHAPE = /^sk_(test|live)_[0-9A-Za-z]{32,}$/;
export function isWellFormedKey(key: string): boolean {
  return KEY_SHAPE.test(key);
}
