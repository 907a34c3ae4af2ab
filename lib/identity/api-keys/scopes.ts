import { API_KEY_SCOPE_NAMES, type UserRole } from "@/db/schema";
import { can, type Permission } from "@/lib/identity/roles";

// What an API key may do (docs/security.md, "API keys"). Each endpoint declares the one scope it
// needs (its defineEndpoint `scope`); the API-key caller refuses a key without it with 403. A key
// never carries more than the person who made it may do in the dashboard: its scopes are those of
// the creator's role (lib/identity/roles.ts).

export type ApiScope = (typeof API_KEY_SCOPE_NAMES)[number];

/** Every scope, in the one order they are stored and shown in. */
export const API_SCOPES: readonly ApiScope[] = API_KEY_SCOPE_NAMES;

export function isApiScope(value: unknown): value is ApiScope {
  return typeof value === "string" && (API_SCOPES as readonly string[]).includes(value);
}

/** The scopes given, each once, in API_SCOPES order (how they are stored, so equal sets compare equal). */
export function normaliseScopes(scopes: Iterable<ApiScope>): ApiScope[] {
  const given = new Set(scopes);
  return API_SCOPES.filter((s) => given.has(s));
}

/** Whether `scopes` is every scope there is: shown as "Full access". */
export function isFullAccess(scopes: readonly ApiScope[]): boolean {
  return API_SCOPES.every((s) => scopes.includes(s));
}

// The dashboard permission each scope stands for. Every member can read what the dashboard shows,
// so `read` stands for none.
const SCOPE_PERMISSION: Record<Exclude<ApiScope, "read">, Permission> = {
  payments: "orders.create",
  refunds: "refunds.create",
  withdrawals: "withdrawals.create",
};

/** The scopes a member of `role` may put on a key they create: none without the right to manage keys. */
export function grantableScopes(role: UserRole): ApiScope[] {
  if (!can(role, "apiKeys.manage")) return [];
  return API_SCOPES.filter((s) => s === "read" || can(role, SCOPE_PERMISSION[s]));
}

/**
 * The old `scope` column, still written for instances of the previous version during a rolling
 * deploy (they read only it): "full" only for a key with every scope, so an old instance never lets
 * a narrower key write.
 */
export function legacyScope(scopes: readonly ApiScope[]): "full" | "read" {
  return isFullAccess(scopes) ? "full" : "read";
}
