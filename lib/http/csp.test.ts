import { describe, expect, it } from "vitest";
import { contentSecurityPolicy, newNonce } from "./csp";

describe("Content-Security-Policy", () => {
  it("lets scripts run only with this request's nonce, and never eval in production", () => {
    const csp = contentSecurityPolicy("abc123", { dev: false, https: true });
    expect(csp).toContain("script-src 'self' 'nonce-abc123' 'strict-dynamic'");
    expect(csp).not.toContain("unsafe-eval");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    for (const d of [
      "object-src 'none'",
      "frame-ancestors 'none'",
      "base-uri 'self'",
      "form-action 'self'",
      "upgrade-insecure-requests",
    ])
      expect(csp).toContain(d);
  });

  it("does not upgrade requests on a plain-http deployment (sandbox on localhost)", () => {
    expect(contentSecurityPolicy("n", { dev: false, https: false })).not.toContain("upgrade-insecure-requests");
  });

  it("draws a fresh, unguessable nonce each time", () => {
    const seen = new Set(Array.from({ length: 100 }, newNonce));
    expect(seen.size).toBe(100);
    for (const n of seen) expect(Buffer.from(n, "base64")).toHaveLength(16);
  });
});
