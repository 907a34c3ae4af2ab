import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { pathOf, PlainHeaders } from "./request";

describe("the fast path's plain request", () => {
  it("reads headers as Headers.get does: any case, repeated ones joined, extras winning", () => {
    const raw = ["Authorization", "Bearer sk_test_a", "X-Thing", "one", "x-thing", " two ", "Idempotency-Key", "k-1"];
    const web = new Headers();
    for (let i = 0; i < raw.length; i += 2) web.append(raw[i], raw[i + 1]);
    const plain = new PlainHeaders(raw, { "x-forwarded-for": "10.0.0.1" });
    for (const name of ["authorization", "AUTHORIZATION", "x-thing", "idempotency-key", "bearer"]) {
      expect(plain.get(name)).toBe(web.get(name));
      expect(plain.has(name)).toBe(web.has(name));
    }
    expect(plain.get("X-Forwarded-For")).toBe("10.0.0.1");
  });

  it("finds the same path as URL for any request target", () => {
    const segment = fc.stringMatching(/^[A-Za-z0-9._~%-]{0,12}$/);
    fc.assert(
      fc.property(
        fc.array(segment, { maxLength: 6 }),
        fc.option(fc.stringMatching(/^[A-Za-z0-9=&]{0,20}$/)),
        (parts, query) => {
          const url = `http://127.0.0.1:3000/${parts.join("/")}${query === null ? "" : `?${query}`}`;
          const expected = new URL(url).pathname;
          // URL also resolves dot segments and re-encodes; the router only ever sees plain paths.
          fc.pre(expected === `/${parts.join("/")}`);
          expect(pathOf(url)).toBe(expected);
        },
      ),
    );
    expect(pathOf("http://localhost:3000")).toBe("/");
    expect(pathOf("https://pay.example.com/api/v1/order/abc?x=1#f")).toBe("/api/v1/order/abc");
  });
});
