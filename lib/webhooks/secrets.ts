import { db } from "@/db";
import { log } from "@/lib/log";
import { seal, unseal } from "@/lib/identity/sealed";
import { plainSecretEndpoints, replaceEndpointSecret } from "./queries";
import { SECRET_PREFIX } from "./sign";

// Webhook signing secrets at rest (docs/webhooks.md, "Signing secrets at rest"): sealed like TOTP
// seeds (lib/identity/sealed.ts, AES-256-GCM under a key derived from AUTH_SECRET), so a copy of the
// database alone cannot forge our signatures to a merchant's receiver. The column stays text:
// a sealed value starts with "v1.", one stored before sealing with "whsec_"; those are sealed once at
// start-up (sealPlainSecrets) and, should one still turn up (an older instance during a rolling
// deploy), when a delivery first reads it.

const PURPOSE = "webhook";

export function sealSecret(secret: string): string {
  return seal(PURPOSE, secret);
}

/** Whether the stored value is a secret from before sealing. */
export function isPlainSecret(stored: string): boolean {
  return stored.startsWith(SECRET_PREFIX);
}

/**
 * The `whsec_…` secret a stored value holds; null when it no longer unseals: AUTH_SECRET changed
 * since the endpoint was registered (or the value was tampered with). Such an endpoint cannot be
 * signed for until it is registered again.
 */
export function openSecret(stored: string): string | null {
  if (isPlainSecret(stored)) return stored;
  const secret = unseal(PURPOSE, stored);
  return secret !== null && isPlainSecret(secret) ? secret : null;
}

/** Seals one endpoint's plain secret, unless someone changed it meanwhile. */
export async function sealStoredSecret(endpointId: string, plain: string): Promise<boolean> {
  return replaceEndpointSecret(db(), endpointId, plain, sealSecret(plain));
}

/** The one-time step: every secret still stored in plain text is sealed; returns how many. */
export async function sealPlainSecrets(): Promise<number> {
  let sealed = 0;
  for (const row of await plainSecretEndpoints(db())) if (await sealStoredSecret(row.id, row.secret)) sealed++;
  if (sealed > 0) log.info("webhook signing secrets sealed at rest", { sealed });
  return sealed;
}
