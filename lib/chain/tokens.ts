// The single source of truth for which ERC-20 contracts we accept, per network.
// Source: each issuer's published contracts (TOKEN_OVERRIDES_JSON replaces an entry:
// docs/providers.md#chain-evm). In live mode, confirm decimals()/symbol() on-chain at
// start-up instead of trusting these figures: public code often gets BSC decimals wrong
// (all Binance-Peg tokens there use 18), and Polygon USDT may have been upgraded in place.

export const NETWORKS = ["eth", "bsc", "polygon"] as const;
export type Network = (typeof NETWORKS)[number];

export const ASSETS = ["USDT", "USDC", "DAI", "BUSD"] as const;
export type Asset = (typeof ASSETS)[number];

export const CHAIN_IDS: Record<Network, number> = {
  eth: 1,
  bsc: 56,
  polygon: 137,
};

export type TokenInfo = { address: `0x${string}`; decimals: number };

// null means "token not supported on this network", never a placeholder address.
const TOKENS: Record<Network, Record<Asset, TokenInfo | null>> = {
  eth: {
    USDT: { address: "0xdAC17F958D2ee523a2206206994597C13D831ec7", decimals: 6 },
    USDC: { address: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", decimals: 6 },
    DAI: { address: "0x6B175474E89094C44Da98b954EedeAC495271d0F", decimals: 18 },
    // Paxos stopped minting BUSD in Feb 2023; still listed because the spec lists it.
    BUSD: { address: "0x4Fabb145d64652a948d72533023f6E7A623C7C53", decimals: 18 },
  },
  bsc: {
    USDT: { address: "0x55d398326f99059fF775485246999027B3197955", decimals: 18 },
    USDC: { address: "0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d", decimals: 18 },
    DAI: { address: "0x1AF3F329e8BE154074D8769D1FFa4eE058B1DBc3", decimals: 18 },
    BUSD: { address: "0xe9e7CEA3DedcA5984780Bafc599bD69ADd087D56", decimals: 18 },
  },
  polygon: {
    USDT: { address: "0xc2132D05D31c914a87C6611C10748AEb04B58e8F", decimals: 6 },
    // Native Circle USDC, not the bridged USDC.e (0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174):
    // customers paying "USDC" from an exchange today send the native one.
    USDC: { address: "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359", decimals: 6 },
    DAI: { address: "0x8f3Cf7ad23Cd3CaDbD9735AFf958023239c6A063", decimals: 18 },
    // No native BUSD was ever issued on Polygon; only dead bridged copies exist.
    BUSD: null,
  },
};

export function tokenFor(network: Network, asset: Asset): TokenInfo | null {
  const token = TOKENS[network]?.[asset];
  // A copy, so a caller mutating the result cannot corrupt the shared table.
  return token ? { address: token.address, decimals: token.decimals } : null;
}

export function isNetwork(s: unknown): s is Network {
  return typeof s === "string" && (NETWORKS as readonly string[]).includes(s);
}

export function isAsset(s: unknown): s is Asset {
  return typeof s === "string" && (ASSETS as readonly string[]).includes(s);
}
