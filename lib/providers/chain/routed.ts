import { rpcUrl } from "@/lib/chain/config";
import type { Network } from "@/lib/chain/tokens";
import { env } from "@/lib/env";
import type { ChainProvider } from "./types";

/**
 * Picks the chain adapter per network: the EVM node for a network with an RPC URL, in either mode
 * (so the real watcher and real transfers can run against a local node while other providers stay
 * sandbox); otherwise the sandbox in sandbox mode. Live mode never falls back: the live adapter
 * refuses a network without a node, naming it.
 */
export function routedChain(adapters: { live: ChainProvider; sandbox: ChainProvider }): ChainProvider {
  const pick = (network: Network) =>
    rpcUrl(network) || env().PAYMENTS_MODE === "live" ? adapters.live : adapters.sandbox;
  return {
    name: "chain",
    quoteNetworkFeeCentavos: (network, fees) => pick(network).quoteNetworkFeeCentavos(network, fees),
    fees: (network, opts) => pick(network).fees(network, opts),
    hotWalletAddress: (network) => pick(network).hotWalletAddress(network),
    nonceScope: (network, account) => pick(network).nonceScope(network, account),
    pendingNonce: (network, account) => pick(network).pendingNonce(network, account),
    minedNonce: (network) => pick(network).minedNonce(network),
    signTransfer: (args) => pick(args.network).signTransfer(args),
    signSelfTransfer: (args) => pick(args.network).signSelfTransfer(args),
    signGasTransfer: (args) => pick(args.network).signGasTransfer(args),
    broadcast: (network, raw) => pick(network).broadcast(network, raw),
    headBlock: (network) => pick(network).headBlock(network),
    nonceState: (network, q) => pick(network).nonceState(network, q),
    hotWalletBalances: (network, tokens, account) => pick(network).hotWalletBalances(network, tokens, account),
    transactionFee: async (network, hash) => {
      const adapter = pick(network);
      return adapter.transactionFee ? adapter.transactionFee(network, hash) : null;
    },
    tokenBalances: async (network, token, addresses, opts) => {
      const adapter = pick(network);
      if (!adapter.tokenBalances) throw new Error(`${adapter.name} cannot read token balances`);
      return adapter.tokenBalances(network, token, addresses, opts);
    },
    reader: (network) => pick(network).reader(network),
  };
}
