/** A BRL price for one unit of an asset, fixed onto an order at creation. */
export type Quote = { rate: string; source: string; at: Date };
export type QuotedSymbol = "USDT" | "USDC" | "DAI" | "BUSD" | "BTC" | NativeSymbol;
/** Gas tokens: network fees are paid in them and quoted to the merchant in BRL. */
export type NativeSymbol = "ETH" | "BNB" | "POL";

export interface RatesProvider {
  readonly name: string;
  quote(symbol: QuotedSymbol): Promise<Quote>;
}
