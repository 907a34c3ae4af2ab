import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CNPJ_WEIGHTS, cnpjArb, CPF_WEIGHTS, cpfArb, remainder } from "./check-digits.arbitrary";
import { classifyPixKey, isValidCnpj, isValidCpf } from "./keys";

// CPF/CNPJ validators against numbers generated from the rule. A single changed digit is caught,
// except in the rule's one blind spot: remainders 0 and 1 both give check digit 0, so a change that
// only moves a remainder between 0 and 1 keeps the check digit (10150243006 and 00150243006 are both
// valid CPFs). The properties state exactly that, so any other acceptance is a bug.

const RUNS = { numRuns: 3000, seed: 20261122 };
const values = (s: string) => s.split("").map((c) => c.charCodeAt(0) - 48);

/** The two remainders behind a number's check digits (the second includes the first check digit). */
function remainders(s: string, weights: readonly (readonly number[])[]): [number, number] {
  const v = values(s);
  return [remainder(v.slice(0, weights[0].length), weights[0]), remainder(v.slice(0, weights[1].length), weights[1])];
}

/** Valid after a change only if each remainder that moved stayed within {0, 1}. */
function onlyBlindSpot(before: [number, number], after: [number, number]): boolean {
  return before.every((r, k) => r === after[k] || (r < 2 && after[k] < 2));
}

function changeDigit(s: string, at: number, by: number): string {
  return s.slice(0, at) + String((Number(s[at]) + by) % 10) + s.slice(at + 1);
}

describe("CPF (property)", () => {
  it("generated CPFs are valid, formatted or not, and classify as CPF keys", () => {
    fc.assert(
      fc.property(cpfArb, (cpf) => {
        expect(isValidCpf(cpf)).toBe(true);
        const formatted = `${cpf.slice(0, 3)}.${cpf.slice(3, 6)}.${cpf.slice(6, 9)}-${cpf.slice(9)}`;
        expect(classifyPixKey(formatted)).toEqual({ type: "cpf", normalized: cpf });
      }),
      RUNS,
    );
  });

  it("a changed check digit is always caught", () => {
    fc.assert(
      fc.property(cpfArb, fc.constantFrom(9, 10), fc.integer({ min: 1, max: 9 }), (cpf, at, by) => {
        expect(isValidCpf(changeDigit(cpf, at, by))).toBe(false);
      }),
      RUNS,
    );
  });

  it("any single-digit change is caught unless it only moves a remainder between 0 and 1", () => {
    fc.assert(
      fc.property(cpfArb, fc.nat({ max: 8 }), fc.integer({ min: 1, max: 9 }), (cpf, at, by) => {
        const changed = changeDigit(cpf, at, by);
        if (isValidCpf(changed))
          expect(onlyBlindSpot(remainders(cpf, CPF_WEIGHTS), remainders(changed, CPF_WEIGHTS))).toBe(true);
      }),
      RUNS,
    );
    expect([isValidCpf("10150243006"), isValidCpf("00150243006")]).toEqual([true, true]);
  });
});

describe("CNPJ (property)", () => {
  it("generated CNPJs, numeric and alphanumeric, are valid and classify as CNPJ keys", () => {
    fc.assert(
      fc.property(cnpjArb, (cnpj) => {
        expect(isValidCnpj(cnpj)).toBe(true);
        expect(classifyPixKey(cnpj.toLowerCase())).toEqual({ type: "cnpj", normalized: cnpj });
      }),
      RUNS,
    );
  });

  it("a changed check digit is always caught", () => {
    fc.assert(
      fc.property(cnpjArb, fc.constantFrom(12, 13), fc.integer({ min: 1, max: 9 }), (cnpj, at, by) => {
        expect(isValidCnpj(changeDigit(cnpj, at, by))).toBe(false);
      }),
      RUNS,
    );
  });

  it("any single-digit change is caught unless it only moves a remainder between 0 and 1", () => {
    fc.assert(
      fc.property(cnpjArb, fc.nat({ max: 11 }), fc.integer({ min: 1, max: 9 }), (cnpj, at, by) => {
        fc.pre(/\d/.test(cnpj[at]));
        const changed = changeDigit(cnpj, at, by);
        if (isValidCnpj(changed))
          expect(onlyBlindSpot(remainders(cnpj, CNPJ_WEIGHTS), remainders(changed, CNPJ_WEIGHTS))).toBe(true);
      }),
      RUNS,
    );
  });

  it("lower-case letters and letters among the check digits are refused", () => {
    fc.assert(
      fc.property(
        cnpjArb.filter((c) => /[A-Z]/.test(c.slice(0, 12))),
        fc.constantFrom("A", "Z"),
        (cnpj, letter) => {
          expect(isValidCnpj(cnpj.toLowerCase())).toBe(false);
          expect(isValidCnpj(cnpj.slice(0, 13) + letter)).toBe(false);
        },
      ),
      { ...RUNS, numRuns: 500 },
    );
  });
});
