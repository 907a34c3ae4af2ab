import { checkChainConfig, liveNetworks } from "@/lib/chain/config";
import { env, type Env } from "@/lib/env";
import { processSlot } from "@/lib/singleton";
import { liveChain } from "./chain/live";
import { routedChain } from "./chain/routed";
import { sandboxChain } from "./chain/sandbox";
import type { ChainProvider } from "./chain/types";
import { binancePay } from "./exchange/binance-pay";
import { sandboxExchange } from "./exchange/sandbox";
import type { ExchangeWalletProvider } from "./exchange/types";
import { lndLightning } from "./lightning/lnd";
import { openNodeLightning } from "./lightning/opennode";
import { sandboxLightning } from "./lightning/sandbox";
import type { LightningProvider } from "./lightning/types";
import { efiPayout } from "./payout/efi";
import { sandboxPayout } from "./payout/sandbox";
import type { PixPayoutProvider } from "./payout/types";
import { apiPix } from "./pix/api-pix";
import { apiPixDueCharges } from "./pix/api-pix-cobv";
import type { DueChargeProvider } from "./pix/due-charges";
import { sandboxDueCharges } from "./pix/sandbox-cobv";
import { sandboxPix } from "./pix/sandbox";
import type { PixProvider } from "./pix/types";
import { apiPixRecurringFromEnv } from "./recurring/api-pix";
import { sandboxRecurring } from "./recurring/sandbox";
import type { RecurringProvider } from "./recurring/types";
import { liveRates } from "./rates/live";
import { sandboxRates } from "./rates/sandbox";
import type { RatesProvider } from "./rates/types";
import { RailNotEnabled, railOffReason } from "./rails";

export type Providers = {
  rates: RatesProvider;
  pix: PixProvider;
  /** Charges with a due date (API Pix cobv), through the same PSP as `pix`. */
  dueCharges: DueChargeProvider;
  /** Pix Automático (API Pix rec/cobr), through the same PSP as `pix`. */
  recurring: RecurringProvider;
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
    dueCharges: sandboxDueCharges,
    recurring: sandboxRecurring,
    payout: sandboxPayout,
    exchange: sandboxExchange,
    lightning: sandboxLightning,
    chain: routedChain({ live: liveChain(sandboxRates), sandbox: sandboxChain }),
  };
}

/**
 * Live adapters where their configuration is, and where it is not, a stand-in that answers the
 * rail's 400 naming what to set (lib/providers/rails.ts): live mode starts with the rails it has
 * (docs/providers.md#what-every-adapter-does), never with a sandbox adapter taking real money.
 */
function liveProviders(e: Env): Providers {
  const rates = e.RATES_URL ? liveRates : ratesNotConfigured;
  return {
    rates,
    pix: e.PIX_API_URL ? apiPix : notConfigured<PixProvider>("pix", railOffReason("pix")!),
    dueCharges: e.PIX_API_URL ? apiPixDueCharges : notConfigured<DueChargeProvider>("pix", railOffReason("pix")!),
    recurring: e.PIX_API_URL
      ? apiPixRecurringFromEnv
      : notConfigured<RecurringProvider>("recurring", railOffReason("pix")!),
    payout:
      e.PIX_PAYOUT_PROVIDER === "efi"
        ? efiPayout
        : notConfigured<PixPayoutProvider>("payout", railOffReason("pix_out")!),
    exchange: e.BINANCE_PAY_API_KEY
      ? binancePay
      : notConfigured<ExchangeWalletProvider>("exchange", railOffReason("exchange")!),
    lightning:
      e.LIGHTNING_BACKEND === "lnd"
        ? lndLightning
        : e.LIGHTNING_API_URL && e.LIGHTNING_API_KEY
          ? openNodeLightning
          : notConfigured<LightningProvider>("lightning", railOffReason("lightning")!),
    chain:
      liveNetworks().length > 0
        ? routedChain({ live: liveChain(rates), sandbox: sandboxChain })
        : notConfigured<ChainProvider>("chain", railOffReason("onchain")!),
  };
}

/** A provider for a rail that is off: every call answers the rail's 400; its name says what it is. */
function notConfigured<T extends object>(kind: string, reason: string): T {
  return new Proxy({} as T, {
    get(_target, prop) {
      if (prop === "name") return `${kind}-not-configured`;
      if (prop === "then") return undefined;
      return () => {
        throw new RailNotEnabled(reason);
      };
    },
  });
}

/**
 * Rates without RATES_URL. Not the generic stand-in, whose calls throw as they are made: pages that
 * show today's rates beside other rails (the dashboard's new-order page, in a PIX-only deployment)
 * collect several quotes with Promise.allSettled, which only survives a rejected promise.
 */
const ratesNotConfigured: RatesProvider = {
  name: "rates-not-configured",
  quote: () => Promise.reject(new RailNotEnabled("Live rates are not configured on this server: set RATES_URL")),
};

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
  return e.PAYMENTS_MODE === "sandbox" ? sandboxProviders() : liveProviders(e);
}
