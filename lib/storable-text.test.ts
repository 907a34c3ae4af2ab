import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { findUnstorableText, isStorableText, toStorableText } from "./storable-text";

// The oracle: a string PostgreSQL can store is one that survives UTF-8 unchanged and holds no NUL.
const survivesUtf8 = (s: string) => !s.includes("\0") && Buffer.from(s, "utf8").toString("utf8") === s;

describe("isStorableText", () => {
  it("agrees with a UTF-8 round trip on any sequence of UTF-16 code units", () => {
    fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 20 }), (s) => isStorableText(s) === survivesUtf8(s)));
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("a", "\0", "\ud800", "\udbff", "\udc00", "\udfff", "é", "😀"), { maxLength: 8 }),
        (parts) => {
          const s = parts.join("");
          return isStorableText(s) === survivesUtf8(s);
        },
      ),
    );
    // CPU-bound: fast-check's first "binary" string takes ~8 s of CPU at load 14 (under 1 s idle).
  }, 60_000);

  it.each([
    ["plain", "João da Silva", true],
    ["emoji (a surrogate pair)", "\ud83d\ude00", true],
    ["NUL", "a\u0000b", false],
    ["lone high surrogate", "\ud800abc", false],
    ["lone low surrogate", "abc\udc00", false],
    ["pair in the wrong order", "\udfff\ud800", false],
  ])("%s", (_name, s, storable) => {
    expect(isStorableText(s)).toBe(storable);
  });
});

describe("findUnstorableText", () => {
  it("names the first field holding an unstorable string, object keys included", () => {
    expect(findUnstorableText({ value: 10, devedor: { name: "ok", cpf: "1\u00002" } })).toBe("devedor.cpf");
    expect(findUnstorableText({ items: ["a", "\ud800"] })).toBe("items.1");
    expect(findUnstorableText({ "\u0000": 1 })).toBe("(a field name)");
    expect(findUnstorableText("\u0000")).toBe("");
    expect(findUnstorableText({ value: 10, name: "Loja 😀", tags: [null, true, 1.5] })).toBeNull();
  });
});

describe("toStorableText", () => {
  it("replaces exactly what a UTF-8 round trip replaces, and NUL", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 20 }), (s) => {
        const fixed = toStorableText(s);
        return isStorableText(fixed) && fixed === Buffer.from(s, "utf8").toString("utf8").replaceAll("\0", "\ufffd");
      }),
    );
    // CPU-bound like the property above, when it runs first.
  }, 60_000);
});
