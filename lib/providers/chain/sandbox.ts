import { privateKeyToAccount } from "viem/accounts";
import { SANDBOX_HOT_WALLET_KEY } from "@/lib/chain/sandbox-keys";
import { SANDBOX_FEES, signErc20Transfer, signSelfTransfer } from "@/lib/chain/sign";
import { CHAIN_IDS, type Network } from "@/lib/chain/tokens";
import { env } from "@/lib/env";
import { brlToCentavosUp } from "@/lib/money";
import type { ChainProvider } from "./types";

const hotWallet = privateKeyToAccount(SANDBOX_HOT_WALLET_KEY);

/**
 * Sandbox chain: transactions are genuinely signed by a public test key (so hashes and raw
 * transactions are real), but never broadcast: a node accepts each at once, and its first version
 * counts as mined with success SANDBOX_SETTLE_SECONDS after it was made. The head never moves, so
 * nothing is ever replaced.
 */
export const sandboxChain: ChainProvider = {
  name: "sandbox-chain",
  async quoteNetworkFeeCentavos(network) {
    const e = env();
    const brl = { eth: e.SANDBOX_NETWORK_FEE_BRL_ETH, bsc: e.SANDBOX_NETWORK_FEE_BRL_BSC, polygon: e.SANDBOX_NETWORK_FEE_BRL_POLYGON }[network];
    return brlToCentavosUp(brl);
  },
  async fees() {
    return { ...SANDBOX_FEES };
  },
  hotWalletAddress() {
    return hotWallet.address;
  },
  nonceScope(network) {
    return network;
  },
  // Sandbox transactions are never broadcast, so no node has counted any of them.
  async pendingNonce() {
    return 0;
  },
  async minedNonce() {
    return null;
  },
  async signTransfer({ network, token, to, amount, nonce, fees }) {
    return signErc20Transfer({ privateKey: SANDBOX_HOT_WALLET_KEY, chainId: CHAIN_IDS[network as Network], token, to, amount, nonce, ...fees });
  },
  async signSelfTransfer({ network, nonce, fees }) {
    return signSelfTransfer({ privateKey: SANDBOX_HOT_WALLET_KEY, chainId: CHAIN_IDS[network as Network], nonce, ...fees });
  },
  async broadcast() {
    return { result: "accepted" };
  },
  async headBlock() {
    return 0n;
  },
  async nonceState(_network, { hashes, sentAt }) {
    const settled = Date.now() - sentAt.getTime() >= env().SANDBOX_SETTLE_SECONDS * 1000;
    return settled ? { state: "mined", hash: hashes[0], success: true, final: true } : { state: "pending", known: hashes };
  },
  // Sandbox transactions never reach a chain, so there is no balance to keep a float of.
  hotWalletBalances: async () => null,
  // Nothing to watch: sandbox deposits arrive through the sandbox helpers.
  reader: () => null,
};
