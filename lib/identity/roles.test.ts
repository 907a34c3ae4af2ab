import { describe, expect, it } from "vitest";
import { USER_ROLES } from "@/db/schema";
import { assignableRoles, can, PERMISSIONS } from "./roles";

describe("dashboard roles", () => {
  it("owners may do everything", () => {
    for (const p of PERMISSIONS) expect(can("owner", p)).toBe(true);
  });
  it("a viewer may change nothing", () => {
    for (const p of PERMISSIONS) expect(can("viewer", p)).toBe(false);
  });
  it("finance withdraws but touches neither keys, webhooks, the payout key nor the team", () => {
    expect(can("finance", "withdrawals.create")).toBe(true);
    for (const p of ["apiKeys.manage", "webhooks.manage", "payoutKey.change", "team.manage"] as const)
      expect(can("finance", p)).toBe(false);
  });
  it("developers manage keys and webhooks but cannot withdraw", () => {
    expect(can("developer", "apiKeys.manage")).toBe(true);
    expect(can("developer", "webhooks.manage")).toBe(true);
    expect(can("developer", "withdrawals.create")).toBe(false);
  });
  it("only owners confirm a new payout key or destination, switch the API allow-list, or manage owners", () => {
    for (const role of USER_ROLES) {
      expect(can(role, "payoutKey.confirm")).toBe(role === "owner");
      expect(can(role, "destinations.confirm")).toBe(role === "owner");
      expect(can(role, "destinations.allowlist")).toBe(role === "owner");
      expect(can(role, "team.manageOwners")).toBe(role === "owner");
      expect(assignableRoles(role).includes("owner")).toBe(role === "owner");
    }
  });
});
