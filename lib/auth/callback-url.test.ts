import { describe, expect, it } from "vitest";
import { safeCallbackUrl } from "./callback-url";

describe("safeCallbackUrl", () => {
  it("keeps paths on this site", () => {
    expect(safeCallbackUrl("/dashboard/orders?x=1")).toBe("/dashboard/orders?x=1");
  });
  it.each(["https://evil.example", "//evil.example", "/\\evil.example", undefined, 3, ""])("refuses %j", (raw) => {
    expect(safeCallbackUrl(raw)).toBe("/dashboard");
  });
});
