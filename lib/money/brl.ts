import { Decimal } from "./decimal";

/**
 * BRL arrives as a JSON number ("value": 10.5). It is accepted only if its shortest decimal
 * representation has at most two decimals, so 0.1 + 0.2 (0.30000000000000004) is refused rather than
 * silently rounded, and it becomes integer centavos exactly.
 */
export function brlNumberToCentavos(value: number): number | null {
  if (typeof value !== "number" || !Number.isFinite(value)) return null;
  const d = new Decimal(String(value));
  if (d.decimalPlaces() > 2) return null;
  const centavos = d.times(100);
  if (!centavos.isInteger() || !Number.isSafeInteger(centavos.toNumber())) return null;
  return centavos.toNumber();
}

/** Centavos back to the number the spec's `value` fields carry (1005 → 10.05). */
export function centavosToBrl(centavos: number): number {
  return Number(new Decimal(centavos).div(100).toFixed(2));
}

/** "R$ 1.234,56" for people; the API itself always speaks numbers. */
export function formatBrl(centavos: number, locale = "pt-BR"): string {
  return new Intl.NumberFormat(locale, { style: "currency", currency: "BRL" }).format(centavos / 100);
}
