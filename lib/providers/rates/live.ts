import { z } from "zod";
import { env } from "@/lib/env";
import { UpstreamUnavailable } from "@/lib/errors";
import { Decimal } from "@/lib/money";
import { requestJson, UpstreamHttpError } from "@/lib/providers/http/client";
import { processSingleton } from "@/lib/singleton";
import type { Quote, QuotedSymbol, RatesProvider } from "./types";

// BRL quotes from a CoinGecko-compatible `simple/price` endpoint (RATES_URL). Every symbol is fetched
// in one request and cached for RATES_CACHE_SECONDS; a quote whose own timestamp is older than
// RATES_MAX_AGE_SECONDS is refused, because the rate is fixed onto an order and a stale one would
// price real money wrongly.

const IDS: Record<QuotedSymbol, string> = {
  USDT: "tether",
  USDC: "usd-coin",
  DAI: "dai",
  BUSD: "binance-usd",
  BTC: "bitcoin",
  ETH: "ethereum",
  BNB: "binancecoin",
  POL: "polygon-ecosystem-token",
};

const priceEntry = z.object({
  brl: z.number().positive().finite(),
  last_updated_at: z.number().int().positive().optional(),
});
const priceBody = z.record(z.string(), z.unknown());

type Batch = { fetchedAt: number; quotes: Map<QuotedSymbol, Quote> };
const state = processSingleton<{ batch: Batch | null; inFlight: Promise<Batch> | null }>("live-rates", () => ({
  batch: null,
  inFlight: null,
}));

/** RATES_URL is the API base (…/api/v3) or the simple/price endpoint itself. */
function endpoint(): URL {
  const base = env().RATES_URL!;
  const url = new URL(
    /\/simple\/price\/?$/.test(new URL(base).pathname) ? base : `${base.replace(/\/+$/, "")}/simple/price`,
  );
  url.searchParams.set("ids", Object.values(IDS).join(","));
  url.searchParams.set("vs_currencies", "brl");
  url.searchParams.set("include_last_updated_at", "true");
  url.searchParams.set("precision", "full");
  return url;
}

async function fetchBatch(): Promise<Batch> {
  const e = env();
  const url = endpoint();
  const headers: Record<string, string> = e.RATES_API_KEY ? { [e.RATES_API_KEY_HEADER]: e.RATES_API_KEY } : {};
  const body = priceBody.safeParse(
    await requestJson(url.toString(), { headers, timeoutMs: e.RATES_TIMEOUT_MS, retries: 2 }),
  );
  if (!body.success) throw new UpstreamHttpError(200, "answer is not a simple/price object");
  const fetchedAt = Date.now();
  const quotes = new Map<QuotedSymbol, Quote>();
  for (const [symbol, id] of Object.entries(IDS) as [QuotedSymbol, string][]) {
    const entry = priceEntry.safeParse(body.data[id]);
    if (!entry.success) continue;
    quotes.set(symbol, {
      // Through the number's shortest decimal form, never binary arithmetic.
      rate: new Decimal(String(entry.data.brl)).toFixed(),
      source: url.host,
      at: entry.data.last_updated_at ? new Date(entry.data.last_updated_at * 1000) : new Date(fetchedAt),
    });
  }
  return { fetchedAt, quotes };
}

/** One request at a time refreshes the cache; callers arriving meanwhile share it. */
async function currentBatch(): Promise<Batch> {
  const cached = state.batch;
  if (cached && Date.now() - cached.fetchedAt < env().RATES_CACHE_SECONDS * 1000) return cached;
  state.inFlight ??= fetchBatch().finally(() => {
    state.inFlight = null;
  });
  try {
    state.batch = await state.inFlight;
    return state.batch;
  } catch (err) {
    // A failed refresh falls back to the last answer; the age check below still applies to it.
    if (cached) return cached;
    const reason = err instanceof Error ? err.message : String(err);
    throw new UpstreamUnavailable(`Rate source unavailable: ${reason}`, { code: "rates.unavailable" });
  }
}

export const liveRates: RatesProvider = {
  name: "live-rates",
  async quote(symbol) {
    const quote = (await currentBatch()).quotes.get(symbol);
    if (!quote)
      throw new UpstreamUnavailable(`Rate source has no BRL quote for ${symbol}`, { code: "rates.unavailable" });
    const ageSeconds = Math.floor((Date.now() - quote.at.getTime()) / 1000);
    const maxAge = env().RATES_MAX_AGE_SECONDS;
    if (ageSeconds > maxAge) {
      throw new UpstreamUnavailable(
        `Rate source quote for ${symbol} is ${ageSeconds} s old, older than RATES_MAX_AGE_SECONDS (${maxAge} s)`,
        {
          code: "rates.unavailable",
        },
      );
    }
    return { ...quote };
  },
};

/** Tests point RATES_URL at a new server between cases; production never calls this. */
export function resetRatesCacheForTests(): void {
  state.batch = null;
  state.inFlight = null;
}
