import DecimalJs from "decimal.js";

// One Decimal constructor for the whole service: enough significant digits that no amount we handle
// (18-decimal tokens, rates, BRL up to millions) is ever rounded by accident.
export const Decimal = DecimalJs.clone({
  precision: 80,
  rounding: DecimalJs.ROUND_HALF_EVEN,
  toExpNeg: -40,
  toExpPos: 60,
});
export type Decimal = InstanceType<typeof Decimal>;

/** Plain decimal string without exponent or trailing zeros ("1.5", "0.000001", "12"). */
export function toPlain(d: Decimal): string {
  return d.toFixed();
}
