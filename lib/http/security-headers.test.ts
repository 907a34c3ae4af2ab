import { afterEach, describe, expect, it } from "vitest";
import { resetEnvForTests } from "@/lib/env";
import { withSecurityHeaders } from "./security-headers";

const saved = { ...process.env };
afterEach(() => {
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
  resetEnvForTests();
});

describe("API security headers", () => {
  it("add HSTS in live mode only", () => {
    Object.assign(process.env, { PAYMENTS_MODE: "sandbox" });
    resetEnvForTests();
    expect(withSecurityHeaders(new Response("{}")).headers.get("strict-transport-security")).toBeNull();

    Object.assign(process.env, {
      PAYMENTS_MODE: "live",
      AUTH_SECRET: "a".repeat(40),
      DATABASE_URL: "postgres://db.example:5432/payments",
      PUBLIC_BASE_URL: "https://pay.example.com",
      DEPOSIT_XPUB:
        "xpub6Ce9NcJvTk36xtLSrJLZqE7wtgA5deCeYs7rSQtreh4cj6ByPtrg9sD7V2FNFLPnf8heNP3FGkeV9qwfzvZNSd54JoNXVsXFYSYwHsnJxqP",
    });
    resetEnvForTests();
    const res = withSecurityHeaders(new Response("{}"));
    expect(res.headers.get("strict-transport-security")).toBe("max-age=63072000; includeSubDomains");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
  });
});
