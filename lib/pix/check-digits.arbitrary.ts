import fc from "fast-check";

// Test-only arbitraries (fast-check is a dev dependency): valid CPFs and CNPJs built from the
// Receita Federal rule, written independently of lib/pix/keys so the tests check it rather than
// repeat it.

/** The weighted sum modulo 11 that a check digit is derived from. */
export function remainder(values: number[], weights: readonly number[]): number {
  return values.reduce((acc, v, i) => acc + v * weights[i], 0) % 11;
}

/** The modulo-11 check digit; remainders 0 and 1 both give 0. */
export function checkDigit(values: number[], weights: readonly number[]): number {
  const rest = remainder(values, weights);
  return rest < 2 ? 0 : 11 - rest;
}

export const CPF_WEIGHTS = [
  [10, 9, 8, 7, 6, 5, 4, 3, 2],
  [11, 10, 9, 8, 7, 6, 5, 4, 3, 2],
] as const;
export const CNPJ_WEIGHTS = [
  [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2],
  [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2],
] as const;

/** Appends both check digits to a base given as values (a CNPJ character weighs its code minus 48). */
export function withCheckDigits(base: number[], weights: readonly (readonly number[])[]): number[] {
  const d1 = checkDigit(base, weights[0]);
  return [...base, d1, checkDigit([...base, d1], weights[1])];
}

export const cpfArb = fc
  .array(fc.integer({ min: 0, max: 9 }), { minLength: 9, maxLength: 9 })
  .filter((d) => new Set(d).size > 1)
  .map((d) => withCheckDigits(d, CPF_WEIGHTS).join(""));

/** Numeric and alphanumeric CNPJs (the 2026 format: letters in the first 12 characters). */
export const cnpjArb = fc
  .array(fc.constantFrom(..."0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ".split("")), { minLength: 12, maxLength: 12 })
  .filter((c) => new Set(c).size > 1)
  .map((c) => {
    const digits = withCheckDigits(
      c.map((ch) => ch.charCodeAt(0) - 48),
      CNPJ_WEIGHTS,
    ).slice(12);
    return `${c.join("")}${digits.join("")}`;
  });
