import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BrCodeError, encodeStaticBrCode, parseBrCode } from "./brcode";
import { cnpjArb, cpfArb } from "./check-digits.arbitrary";
import { classifyPixKey } from "./keys";

// BR Code properties: what we encode, we (and so any conforming reader) parse back to the same
// fields; one damaged character is always caught; the parser refuses garbage with a BrCodeError and
// nothing else. Seeded so a failure reproduces.

const RUNS = { numRuns: 1000, seed: 20261122 };
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".split("");

const word = (max: number) =>
  fc.array(fc.constantFrom(...ALNUM), { minLength: 1, maxLength: max }).map((a) => a.join(""));
/** Printable ASCII text in its normal form (single spaces, no ends), as the encoder would write it. */
const text = (max: number) =>
  fc
    .array(word(10), { minLength: 1, maxLength: 4 })
    .map((w) => w.join(" "))
    .filter((s) => s.length <= max);

const pixKey = fc.oneof(
  cpfArb,
  cnpjArb,
  fc
    .tuple(word(20), word(12), fc.constantFrom("com", "com.br", "org"))
    .map(([u, d, t]) => `${u}@${d}.${t}`.toLowerCase()),
  fc
    .tuple(fc.integer({ min: 11, max: 99 }), fc.integer({ min: 10_000_000, max: 999_999_999 }))
    .map(([a, n]) => `+55${a}${n}`),
  fc.uuid({ version: 4 }),
);

const input = fc.record(
  {
    pixKey,
    merchantName: text(25),
    merchantCity: text(15),
    amountCentavos: fc.integer({ min: 1, max: 999_999_999_999 }),
    txid: word(25),
    description: text(20),
  },
  { requiredKeys: ["pixKey", "merchantName", "merchantCity"] },
);

describe("BR Code (property)", () => {
  it("encode → parse gives back every field", () => {
    fc.assert(
      fc.property(input, (x) => {
        fc.pre(classifyPixKey(x.pixKey) !== null);
        const parsed = parseBrCode(encodeStaticBrCode(x));
        expect(parsed).toEqual({
          kind: "static",
          pixKey: classifyPixKey(x.pixKey)!.normalized,
          url: null,
          amountCentavos: x.amountCentavos ?? null,
          merchantName: x.merchantName,
          merchantCity: x.merchantCity,
          txid: x.txid ?? null,
          description: x.description ?? null,
          reusable: true,
        });
      }),
      RUNS,
    );
  });

  it("names and cities in any script encode to plain ASCII that parses back", () => {
    fc.assert(
      fc.property(
        pixKey,
        fc.string({ unit: "grapheme", minLength: 1, maxLength: 40 }),
        fc.string({ unit: "grapheme", maxLength: 30 }),
        (key, name, city) => {
          fc.pre(classifyPixKey(key) !== null);
          let code: string;
          try {
            code = encodeStaticBrCode({ pixKey: key, merchantName: name, merchantCity: `${city}X` });
          } catch (err) {
            // Only a name with nothing printable left is refused, and with our error.
            expect(err).toBeInstanceOf(BrCodeError);
            return;
          }
          expect(code).toMatch(/^[\x20-\x7e]+$/);
          const parsed = parseBrCode(code);
          expect(parsed.merchantName.length).toBeLessThanOrEqual(25);
          expect(parsed.merchantCity.length).toBeLessThanOrEqual(15);
        },
      ),
      RUNS,
    );
  });

  it("one changed character anywhere is caught (the CRC covers every byte)", () => {
    fc.assert(
      fc.property(input, fc.nat(), fc.integer({ min: 0x20, max: 0x7e }), (x, at, code) => {
        fc.pre(classifyPixKey(x.pixKey) !== null);
        const good = encodeStaticBrCode(x);
        const i = at % good.length;
        const ch = String.fromCharCode(code);
        // The CRC's own hex digits are compared case-insensitively.
        fc.pre(good[i].toUpperCase() !== ch.toUpperCase());
        const bad = good.slice(0, i) + ch + good.slice(i + 1);
        expect(() => parseBrCode(bad)).toThrow(BrCodeError);
      }),
      RUNS,
    );
  });

  it("refuses arbitrary input with a BrCodeError, never another error", () => {
    const garbage = fc.oneof(
      fc.string({ unit: "binary", maxLength: 600 }),
      fc.string({ unit: "grapheme", maxLength: 200 }).map((s) => `000201${s}`),
      input
        .filter((x) => classifyPixKey(x.pixKey) !== null)
        .chain((x) => {
          const good = encodeStaticBrCode(x);
          return fc
            .tuple(
              fc.nat({ max: good.length }),
              fc.nat({ max: good.length }),
              fc.string({ unit: "binary", maxLength: 8 }),
            )
            .map(([a, b, s]) => good.slice(0, Math.min(a, b)) + s + good.slice(Math.max(a, b)));
        }),
    );
    fc.assert(
      fc.property(garbage, (s) => {
        try {
          const parsed = parseBrCode(s);
          expect(["static", "dynamic"]).toContain(parsed.kind);
        } catch (err) {
          expect(err).toBeInstanceOf(BrCodeError);
        }
      }),
      { numRuns: 3000, seed: 20261122 },
    );
    // 3,000 runs: about a second alone, several on a machine also building and running browsers.
  }, 30_000);
});
