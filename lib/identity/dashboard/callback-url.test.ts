import { describe, expect, it } from "vitest";
import { safeCallbackUrl, signInUrl } from "./callback-url";

const ORIGIN = "https://pay.example.com";
const safe = (raw: unknown) => safeCallbackUrl(raw, "/dashboard", ORIGIN);

describe("where sign-in sends the visitor", () => {
  it("back to the dashboard page asked for, with its query", () => {
    expect(signInUrl("/dashboard/orders/abc?from=email")).toBe(
      "/signin?callbackUrl=%2Fdashboard%2Forders%2Fabc%3Ffrom%3Demail",
    );
  });

  it("to the plain sign-in page for the dashboard home, anything outside it, or nothing", () => {
    for (const returnTo of [
      null,
      "",
      "/dashboard",
      "/pay/abc",
      "//evil.example/dashboard",
      "https://evil.example/dashboard",
      "/\\evil",
      "/\t/evil.example/dashboard",
    ]) {
      expect(signInUrl(returnTo)).toBe("/signin");
    }
  });

  it("keeps a path on this site, as the URL parser writes it", () => {
    expect(safe("/dashboard/withdrawals")).toBe("/dashboard/withdrawals");
    expect(safe("/dashboard/orders?status=PAID#top")).toBe("/dashboard/orders?status=PAID#top");
    expect(safe("dashboard/orders")).toBe("/dashboard/orders");
    expect(safe(`${ORIGIN}/dashboard/team`)).toBe("/dashboard/team");
    expect(safe("/dashboard/../dashboard/team")).toBe("/dashboard/team");
    expect(safe("/dashboard/pedidos/ação")).toBe("/dashboard/pedidos/a%C3%A7%C3%A3o");
  });

  // Each as Next hands it over: the query string already decoded (%2F%09%2Fevil.example is "/\t/evil.example").
  const hostile: [string, unknown][] = [
    ["%2F%09%2Fevil.example", decodeURIComponent("%2F%09%2Fevil.example")],
    ["%2F%09%5Cevil.example", decodeURIComponent("%2F%09%5Cevil.example")],
    ["%2F%0A%2Fevil.example", decodeURIComponent("%2F%0A%2Fevil.example")],
    ["%2F%0D%2Fevil.example", decodeURIComponent("%2F%0D%2Fevil.example")],
    ["protocol-relative", "//evil.example"],
    ["three slashes", "///evil.example"],
    ["backslash", "/\\evil.example"],
    ["two backslashes", "\\\\evil.example"],
    ["backslash then slash", "\\/evil.example"],
    ["dot segment to //", "/.//evil.example"],
    ["encoded dot segment to //", "/%2e//evil.example"],
    ["absolute https", "https://evil.example/dashboard"],
    ["absolute http", "http://evil.example"],
    ["scheme-relative with credentials", "//pay.example.com@evil.example"],
    ["our host as user info", `https://pay.example.com@evil.example/`],
    ["our host with another port", "https://pay.example.com:8443/dashboard"],
    ["our host over http", "http://pay.example.com/dashboard"],
    ["javascript:", "javascript:alert(document.cookie)"],
    ["JavaScript: with a tab", "java\tscript:alert(1)"],
    ["data:", "data:text/html,<script>alert(1)</script>"],
    ["leading space and //", " //evil.example"],
    ["a number", 42],
    ["nothing", undefined],
    ["an array", ["/dashboard"]],
    ["empty", ""],
    ["too long", `/${"a".repeat(3000)}`],
  ];
  it.each(hostile)("never off the site: %s", (_name, raw) => {
    const target = safe(raw);
    expect(target).toBe("/dashboard");
  });

  it("never carries a control character, whatever it is given", () => {
    for (const raw of [
      "/dashboard\r\nSet-Cookie: a=b",
      "/dashboard\nx",
      "/dash\tboard",
      "/dashboard\u0000",
      "/dashboard/\u2028x",
    ]) {
      const target = safe(raw);
      expect(target.startsWith("/dashboard") || target === "/dashboard").toBe(true);
      expect(target).not.toMatch(/[\u0000-\u001f\u007f\u2028]/);
    }
  });
});
