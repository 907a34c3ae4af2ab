import { describe, expect, it } from "vitest";
import { safeCallbackUrl, signInUrl } from "./callback-url";

describe("where sign-in sends the visitor", () => {
  it("back to the dashboard page asked for, with its query", () => {
    expect(signInUrl("/dashboard/orders/abc?from=email")).toBe("/signin?callbackUrl=%2Fdashboard%2Forders%2Fabc%3Ffrom%3Demail");
  });
  it("to the plain sign-in page for the dashboard home, anything outside it, or nothing", () => {
    for (const returnTo of [null, "", "/dashboard", "/pay/abc", "//evil.example/dashboard", "https://evil.example/dashboard", "/\\evil"]) {
      expect(signInUrl(returnTo)).toBe("/signin");
    }
  });
  it("never off the site after signing in", () => {
    expect(safeCallbackUrl("/dashboard/withdrawals")).toBe("/dashboard/withdrawals");
    for (const raw of ["//evil.example", "https://evil.example", "/\\evil.example", 42, undefined]) expect(safeCallbackUrl(raw)).toBe("/dashboard");
  });
});
