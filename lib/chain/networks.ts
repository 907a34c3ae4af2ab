import { env } from "@/lib/env";
import { InvalidInput } from "@/lib/errors";
import { ASSETS, isAsset, isNetwork, NETWORKS, type Asset, type Network, type TokenInfo } from "@/lib/chain/tokens";
import { Decimal } from "@/lib/money";
import { rpcUrl, tokenInfo } from "./config";

/**
 * Resolves a network + asset pair the client asked for, against the networks the endpoint allows.
 * Each refusal is the spec's 400 with a message naming what was wrong.
 */
export function resolveToken(
  network: string,
  asset: string,
  allowed: readonly Network[],
  opts: { networkExtra?: (allowed: readonly Network[]) => Record<string, unknown> } = {},
): { network: Network; asset: Asset; token: TokenInfo } {
  if (!isNetwork(network) || !allowed.includes(network)) {
    throw new InvalidInput(
      `Network not supported: ${JSON.stringify(network)}. Supported networks: ${allowed.join(", ")}`,
      {
        code: "network.notSupported",
        extra: opts.networkExtra?.(allowed),
      },
    );
  }
  if (!isAsset(asset)) {
    throw new InvalidInput(`Token not supported: ${JSON.stringify(asset)}. Supported tokens: ${ASSETS.join(", ")}`, {
      code: "asset.notSupported",
    });
  }
  // Live mode takes money only on networks it watches: without a node, a deposit would never be seen.
  if (env().PAYMENTS_MODE === "live" && !rpcUrl(network)) {
    throw new InvalidInput(`Network not supported: ${network} is not configured on this server`, {
      code: "network.notSupported",
      extra: opts.networkExtra?.(allowed),
    });
  }
  const token = tokenInfo(network, asset);
  if (!token || (asset === "BUSD" && env().PAYMENTS_MODE === "live")) {
    throw new InvalidInput(`Token not supported: ${asset} is not available on ${network}`, {
      code: "asset.notOnNetwork",
      values: { asset, network },
    });
  }
  return { network, asset, token };
}

export const ALL_NETWORKS = NETWORKS;

/** Smallest crypto amount worth receiving on a network: below it, gas would eat the deposit. */
export function minimumDeposit(network: Network): string {
  const e = env();
  return { eth: e.MIN_DEPOSIT_ETH, bsc: e.MIN_DEPOSIT_BSC, polygon: e.MIN_DEPOSIT_POLYGON }[network];
}

export function belowMinimum(amount: string, network: Network): boolean {
  return new Decimal(amount).lt(minimumDeposit(network));
}

/** At least 1: the block that includes a transfer is its first confirmation, and 0 would mean "not mined". */
export function confirmationsRequired(network: Network): number {
  const e = env();
  return Math.max(1, { eth: e.CONFIRMATIONS_ETH, bsc: e.CONFIRMATIONS_BSC, polygon: e.CONFIRMATIONS_POLYGON }[network]);
}
