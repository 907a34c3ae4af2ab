import { describe, expect, it } from "vitest";
import { currentTotp, matchTotp, newTotpSecret, totpUri } from "./totp";

describe("TOTP (RFC 6238)", () => {
  it("matches the RFC's SHA-1 test vector at T = 59 s", () => {
    // RFC 6238 appendix B: secret "12345678901234567890", 8 digits → 94287082; 6 digits keep the last six.
    const secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";
    expect(currentTotp(secret, 59_000)).toBe("287082");
    expect(matchTotp(secret, "287082", 59_000)).toBe(1);
  });

  it("accepts one step either side of now, not two", () => {
    const secret = newTotpSecret();
    const now = 1_800_000_000_000;
    expect(matchTotp(secret, currentTotp(secret, now - 30_000), now)).toBe(now / 30_000 - 1);
    expect(matchTotp(secret, currentTotp(secret, now + 30_000), now)).toBe(now / 30_000 + 1);
    expect(matchTotp(secret, currentTotp(secret, now - 90_000), now)).toBeNull();
  });

  it("refuses anything but six digits", () => {
    const secret = newTotpSecret();
    for (const code of ["", "12345", "1234567", "abcdef", "12 34 5x"]) expect(matchTotp(secret, code)).toBeNull();
  });

  it("builds an otpauth URI naming the issuer and account", () => {
    const uri = totpUri("JBSWY3DPEHPK3PXP", "ana@loja.com.br");
    expect(uri).toMatch(/^otpauth:\/\/totp\/PixCrypto:ana%40loja\.com\.br\?/);
    expect(uri).toContain("secret=JBSWY3DPEHPK3PXP");
  });
});
