import { env } from "@/lib/env";
import type { NativeSymbol, QuotedSymbol, RatesProvider } from "./types";

// Gas tokens only price the network fee of a withdrawal to a local node (sandbox mode with an
// EVM_RPC_URL_*); plausible fixed figures are enough there.
const SANDBOX_NATIVE_BRL: Record<NativeSymbol, string> = { ETH: "18000.00", BNB: "3500.00", POL: "1.50" };

/** Fixed, configurable quotes so sandbox figures are predictable (SANDBOX_RATE_*). */
export const sandboxRates: RatesProvider = {
  name: "sandbox",
  async quote(symbol) {
    const e = env();
    const usd = e.SANDBOX_RATE_USD_BRL;
    const rates: Record<QuotedSymbol, string> = {
      USDT: usd,
      USDC: usd,
      DAI: usd,
      BUSD: usd,
      BTC: e.SANDBOX_RATE_BTC_BRL,
      ...SANDBOX_NATIVE_BRL,
    };
    return { rate: rates[symbol], source: "sandbox", at: new Date() };
  },
};
