import { readFileSync } from "node:fs";
import { ConfigError, env } from "@/lib/env";
import { SANDBOX_DEPOSIT_XPUB, SANDBOX_HOT_WALLET_KEY } from "./sandbox-keys";
import { CHAIN_IDS, isAsset, isNetwork, NETWORKS, tokenFor, type Asset, type Network, type TokenInfo } from "./tokens";

// Per-network chain settings read from the environment (docs/configuration.md, "Real chains"). A
// network is "live" when it has an RPC URL: deposits on it are watched on the node and withdrawals
// are broadcast to it, whatever PAYMENTS_MODE says.

export type NetworkChainConfig = {
  network: Network;
  rpcUrl: string;
  chainId: number;
};

export function rpcUrl(network: Network): string | undefined {
  const e = env();
  return { eth: e.EVM_RPC_URL_ETH, bsc: e.EVM_RPC_URL_BSC, polygon: e.EVM_RPC_URL_POLYGON }[network];
}

/** The chain id transactions on `network` are signed for: the real one unless EVM_CHAIN_ID_* overrides it. */
export function chainId(network: Network): number {
  const e = env();
  return { eth: e.EVM_CHAIN_ID_ETH, bsc: e.EVM_CHAIN_ID_BSC, polygon: e.EVM_CHAIN_ID_POLYGON }[network] ?? CHAIN_IDS[network];
}

export function liveChainConfig(network: Network): NetworkChainConfig | null {
  const url = rpcUrl(network);
  return url ? { network, rpcUrl: url, chainId: chainId(network) } : null;
}

export function liveNetworks(): Network[] {
  return NETWORKS.filter((n) => rpcUrl(n) !== undefined);
}

/**
 * Refuses chain settings the environment's schema cannot judge alone (it does not know the token
 * table): checked when the providers are first built, so start-up stops with the variable named.
 */
export function checkChainConfig(): void {
  const overrides = env().TOKEN_OVERRIDES_JSON ?? {};
  for (const [network, assets] of Object.entries(overrides)) {
    if (!isNetwork(network))
      throw new ConfigError(`Invalid configuration:\n  TOKEN_OVERRIDES_JSON: unknown network ${JSON.stringify(network)} (one of ${NETWORKS.join(", ")})`);
    for (const asset of Object.keys(assets)) {
      if (!isAsset(asset)) throw new ConfigError(`Invalid configuration:\n  TOKEN_OVERRIDES_JSON.${network}: unknown asset ${JSON.stringify(asset)}`);
    }
  }
}

/** The token table with TOKEN_OVERRIDES_JSON applied: what orders are created for and the watcher reads. */
export function tokenInfo(network: Network, asset: Asset): TokenInfo | null {
  const override = env().TOKEN_OVERRIDES_JSON?.[network]?.[asset];
  if (override) return { address: override.address as `0x${string}`, decimals: override.decimals };
  return tokenFor(network, asset);
}

/** Deposit addresses derive from DEPOSIT_XPUB; live mode requires it (lib/env.ts), sandbox falls back to the public test xpub. */
export function depositXpub(): string {
  return env().DEPOSIT_XPUB ?? SANDBOX_DEPOSIT_XPUB;
}

/**
 * The hot wallet's signing key: HOT_WALLET_PRIVATE_KEY, or the file HOT_WALLET_KEY_FILE names. In
 * sandbox mode with neither, the public test key (index 1 of the test mnemonic, funded on anvil);
 * live mode refuses to start without one (lib/env.ts).
 */
export function hotWalletKey(): `0x${string}` {
  const e = env();
  if (e.HOT_WALLET_PRIVATE_KEY) return e.HOT_WALLET_PRIVATE_KEY as `0x${string}`;
  if (e.HOT_WALLET_KEY_FILE) return keyFromFile(e.HOT_WALLET_KEY_FILE);
  if (e.PAYMENTS_MODE === "sandbox") return SANDBOX_HOT_WALLET_KEY;
  throw new Error("HOT_WALLET_PRIVATE_KEY or HOT_WALLET_KEY_FILE is required in live mode");
}

// Read once per path: the file is a secret mount that does not change while the process runs, and
// signing should not touch the disk on every withdrawal.
const keyFiles = new Map<string, `0x${string}`>();

function keyFromFile(path: string): `0x${string}` {
  const cached = keyFiles.get(path);
  if (cached) return cached;
  let text: string;
  try {
    text = readFileSync(path, "utf8").trim();
  } catch (err) {
    throw new Error(`HOT_WALLET_KEY_FILE: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? "error"})`);
  }
  const key = text.startsWith("0x") ? text : `0x${text}`;
  // The content is never echoed: this message ends up in logs.
  if (!/^0x[0-9a-fA-F]{64}$/.test(key)) throw new Error(`HOT_WALLET_KEY_FILE: ${path} does not hold a 32-byte hex private key`);
  keyFiles.set(path, key as `0x${string}`);
  return key as `0x${string}`;
}
