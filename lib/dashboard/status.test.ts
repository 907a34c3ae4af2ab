import { describe, expect, it } from "vitest";
import { displayStatus } from "./status";

describe("displayStatus", () => {
  it.each([
    ["pix", "CANCELLED", "EXPIRED"],
    ["exchange", "CANCELLED", "EXPIRED"],
    ["lightning", "CANCELLED", "EXPIRED"],
    ["onchain", "FAILED", "EXPIRED"],
    ["crypto_pix", "FAILED", "EXPIRED"],
    ["onchain", "PARTIAL_ORDER", "PARTIAL_ORDER"],
    ["crypto_pix", "REFUNDED", "REFUNDED"],
    ["pix", "COMPLETED", "COMPLETED"],
    ["pix_out", "FAILED", "FAILED"],
  ])("%s %s → %s", (kind, status, shown) => {
    expect(displayStatus(kind, status)).toBe(shown);
  });

  it("leaves a status without a kind (withdrawals, refunds) as it is", () => {
    expect(displayStatus(undefined, "CANCELLED")).toBe("CANCELLED");
  });
});
