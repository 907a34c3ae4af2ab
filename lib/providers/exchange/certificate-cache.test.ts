import { describe, expect, it } from "vitest";
import { CertificateCache, CertificatesUnavailable, type Certificate } from "./certificate-cache";

/** A provider whose list we control, counting how often it is asked, on a clock the test moves. */
function setup(list: Certificate[] = [{ serial: "s1", publicKey: "K1" }]) {
  const provider = { list, calls: 0, down: false, delayMs: 0 };
  const clock = { t: 1_000_000 };
  const cache = new CertificateCache({
    fetch: async () => {
      provider.calls++;
      if (provider.delayMs) await new Promise((r) => setTimeout(r, provider.delayMs));
      if (provider.down) throw new Error("HTTP 503");
      return provider.list;
    },
    refetchAfterMs: 30_000,
    unknownTtlMs: 300_000,
    maxUnknown: 100,
    now: () => clock.t,
  });
  return { provider, clock, cache };
}

describe("CertificateCache", () => {
  it("answers a known serial from memory after one fetch", async () => {
    const { provider, cache } = setup();
    expect(await cache.publicKey("s1")).toBe("K1");
    expect(await cache.publicKey("s1")).toBe("K1");
    expect(provider.calls).toBe(1);
  });

  it("700 forged serials at once: one fetch, shared; all refused", async () => {
    const { provider, cache } = setup();
    provider.delayMs = 20;
    const answers = await Promise.all(Array.from({ length: 700 }, (_, i) => cache.publicKey(`forged-${i}`)));
    expect(answers.every((a) => a === null)).toBe(true);
    expect(provider.calls).toBe(1);
    // More of them later in the interval: still nothing asked.
    for (let i = 0; i < 700; i++) expect(await cache.publicKey(`later-${i}`)).toBeNull();
    expect(provider.calls).toBe(1);
  });

  it("asks at most once per interval for unknown serials; a serial found missing is refused unasked for its TTL", async () => {
    const { provider, clock, cache } = setup();
    expect(await cache.publicKey("x")).toBeNull();
    clock.t += 30_000;
    // The same serial, checked 30 s ago: not asked about again.
    expect(await cache.publicKey("x")).toBeNull();
    expect(provider.calls).toBe(1);
    // Another serial, the interval over: one more fetch.
    expect(await cache.publicKey("y")).toBeNull();
    expect(provider.calls).toBe(2);
    clock.t += 300_000;
    expect(await cache.publicKey("x")).toBeNull();
    expect(provider.calls).toBe(3);
  });

  it("a real rotation is fetched once the interval since the last fetch has passed, and the retired key is dropped", async () => {
    const { provider, clock, cache } = setup();
    expect(await cache.publicKey("s1")).toBe("K1");
    provider.list = [{ serial: "s2", publicKey: "K2" }];
    // Binance's first notification with the new serial, right after our last fetch: refused (Binance retries).
    clock.t += 1_000;
    expect(await cache.publicKey("s2")).toBeNull();
    clock.t += 30_000;
    expect(await cache.publicKey("s2")).toBe("K2");
    expect(provider.calls).toBe(2);
    expect(await cache.publicKey("s1")).toBeNull();
  });

  it("a serial refused before the provider listed it is accepted once any later fetch lists it", async () => {
    const { provider, clock, cache } = setup();
    expect(await cache.publicKey("s2")).toBeNull();
    provider.list = [{ serial: "s2", publicKey: "K2" }];
    clock.t += 30_000;
    // Another serial's fetch brings the new list; s2's negative entry no longer counts.
    expect(await cache.publicKey("other")).toBeNull();
    expect(await cache.publicKey("s2")).toBe("K2");
  });

  it("provider down: unknown serials cannot be checked (CertificatesUnavailable), the fetch is not repeated within the interval, known ones still verify", async () => {
    const { provider, clock, cache } = setup();
    expect(await cache.publicKey("s1")).toBe("K1");
    provider.down = true;
    clock.t += 30_000;
    await expect(cache.publicKey("new")).rejects.toBeInstanceOf(CertificatesUnavailable);
    await expect(cache.publicKey("another")).rejects.toBeInstanceOf(CertificatesUnavailable);
    expect(provider.calls).toBe(2);
    expect(await cache.publicKey("s1")).toBe("K1");
    provider.down = false;
    provider.list = [
      { serial: "s1", publicKey: "K1" },
      { serial: "new", publicKey: "KN" },
    ];
    clock.t += 30_000;
    expect(await cache.publicKey("new")).toBe("KN");
  });

  it("keeps at most maxUnknown refused serials", async () => {
    const { clock, cache } = setup();
    for (let i = 0; i < 150; i++) {
      clock.t += 30_000;
      await cache.publicKey(`u${i}`);
    }
    expect((cache as unknown as { unknown: Map<string, number> }).unknown.size).toBe(100);
  });
});
