/**
 * BRL arrives as a JSON number ("value": 10.5). It is accepted only if its shortest decimal
 * representation has at most two decimals, so 0.1 + 0.2 (0.30000000000000004) is refused rather than
 * silently rounded, and it becomes integer centavos exactly.
 */
export function brlNumberToCentavos(value: number): number | null {
  if (typeof value !== "number" || !Number.isFinite(value)) return null;
  // String() gives the shortest representation; exponent forms are either below a centavo (1e-7) or
  // far beyond any safe number of centavos (1e+21), so both are refused with the rest.
  const m = /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(String(value));
  if (!m) return null;
  // Integers only: exact while the result is a safe integer, which is checked.
  const centavos = Number(m[2]) * 100 + Number((m[3] ?? "").padEnd(2, "0"));
  if (!Number.isSafeInteger(centavos)) return null;
  return m[1] === "-" ? -centavos : centavos;
}

/**
 * Centavos back to the number the spec's `value` fields carry (1005 → 10.05). Dividing two exact
 * integers rounds once, to the double nearest the decimal c/100: the same double "10.05" parses to.
 */
export function centavosToBrl(centavos: number): number {
  return centavos / 100;
}

/** "R$ 1.234,56" for people; the API itself always speaks numbers. */
export function formatBrl(centavos: number, locale = "pt-BR"): string {
  return new Intl.NumberFormat(locale, { style: "currency", currency: "BRL" }).format(centavos / 100);
}

/** Centavos as PSPs write amounts ("valor": "12.34"; API Pix pattern \d{1,10}\.\d{2}). */
export function centavosToDecimalString(centavos: number): string {
  if (!Number.isSafeInteger(centavos) || centavos < 0) throw new RangeError(`not a centavo amount: ${centavos}`);
  return `${Math.floor(centavos / 100)}.${String(centavos % 100).padStart(2, "0")}`;
}

/** A PSP's "12.34" as integer centavos, exactly; null for anything else (no rounding of "12.345" or "1e3"). */
export function decimalStringToCentavos(value: string): number | null {
  const m = /^(\d{1,13})\.(\d{2})$/.exec(value);
  if (!m) return null;
  const centavos = Number(m[1]) * 100 + Number(m[2]);
  return Number.isSafeInteger(centavos) ? centavos : null;
}
