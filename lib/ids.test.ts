import { describe, expect, it } from "vitest";
import { newOrderHash, newPaymentLinkId, newPixTxid, newRequestId, randomBase62, timeOrderedBase62 } from "./ids";

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

describe("time-ordered ids (the orders table's unique keys)", () => {
  const at = (iso: string) => new Date(iso).getTime();

  it("start with the second they were made, so later ones sort after earlier ones, bytewise as in the index", () => {
    const times = [
      "2026-11-26T12:00:00Z",
      "2026-11-26T12:00:01Z",
      "2026-11-26T12:01:00Z",
      "2027-01-01T00:00:00Z",
      "2090-06-30T23:59:59Z",
    ].map(at);
    const links = times.map((t) => timeOrderedBase62(22, t));
    const hashes = times.map((t) => newOrderHash(t));
    const bytewise = (xs: string[]) => [...xs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(bytewise(links)).toEqual(links);
    expect(bytewise(hashes)).toEqual(hashes);
    // Within one second, only the random part differs.
    const same = [timeOrderedBase62(22, times[0]), timeOrderedBase62(22, times[0] + 999)];
    expect(same[0].slice(0, 6)).toBe(same[1].slice(0, 6));
    expect(same[0].slice(6)).not.toBe(same[1].slice(6));
  });

  it("keep their lengths and alphabets, with at least 16 random characters", () => {
    expect(newOrderHash()).toMatch(/^[0-9a-f]{32}$/);
    expect(timeOrderedBase62(32)).toMatch(/^[0-9A-Za-z]{32}$/);
    expect(() => timeOrderedBase62(21)).toThrow(/fewer than 16 random/);
    // 16 random base62 characters: ~95 bits, so ids of one second never collide in practice.
    const t = at("2026-11-26T12:00:00Z");
    expect(new Set(Array.from({ length: 20_000 }, () => timeOrderedBase62(22, t))).size).toBe(20_000);
  });
});
