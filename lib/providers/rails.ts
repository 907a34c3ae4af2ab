import { liveNetworks } from "@/lib/chain/config";
import { env, type Env } from "@/lib/env";
import { InvalidInput } from "@/lib/errors";

// Live mode starts with the rails that are configured (docs/api.md#live-mode-rails). A rail that is not answers
// its endpoints' 400, naming what to set, and the dashboard hides it; sandbox mode has them all.

export const RAILS = [
  "pix",
  "exchange",
  "lightning",
  "onchain",
  "crypto_pix",
  "crypto_pix_lightning",
  "pix_out",
  "onchain_withdrawal",
] as const;
export type Rail = (typeof RAILS)[number];

/** A rail's endpoint called while the rail is not configured: the endpoint's own 400. */
export class RailNotEnabled extends InvalidInput {}

const LIGHTNING_SETTINGS =
  "set LIGHTNING_BACKEND=lnd with LND_REST_URL, LND_MACAROON_FILE and LND_TLS_CERT_FILE, or LIGHTNING_API_URL and LIGHTNING_API_KEY (OpenNode)";
const PIX_SETTINGS =
  "PIX_API_URL, PIX_CLIENT_ID, PIX_CLIENT_SECRET and the PSP's certificate (PIX_CERT_FILE + PIX_KEY_FILE, or PIX_PFX_FILE)";

/** Why a rail is off in this configuration, or null when it is on. */
function offBecause(rail: Rail, e: Env): string | null {
  if (e.PAYMENTS_MODE === "sandbox") return null;
  const rates = e.RATES_URL ? null : "set RATES_URL";
  // lib/env/checks.ts refuses a node without DEPOSIT_XPUB and a hot-wallet key, so a node is the whole chain rail.
  const chain =
    liveNetworks().length > 0
      ? null
      : "set an EVM_RPC_URL_*, DEPOSIT_XPUB and HOT_WALLET_PRIVATE_KEY (or HOT_WALLET_KEY_FILE)";
  // Crypto-PIX over Lightning holds the payer's sats until the PIX is made: only LND holds invoices.
  const holdInvoices =
    e.LIGHTNING_BACKEND === "lnd"
      ? null
      : "set LIGHTNING_BACKEND=lnd with LND_REST_URL, LND_MACAROON_FILE and LND_TLS_CERT_FILE (hold invoices)";
  const payout = e.PIX_PAYOUT_PROVIDER ? null : "set PIX_PAYOUT_PROVIDER and PIX_PAYOUT_KEY";
  const missing = (name: string, ...needs: (string | null)[]) => {
    const what = needs.filter((n): n is string => n !== null);
    const verb = / (deposits|withdrawals|payments)$/.test(name) ? "are" : "is";
    return what.length === 0 ? null : `${name} ${verb} not enabled on this server: ${what.join("; ")}`;
  };
  switch (rail) {
    case "pix":
      return missing("PIX collection", e.PIX_API_URL ? null : `set ${PIX_SETTINGS}`);
    case "exchange":
      return missing(
        "Exchange-wallet payments",
        e.BINANCE_PAY_API_KEY ? null : "set BINANCE_PAY_API_KEY and BINANCE_PAY_SECRET_KEY",
      );
    case "lightning":
      return missing(
        "Lightning",
        e.LIGHTNING_BACKEND === "lnd" || (e.LIGHTNING_API_URL && e.LIGHTNING_API_KEY) ? null : LIGHTNING_SETTINGS,
        rates,
      );
    case "onchain":
      return missing("On-chain deposits", chain, rates);
    case "onchain_withdrawal":
      return missing("On-chain withdrawals", chain, rates);
    case "pix_out":
      return missing("PIX withdrawals", payout);
    case "crypto_pix":
      return missing("Crypto-PIX", chain, rates, payout);
    case "crypto_pix_lightning":
      return missing("Crypto-PIX over Lightning", holdInvoices, rates, payout);
  }
}

export function railOffReason(rail: Rail): string | null {
  return offBecause(rail, env());
}

export function railEnabled(rail: Rail): boolean {
  return railOffReason(rail) === null;
}

/** Throws the rail's 400 when it is not configured; nothing is written before this is asked. */
export function requireRail(rail: Rail): void {
  const reason = railOffReason(rail);
  if (reason) throw new RailNotEnabled(reason);
}

/** Every rail with whether it is on: for the dashboard, the checkout and the start-up log. */
export function railStates(): Record<Rail, string | null> {
  const e = env();
  return Object.fromEntries(RAILS.map((r) => [r, offBecause(r, e)])) as Record<Rail, string | null>;
}
