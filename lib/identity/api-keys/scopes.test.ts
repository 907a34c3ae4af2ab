import { describe, expect, it } from "vitest";
import { USER_ROLES } from "@/db/schema";
import { can } from "@/lib/identity/roles";
import { API_SCOPES, grantableScopes, isFullAccess, legacyScope, normaliseScopes } from "./scopes";

describe("API key scopes", () => {
  it("a member can give a key only what their role may do, and only if they may manage keys", () => {
    expect(grantableScopes("owner")).toEqual(["read", "payments", "refunds", "withdrawals"]);
    expect(grantableScopes("admin")).toEqual(["read", "payments", "refunds", "withdrawals"]);
    // Developers take payments and manage keys, but never refund or withdraw.
    expect(grantableScopes("developer")).toEqual(["read", "payments"]);
    // Finance refunds and withdraws but does not manage keys; viewers do neither.
    expect(grantableScopes("finance")).toEqual([]);
    expect(grantableScopes("viewer")).toEqual([]);
    for (const role of USER_ROLES) {
      const scopes = grantableScopes(role);
      if (scopes.includes("refunds")) expect(can(role, "refunds.create")).toBe(true);
      if (scopes.includes("withdrawals")) expect(can(role, "withdrawals.create")).toBe(true);
      if (scopes.includes("payments")) expect(can(role, "orders.create")).toBe(true);
    }
  });

  it("are stored once each, in one order; only all four is full access (and the old column's full)", () => {
    expect(normaliseScopes(["withdrawals", "read", "read"])).toEqual(["read", "withdrawals"]);
    expect(isFullAccess(API_SCOPES)).toBe(true);
    expect(isFullAccess(["read", "payments", "refunds"])).toBe(false);
    expect(legacyScope(API_SCOPES)).toBe("full");
    expect(legacyScope(["read", "payments"])).toBe("read");
  });
});
