import { depositXpub, rpcUrl } from "@/lib/chain/config";
import { env } from "@/lib/env";
import { liveChain } from "./live";
import { sandboxChain } from "./sandbox";
import type { Network } from "./tokens";
import type { ChainProvider } from "./types";

/**
 * Picks the chain adapter per network: the EVM node for a network with an RPC URL, in either mode
 * (so the real watcher and real transfers can run against a local node while other providers stay
 * sandbox); otherwise the sandbox in sandbox mode. Live mode never falls back: the live adapter
 * refuses a network without a node, naming it.
 */
function pick(network: Network): ChainProvider {
  return rpcUrl(network) || env().PAYMENTS_MODE === "live" ? liveChain : sandboxChain;
}

export const routedChain: ChainProvider = {
  name: "chain",
  depositXpub,
  quoteNetworkFeeCentavos: (network) => pick(network).quoteNetworkFeeCentavos(network),
  hotWalletAddress: (network) => pick(network).hotWalletAddress(network),
  nonceScope: (network) => pick(network).nonceScope(network),
  pendingNonce: (network) => pick(network).pendingNonce(network),
  signTransfer: (args) => pick(args.network).signTransfer(args),
  broadcast: (network, raw) => pick(network).broadcast(network, raw),
  transferOutcome: (network, txHash, sentAt) => pick(network).transferOutcome(network, txHash, sentAt),
};
