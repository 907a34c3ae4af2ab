import { Decimal } from "./decimal";

/** Service fee on on-chain withdrawals: 0.5% of the value, rounded up to the centavo (docs/api.md#amounts). */
export const SERVICE_FEE_RATE = "0.005";

export function serviceFeeCentavos(valueCentavos: number): number {
  return new Decimal(valueCentavos).times(SERVICE_FEE_RATE).toDecimalPlaces(0, Decimal.ROUND_UP).toNumber();
}

/** BRL quote of a network fee (gas) → centavos, rounded up. */
export function brlToCentavosUp(brl: string): number {
  return new Decimal(brl).times(100).toDecimalPlaces(0, Decimal.ROUND_UP).toNumber();
}
