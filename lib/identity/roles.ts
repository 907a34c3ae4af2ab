import type { UserRole } from "@/db/schema";

// Who may do what in the dashboard. One table, read by every page and server action (and by the
// navigation, to hide what a role cannot open). Owners can do everything; only owners confirm a
// new payout key or withdrawal destination, switch the API's destination allow-list, and manage
// other owners.

export const PERMISSIONS = [
  "orders.create",
  "refunds.create",
  "withdrawals.create",
  "payoutKey.change",
  "payoutKey.confirm",
  "factorChange.confirm",
  "destinations.confirm",
  "destinations.allowlist",
  "company.edit",
  "apiKeys.manage",
  "webhooks.manage",
  "team.manage",
  "team.manageOwners",
  "audit.view",
  // Adding and editing split recipients ("recebedores"); paying one out is withdrawals.create.
  "recipients.manage",
  // Contesting a MED infraction: a statement to the PSP made once, on the merchant's behalf.
  "disputes.defend",
] as const;
export type Permission = (typeof PERMISSIONS)[number];

const OWNERS_ONLY: readonly Permission[] = [
  "payoutKey.confirm",
  "factorChange.confirm",
  "destinations.confirm",
  "destinations.allowlist",
  "team.manageOwners",
];

const GRANTS: Record<UserRole, readonly Permission[]> = {
  owner: PERMISSIONS,
  admin: PERMISSIONS.filter((p) => !OWNERS_ONLY.includes(p)),
  finance: ["orders.create", "refunds.create", "withdrawals.create", "recipients.manage"],
  developer: ["orders.create", "apiKeys.manage", "webhooks.manage"],
  viewer: [],
};

export function can(role: UserRole, permission: Permission): boolean {
  return GRANTS[role].includes(permission);
}

/** Roles a user of `role` may give or take away: admins manage everyone but owners. */
export function assignableRoles(role: UserRole): UserRole[] {
  if (role === "owner") return ["owner", "admin", "finance", "developer", "viewer"];
  if (role === "admin") return ["admin", "finance", "developer", "viewer"];
  return [];
}
