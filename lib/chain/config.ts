import { readFileSync } from "node:fs";
import { parseGwei } from "viem";
import { ConfigError, env, type FloatLimit } from "@/lib/env";
import { SANDBOX_DEPOSIT_XPUB, SANDBOX_HOT_WALLET_KEY } from "./sandbox-keys";
import {
  ASSETS,
  CHAIN_IDS,
  isAsset,
  isNetwork,
  NETWORKS,
  tokenFor,
  type Asset,
  type Network,
  type TokenInfo,
} from "./tokens";

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
  return (
    { eth: e.EVM_CHAIN_ID_ETH, bsc: e.EVM_CHAIN_ID_BSC, polygon: e.EVM_CHAIN_ID_POLYGON }[network] ?? CHAIN_IDS[network]
  );
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
  const e = env();
  const problems = NETWORKS.flatMap((network) => [
    ...chainProblems(network),
    ...floatProblems(network),
    ...sweepProblems(network),
  ]);
  if (
    e.PAYMENTS_MODE === "sandbox" &&
    (e.HOT_WALLET_PRIVATE_KEY || e.HOT_WALLET_KEY_FILE) &&
    liveNetworks().length === 0
  ) {
    // Nothing in sandbox signs with it then: a real key here is a live configuration copied by mistake.
    problems.push(
      "HOT_WALLET_PRIVATE_KEY: sandbox mode uses a hot-wallet key only for a network routed to a test node (EVM_RPC_URL_*); remove it",
    );
  }
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n${problems.map((p) => `  ${p}`).join("\n")}`);
  const overrides = e.TOKEN_OVERRIDES_JSON ?? {};
  for (const [network, assets] of Object.entries(overrides)) {
    if (!isNetwork(network))
      throw new ConfigError(
        `Invalid configuration:\n  TOKEN_OVERRIDES_JSON: unknown network ${JSON.stringify(network)} (one of ${NETWORKS.join(", ")})`,
      );
    for (const asset of Object.keys(assets)) {
      if (!isAsset(asset))
        throw new ConfigError(
          `Invalid configuration:\n  TOKEN_OVERRIDES_JSON.${network}: unknown asset ${JSON.stringify(asset)}`,
        );
    }
  }
}

/** What the hot wallet's float is kept in on a network: its tokens, and gas (the native coin). */
export type FloatAsset = Asset | "gas";

/** The float configured for `network` (HOT_WALLET_FLOAT_<NET>), or null when none is: then nothing is watched or held there. */
export function floatLimits(network: Network): Partial<Record<FloatAsset, FloatLimit>> | null {
  const e = env();
  const limits = { eth: e.HOT_WALLET_FLOAT_ETH, bsc: e.HOT_WALLET_FLOAT_BSC, polygon: e.HOT_WALLET_FLOAT_POLYGON }[
    network
  ];
  return limits && Object.keys(limits).length > 0 ? (limits as Partial<Record<FloatAsset, FloatLimit>>) : null;
}

function floatProblems(network: Network): string[] {
  const limits = floatLimits(network);
  if (!limits) return [];
  const N = network.toUpperCase();
  const problems = Object.keys(limits)
    .filter((asset) => asset !== "gas" && (!isAsset(asset) || !tokenInfo(network, asset)))
    .map(
      (asset) =>
        `HOT_WALLET_FLOAT_${N}: ${asset} is not a token on ${network} (${ASSETS.filter((a) => tokenInfo(network, a)).join(", ")}, or gas)`,
    );
  if (!rpcUrl(network))
    problems.push(
      `HOT_WALLET_FLOAT_${N}: ${network} has no node (EVM_RPC_URL_${N}) to read the hot wallet's balances from`,
    );
  return problems;
}

/** Per token, the balance (whole units) above which a deposit address is swept (SWEEP_THRESHOLDS_<NET>); null: not swept. */
export function sweepThresholds(network: Network): Partial<Record<Asset, string>> | null {
  const e = env();
  const thresholds = { eth: e.SWEEP_THRESHOLDS_ETH, bsc: e.SWEEP_THRESHOLDS_BSC, polygon: e.SWEEP_THRESHOLDS_POLYGON }[
    network
  ];
  return thresholds && Object.keys(thresholds).length > 0 ? (thresholds as Partial<Record<Asset, string>>) : null;
}

function sweepProblems(network: Network): string[] {
  const thresholds = sweepThresholds(network);
  if (!thresholds) return [];
  const N = network.toUpperCase();
  const problems = Object.keys(thresholds)
    .filter((asset) => !isAsset(asset) || !tokenInfo(network, asset))
    .map(
      (asset) =>
        `SWEEP_THRESHOLDS_${N}: ${asset} is not a token on ${network} (${ASSETS.filter((a) => tokenInfo(network, a)).join(", ")})`,
    );
  if (!rpcUrl(network)) problems.push(`SWEEP_THRESHOLDS_${N}: ${network} has no node (EVM_RPC_URL_${N}) to sweep on`);
  return problems;
}

// Chain ids of local development nodes (anvil, hardhat: 31337; ganache, geth --dev: 1337).
const DEV_CHAIN_IDS = new Set([31337, 1337]);
const MAIN_NET_CHAIN_IDS = new Set(Object.values(CHAIN_IDS));

/**
 * Sandbox money is not real (docs/configuration.md#what-start-up-refuses), so sandbox must never sign or watch on a main-net chain,
 * and a node it watches on a public test chain needs deposit addresses of our own (the test
 * mnemonic's keys are public: anyone could sweep what arrives). Live mode refuses a development
 * chain id unless ALLOW_TEST_CHAINS says a staging node is meant.
 */
function chainProblems(network: Network): string[] {
  const e = env();
  const N = network.toUpperCase();
  const id = chainId(network);
  const routed = rpcUrl(network) !== undefined;
  const explicitId = { eth: e.EVM_CHAIN_ID_ETH, bsc: e.EVM_CHAIN_ID_BSC, polygon: e.EVM_CHAIN_ID_POLYGON }[network];
  if (e.PAYMENTS_MODE === "live") {
    return explicitId !== undefined && DEV_CHAIN_IDS.has(explicitId) && !e.ALLOW_TEST_CHAINS
      ? [`EVM_CHAIN_ID_${N}: ${explicitId} is a development chain; live mode refuses it unless ALLOW_TEST_CHAINS=true`]
      : [];
  }
  if (!routed) return [];
  if (MAIN_NET_CHAIN_IDS.has(id))
    return [
      `EVM_RPC_URL_${N}: sandbox mode refuses a node on main-net chain id ${id}; point it at a test chain and set EVM_CHAIN_ID_${N}, or run PAYMENTS_MODE=live`,
    ];
  if (!DEV_CHAIN_IDS.has(id) && !e.DEPOSIT_XPUB)
    return [
      `DEPOSIT_XPUB: is required in sandbox mode once ${network} is routed to a public test chain (${id}): the default test addresses' keys are public`,
    ];
  return [];
}

/** The token table with TOKEN_OVERRIDES_JSON applied: what orders are created for and the watcher reads. */
export function tokenInfo(network: Network, asset: Asset): TokenInfo | null {
  const override = env().TOKEN_OVERRIDES_JSON?.[network]?.[asset];
  if (override) return { address: override.address as `0x${string}`, decimals: override.decimals };
  return tokenFor(network, asset);
}

/** The asset a token contract is on `network` (overrides included), or null for a token outside the table. */
export function assetOf(network: Network, tokenAddress: string): Asset | null {
  const wanted = tokenAddress.toLowerCase();
  for (const asset of ["USDT", "USDC", "DAI", "BUSD"] as const) {
    if (tokenInfo(network, asset)?.address.toLowerCase() === wanted) return asset;
  }
  return null;
}

/** How a stray transfer is described to the merchant: what arrived where, and why it does not count. */
export function strayNote(
  transfer: { network: string; tokenAddress: string; amount: string },
  expected: { network: string; asset: string },
  reason: "wrong_token" | "wrong_network",
): string {
  const asset = assetOf(transfer.network as Network, transfer.tokenAddress) ?? transfer.tokenAddress;
  return reason === "wrong_token"
    ? `${transfer.amount} ${asset} received on ${transfer.network}: this address waits for ${expected.asset}, so it does not count; contact support to recover it`
    : `${transfer.amount} ${asset} received on ${transfer.network}: this address waits for ${expected.asset} on ${expected.network}, so it does not count; contact support to recover it`;
}

/** The most a hot-wallet transaction on `network` may offer per gas (CHAIN_MAX_FEE_GWEI_<NET>), in wei. */
export function maxFeeCapWei(network: Network): bigint {
  const e = env();
  const gwei = { eth: e.CHAIN_MAX_FEE_GWEI_ETH, bsc: e.CHAIN_MAX_FEE_GWEI_BSC, polygon: e.CHAIN_MAX_FEE_GWEI_POLYGON }[
    network
  ];
  return parseGwei(String(gwei));
}

/**
 * Deposit addresses derive from DEPOSIT_XPUB. Sandbox falls back to the public test xpub; live mode
 * requires it once a network has a node (lib/env/checks.ts) and never falls back: anyone holds those keys.
 */
export function depositXpub(): string {
  const e = env();
  if (e.DEPOSIT_XPUB) return e.DEPOSIT_XPUB;
  if (e.PAYMENTS_MODE === "sandbox") return SANDBOX_DEPOSIT_XPUB;
  throw new Error("DEPOSIT_XPUB is required in live mode to derive deposit addresses");
}

/**
 * The hot wallet's signing key: HOT_WALLET_PRIVATE_KEY, or the file HOT_WALLET_KEY_FILE names. In
 * sandbox mode with neither, the public test key (index 1 of the test mnemonic, funded on anvil);
 * live mode refuses to start without one (lib/env/checks.ts).
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
  if (!/^0x[0-9a-fA-F]{64}$/.test(key))
    throw new Error(`HOT_WALLET_KEY_FILE: ${path} does not hold a 32-byte hex private key`);
  keyFiles.set(path, key as `0x${string}`);
  return key as `0x${string}`;
}
