import { describe, expect, it } from "vitest";
import { localLinksWarning } from "./links";

describe("localLinksWarning", () => {
  it("warns when PUBLIC_BASE_URL is unset and links fall back to localhost", () => {
    expect(localLinksWarning(undefined, "http://localhost:3000")).toMatch(
      /PUBLIC_BASE_URL is not set.*http:\/\/localhost:3000/,
    );
  });

  it("warns for a loopback PUBLIC_BASE_URL too", () => {
    expect(localLinksWarning("http://127.0.0.1:3100", "http://127.0.0.1:3100")).toMatch(
      /PUBLIC_BASE_URL is http:\/\/127\.0\.0\.1:3100/,
    );
  });

  it("stays quiet for a public address", () => {
    expect(localLinksWarning("https://pay.example.com", "https://pay.example.com")).toBeNull();
    expect(localLinksWarning("http://192.168.0.10:3000", "http://192.168.0.10:3000")).toBeNull();
  });
});
