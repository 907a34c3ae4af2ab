import { describe, expect, it } from "vitest";
import { payoutKeyHeldUntil } from "./payout-hold";

const now = Date.parse("2026-03-02T12:00:00Z");
const hoursAgo = (h: number) => new Date(now - h * 3_600_000);

describe("payout key hold", () => {
  it("holds a key changed less than the hold ago until the hold ends", () => {
    expect(payoutKeyHeldUntil({ pixKeyChangedAt: hoursAgo(2), pixKeyConfirmedAt: null }, now, 24)).toEqual(
      new Date(now + 22 * 3_600_000),
    );
  });
  it("releases it once the hold has passed", () => {
    expect(payoutKeyHeldUntil({ pixKeyChangedAt: hoursAgo(24), pixKeyConfirmedAt: null }, now, 24)).toBeNull();
  });
  it("releases it once an owner confirmed this change, not an earlier one", () => {
    expect(payoutKeyHeldUntil({ pixKeyChangedAt: hoursAgo(2), pixKeyConfirmedAt: hoursAgo(1) }, now, 24)).toBeNull();
    expect(
      payoutKeyHeldUntil({ pixKeyChangedAt: hoursAgo(2), pixKeyConfirmedAt: hoursAgo(3) }, now, 24),
    ).not.toBeNull();
  });
  it("never holds the key registered at sign-up, nor with the hold turned off", () => {
    expect(payoutKeyHeldUntil({ pixKeyChangedAt: null, pixKeyConfirmedAt: null }, now, 24)).toBeNull();
    expect(payoutKeyHeldUntil({ pixKeyChangedAt: hoursAgo(1), pixKeyConfirmedAt: null }, now, 0)).toBeNull();
  });
});
