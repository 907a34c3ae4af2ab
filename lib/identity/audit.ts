import { and, desc, eq, inArray, lt } from "drizzle-orm";
import { db, type Executor } from "@/db";
import { apiKeys, auditEvents, type AuditEvent } from "@/db/schema";
import { isUuid } from "@/lib/ids";
import { API_KEY_ACTOR_PREFIX, RELEASE_ACTOR, apiKeyIdOf, type ApiKeyLabel } from "./audit-text";

// The audit trail: one row per security- or money-relevant action, written beside the change
// (inside its transaction where there is one). The table refuses UPDATE and DELETE (migration).

export const AUDIT_ACTIONS = [
  "auth.signIn",
  "auth.signInFailed",
  "auth.signOut",
  "auth.sessionRevoked",
  "auth.sessionsRevoked",
  "auth.passwordChanged",
  "auth.passwordResetRequested",
  "auth.passwordReset",
  "twoFactor.enabled",
  "twoFactor.disabled",
  "twoFactor.recoveryCodeUsed",
  "twoFactor.enrolCodeSent",
  "twoFactor.failed",
  "twoFactor.locked",
  "twoFactor.changeConfirmed",
  "payoutKey.changed",
  "payoutKey.confirmed",
  "destination.added",
  "destination.confirmed",
  "destination.removed",
  "destination.allowlistChanged",
  "company.changed",
  "receipt.splitsChanged",
  "apiKey.created",
  "apiKey.revoked",
  "webhook.created",
  "webhook.deleted",
  "withdrawal.requested",
  "withdrawal.released",
  "withdrawal.cancelled",
  "refund.requested",
  "unapplied.accepted",
  "unapplied.returned",
  "unapplied.returnReleased",
  "unapplied.returnCancelled",
  "payout.resentByOperator",
  "payout.resolvedByOperator",
  "refund.resentByOperator",
  "refund.resolvedByOperator",
  "recon.mismatchResolved",
  "infraction.defended",
  "team.invited",
  "team.inviteRevoked",
  "team.joined",
  "team.roleChanged",
  "team.removed",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export type Actor = { merchantId: string | null; userId: string | null; email: string; ip: string | null };

/** The service itself, sending what waited once its destination was released (lib/withdrawals/release.ts). */
export function releaseActor(merchantId: string): Actor {
  return { merchantId, userId: null, email: RELEASE_ACTOR, ip: null };
}

/** An API key acting for its merchant: named by the key's id, which the Developers page lists. */
export function apiKeyActor(merchantId: string, keyId: string, ip: string): Actor {
  return { merchantId, userId: null, email: `${API_KEY_ACTOR_PREFIX}${keyId}`, ip };
}

export async function audit(
  actor: Actor,
  action: AuditAction,
  target?: string | null,
  details?: Record<string, unknown>,
  executor: Executor = db(),
): Promise<void> {
  await executor.insert(auditEvents).values({
    merchantId: actor.merchantId,
    userId: actor.userId,
    actor: actor.email,
    action,
    target: target ?? null,
    details: details ?? null,
    ip: actor.ip,
  });
}

/** A merchant's trail, newest first, `before` an id for the next page. */
export async function listAudit(merchantId: string, opts: { limit: number; before?: number }): Promise<AuditEvent[]> {
  return db()
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.merchantId, merchantId), opts.before ? lt(auditEvents.id, opts.before) : undefined))
    .orderBy(desc(auditEvents.id))
    .limit(opts.limit);
}

/**
 * The merchant's API keys these actors name, as the Developers page shows them (name, prefix, last four),
 * by id: what actorName needs to name a key instead of printing its id. Revoked keys too: the trail outlives them.
 */
export async function apiKeyLabels(
  merchantId: string,
  actors: string[],
  ex: Executor = db(),
): Promise<Map<string, ApiKeyLabel>> {
  const ids = [...new Set(actors.map(apiKeyIdOf).filter((id): id is string => id !== null && isUuid(id)))];
  if (ids.length === 0) return new Map();
  const rows = await ex
    .select({ id: apiKeys.id, name: apiKeys.name, prefix: apiKeys.prefix, lastFour: apiKeys.lastFour })
    .from(apiKeys)
    .where(and(eq(apiKeys.merchantId, merchantId), inArray(apiKeys.id, ids)));
  return new Map(rows.map((r) => [r.id, r]));
}
