import { checkChainConfig, liveNetworks } from "@/lib/chain/config";
import { env, type Env } from "@/lib/env";
import { processSlot } from "@/lib/singleton";
import { liveChain } from "./chain/live";
import { routedChain } from "./chain/routed";
import { sandboxChain } from "./chain/sandbox";
import type { ChainProvider } from "./chain/types";
import { sandboxExchange } from "./exchange/sandbox";
import type { ExchangeWalletProvider } from "./exchange/types";
import { openNodeLightning } from "./lightning/opennode";
import { sandboxLightning } from "./lightning/sandbox";
import type { LightningProvider } from "./lightning/types";
import { sandboxPayout } from "./payout/sandbox";
import type { PixPayoutProvider } from "./payout/types";
import { sandboxPix } from "./pix/sandbox";
import type { PixProvider } from "./pix/types";
import { liveRates } from "./rates/live";
import { sandboxRates } from "./rates/sandbox";
import type { RatesProvider } from "./rates/types";

export type Providers = {
  rates: RatesProvider;
  pix: PixProvider;
  payout: PixPayoutProvider;
  exchange: ExchangeWalletProvider;
  lightning: LightningProvider;
  chain: ChainProvider;
};

// The chain entry routes per network: a network with an EVM_RPC_URL_* goes to its node even in
// sandbox mode (so the real watcher and real transfers run against a local node); the others stay
// sandbox. Rates, PIX, exchange wallet and Lightning stay sandbox whatever is configured, so sandbox
// figures remain predictable.
function sandboxProviders(): Providers {
  return {
    rates: sandboxRates,
    pix: sandboxPix,
    payout: sandboxPayout,
    exchange: sandboxExchange,
    lightning: sandboxLightning,
    chain: routedChain({ live: liveChain(sandboxRates), sandbox: sandboxChain }),
  };
}

/**
 * Live adapters, each present only when its configuration is. Live mode refuses to start while any
 * provider it would use has none, naming it (CONTRACT §1), rather than taking real money through a
 * sandbox. PIX and the exchange wallet have no live adapter yet.
 */
function liveAdapters(e: Env): Partial<Providers> {
  return {
    rates: e.RATES_URL ? liveRates : undefined,
    lightning: e.LIGHTNING_API_URL && e.LIGHTNING_API_KEY ? openNodeLightning : undefined,
    chain: liveNetworks().length > 0 ? routedChain({ live: liveChain(liveRates), sandbox: sandboxChain }) : undefined,
  };
}

const HOW_TO_CONFIGURE: Record<keyof Providers, string> = {
  rates: "rates (set RATES_URL)",
  pix: "pix (no live adapter exists yet)",
  payout: "payout (no live adapter exists yet)",
  exchange: "exchange (no live adapter exists yet)",
  lightning: "lightning (set LIGHTNING_API_URL and LIGHTNING_API_KEY)",
  chain: "chain (set an EVM_RPC_URL_* and HOT_WALLET_PRIVATE_KEY or HOT_WALLET_KEY_FILE)",
};

export class MissingLiveProvider extends Error {}

// Built once per configuration (tests change it between files; production never does).
const built = new WeakMap<Env, Providers>();

/** The providers this configuration uses; throws (naming what to set) when it is not a usable one. */
export function providers(): Providers {
  const e = env();
  let p = built.get(e);
  if (!p) {
    p = build(e);
    built.set(e, p);
  }
  return overrides.value ? { ...p, ...overrides.value } : p;
}

const overrides = processSlot<Partial<Providers>>("provider-overrides");

/**
 * Tests stand a provider in for the configured one (a payout provider that loses its answers, say)
 * and put it back with `undefined`. Production never calls this.
 */
export function overrideProvidersForTests(replacement: Partial<Providers> | undefined): void {
  overrides.value = replacement;
}

function build(e: Env): Providers {
  checkChainConfig();
  if (e.PAYMENTS_MODE === "sandbox") return sandboxProviders();
  const live = liveAdapters(e);
  const missing = (Object.keys(HOW_TO_CONFIGURE) as (keyof Providers)[]).filter((k) => !live[k]);
  if (missing.length > 0) {
    throw new MissingLiveProvider(`Live mode needs a live adapter for: ${missing.map((k) => HOW_TO_CONFIGURE[k]).join(", ")}`);
  }
  return live as Providers;
}
