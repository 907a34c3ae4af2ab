import { describe, expect, it } from "vitest";
import { newPaymentLinkId, newPixTxid, newRequestId, randomBase62 } from "./ids";

describe("random ids", () => {
  it("have the promised length and alphabet, across many pool refills", () => {
    for (let i = 0; i < 2000; i++) {
      expect(newPaymentLinkId()).toMatch(/^[0-9A-Za-z]{22}$/);
      expect(newPixTxid()).toMatch(/^[0-9A-Za-z]{25}$/);
      expect(newRequestId()).toMatch(/^req_[0-9A-Za-z]{16}$/);
    }
  });

  it("use every base62 symbol about equally (no modulo bias, no stuck byte)", () => {
    const counts = new Map<string, number>();
    const n = 62 * 4000;
    const s = randomBase62(n);
    for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // Chi-square with 61 degrees of freedom: 120 is far beyond p = 0.0001 (~107) for a uniform source.
    const expected = n / 62;
    let chi2 = 0;
    for (const k of counts.values()) chi2 += (k - expected) ** 2 / expected;
    expect(chi2).toBeLessThan(120);
  });

  it("never repeat", () => {
    const seen = new Set(Array.from({ length: 50_000 }, () => newPaymentLinkId()));
    expect(seen.size).toBe(50_000);
  });
});
