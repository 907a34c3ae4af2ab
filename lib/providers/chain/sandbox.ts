import { privateKeyToAccount } from "viem/accounts";
import { env } from "@/lib/env";
import { brlToCentavosUp } from "@/lib/money";
import { signErc20Transfer } from "@/lib/chain/sign";
import { SANDBOX_HOT_WALLET_KEY } from "@/lib/chain/sandbox-keys";
import { CHAIN_IDS, type Network } from "@/lib/chain/tokens";
import type { ChainProvider } from "./types";

const hotWallet = privateKeyToAccount(SANDBOX_HOT_WALLET_KEY);

/**
 * Sandbox chain: transactions are genuinely signed by a public test key (so hashes and raw
 * transactions are real), but never broadcast; they count as confirmed SANDBOX_SETTLE_SECONDS after
 * sending.
 */
export const sandboxChain: ChainProvider = {
  name: "sandbox-chain",
  async quoteNetworkFeeCentavos(network) {
    const e = env();
    const brl = { eth: e.SANDBOX_NETWORK_FEE_BRL_ETH, bsc: e.SANDBOX_NETWORK_FEE_BRL_BSC, polygon: e.SANDBOX_NETWORK_FEE_BRL_POLYGON }[network];
    return brlToCentavosUp(brl);
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
  async signTransfer({ network, token, to, amount, nonce }) {
    const signed = await signErc20Transfer({ privateKey: SANDBOX_HOT_WALLET_KEY, chainId: CHAIN_IDS[network as Network], token, to, amount, nonce });
    return { txHash: signed.hash, rawTransaction: signed.rawTransaction };
  },
  async broadcast() {},
  async transferOutcome(_network, _txHash, sentAt) {
    const settled = Date.now() - sentAt.getTime() >= env().SANDBOX_SETTLE_SECONDS * 1000;
    return { status: settled ? "confirmed" : "pending" };
  },
  // Nothing to watch: sandbox deposits arrive through the sandbox helpers.
  reader: () => null,
};
