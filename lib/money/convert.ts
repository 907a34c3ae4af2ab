import { Decimal, toPlain } from "./decimal";

// Every conversion rounds against the payer and in favour of the merchant's exactness:
// what a payer must send rounds up; what we send out rounds down; what we credit from a partial
// payment rounds down to the centavo.

export const CRYPTO_DISPLAY_DECIMALS = 6;

/** Crypto a payer must send for `centavos` at `rateBrl` BRL per unit, rounded up to 6 decimals. */
export function cryptoDueFor(centavos: number, rateBrl: string): string {
  const due = new Decimal(centavos).div(100).div(rateBrl);
  return toPlain(due.toDecimalPlaces(CRYPTO_DISPLAY_DECIMALS, Decimal.ROUND_UP));
}

/** Lightning: satoshis = ceil(value / BTC_BRL × 1e8) (docs/api.md#amounts). */
export function satoshisFor(centavos: number, btcBrl: string): number {
  const sats = new Decimal(centavos).div(100).div(btcBrl).times(1e8).toDecimalPlaces(0, Decimal.ROUND_UP);
  return sats.toNumber();
}

/** Tokens a withdrawal sends for `centavos`: rounded down to the token's precision. */
export function tokensForWithdrawal(centavos: number, rateBrl: string, decimals: number): string {
  const tokens = new Decimal(centavos).div(100).div(rateBrl).toDecimalPlaces(decimals, Decimal.ROUND_DOWN);
  return toPlain(tokens);
}

/** BRL value of a crypto amount at a locked rate, rounded down to the centavo. */
export function centavosForCrypto(amount: string, rateBrl: string): number {
  return new Decimal(amount).times(rateBrl).times(100).toDecimalPlaces(0, Decimal.ROUND_DOWN).toNumber();
}

/** "1.5" with 6 decimals → 1500000n. Refuses amounts finer than the token can represent. */
export function toBaseUnits(amount: string, decimals: number): bigint {
  const d = new Decimal(amount).times(new Decimal(10).pow(decimals));
  if (!d.isInteger()) throw new RangeError(`amount ${amount} has more than ${decimals} decimals`);
  return BigInt(d.toFixed(0));
}

export function fromBaseUnits(units: bigint, decimals: number): string {
  return toPlain(new Decimal(units.toString()).div(new Decimal(10).pow(decimals)));
}

export function cryptoCompare(a: string, b: string): -1 | 0 | 1 {
  return new Decimal(a).comparedTo(b) as -1 | 0 | 1;
}

export function cryptoAdd(a: string, b: string): string {
  return toPlain(new Decimal(a).plus(b));
}

export function cryptoSub(a: string, b: string): string {
  return toPlain(new Decimal(a).minus(b));
}

export function cryptoMin(a: string, b: string): string {
  return cryptoCompare(a, b) <= 0 ? a : b;
}

/** Exact decimal string → JSON number for the spec's numeric crypto fields. */
export function cryptoToNumber(amount: string): number {
  return new Decimal(amount).toNumber();
}
