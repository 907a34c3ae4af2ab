import { describe, expect, it } from "vitest";
import { pageWriteAllowed } from "./same-origin";

const PUBLIC = "https://pay.example.com";

describe("a write sent to a page (a server action)", () => {
  it("goes on from our own pages: the public origin, or the host the request was sent to", () => {
    expect(pageWriteAllowed("POST", "https://pay.example.com", "pay.example.com", PUBLIC)).toBe(true);
    expect(pageWriteAllowed("POST", "https://pay.example.com", "10.0.0.5:3000", PUBLIC)).toBe(true);
    expect(pageWriteAllowed("POST", "http://127.0.0.1:3230", "127.0.0.1:3230", PUBLIC)).toBe(true);
  });

  it("is refused without an Origin, with a null one, a malformed one, or another site's", () => {
    for (const origin of [
      null,
      "",
      "null",
      "not a url",
      "https://evil.example",
      "https://pay.example.com.evil.example",
      "http://pay.example.com:8080",
    ]) {
      expect(pageWriteAllowed("POST", origin, "pay.example.com", PUBLIC), String(origin)).toBe(false);
    }
    // Whatever the method: a page takes no write from elsewhere.
    for (const method of ["PUT", "PATCH", "DELETE", "post"])
      expect(pageWriteAllowed(method, null, "pay.example.com", PUBLIC)).toBe(false);
    // No Host to compare with: only the public origin passes.
    expect(pageWriteAllowed("POST", "https://evil.example", null, PUBLIC)).toBe(false);
  });

  it("reads need no Origin", () => {
    for (const method of ["GET", "HEAD", "OPTIONS"]) expect(pageWriteAllowed(method, null, null, PUBLIC)).toBe(true);
  });
});
