import { sql } from "drizzle-orm";
import { privateKeyToAccount } from "viem/accounts";
import { db } from "@/db";
import { SANDBOX_HOT_WALLET_KEY } from "@/lib/chain/sandbox-keys";
import { SANDBOX_FEES, signErc20Transfer, signSelfTransfer, signValueTransfer } from "@/lib/chain/sign";
import { CHAIN_IDS, type Network } from "@/lib/chain/tokens";
import { env } from "@/lib/env";
import { brlToCentavosUp, toBaseUnits } from "@/lib/money";
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
    const brl = {
      eth: e.SANDBOX_NETWORK_FEE_BRL_ETH,
      bsc: e.SANDBOX_NETWORK_FEE_BRL_BSC,
      polygon: e.SANDBOX_NETWORK_FEE_BRL_POLYGON,
    }[network];
    return brlToCentavosUp(brl);
  },
  async fees() {
    return { ...SANDBOX_FEES };
  },
  hotWalletAddress() {
    return hotWallet.address;
  },
  nonceScope(network, account) {
    return account ? `${network}:${account.toLowerCase()}` : network;
  },
  // Sandbox transactions are never broadcast, so no node has counted any of them.
  async pendingNonce() {
    return 0;
  },
  async minedNonce() {
    return null;
  },
  async signTransfer({ network, token, to, amount, nonce, fees, privateKey }) {
    return signErc20Transfer({
      privateKey: privateKey ?? SANDBOX_HOT_WALLET_KEY,
      chainId: CHAIN_IDS[network as Network],
      token,
      to,
      amount,
      nonce,
      ...fees,
    });
  },
  async signSelfTransfer({ network, nonce, fees, privateKey }) {
    return signSelfTransfer({
      privateKey: privateKey ?? SANDBOX_HOT_WALLET_KEY,
      chainId: CHAIN_IDS[network as Network],
      nonce,
      ...fees,
    });
  },
  async signGasTransfer({ network, to, value, nonce, fees }) {
    return signValueTransfer({
      privateKey: SANDBOX_HOT_WALLET_KEY,
      chainId: CHAIN_IDS[network as Network],
      to,
      value,
      nonce,
      ...fees,
    });
  },
  async broadcast() {
    return { result: "accepted" };
  },
  async headBlock() {
    return 0n;
  },
  async nonceState(_network, { hashes, sentAt }) {
    const settled = Date.now() - sentAt.getTime() >= env().SANDBOX_SETTLE_SECONDS * 1000;
    return settled
      ? { state: "mined", hash: hashes[0], success: true, final: true }
      : { state: "pending", known: hashes };
  },
  // Sandbox transactions never reach a chain, so there is no balance to keep a float of.
  hotWalletBalances: async () => null,
  // The sandbox's chain is what it recorded: an address holds what the sandbox helpers transferred
  // to it, less what the hot wallet sent from it and saw confirmed. Nothing refills the sandbox hot
  // wallet, so it shows what it paid out as a negative balance: summed with the deposit addresses, the
  // token's total is what arrived less what left, as it would be on a chain after sweeping.
  async tokenBalances(network, token, addresses) {
    if (addresses.length === 0) return [];
    const wanted = addresses.map((a) => a.toLowerCase());
    const rows = await db().execute<{ address: string; held: string }>(sql`
      select a.address, (
        coalesce((select sum(t.amount) from chain_transfers t
          where t.network = ${network} and lower(t.token_address) = ${token.address.toLowerCase()} and lower(t.to_address) = a.address), 0)
        - coalesce((select sum(x.amount) from chain_txs x
          where x.network = ${network} and x.status = 'confirmed' and lower(x.token_address) = ${token.address.toLowerCase()} and lower(x.from_address) = a.address), 0)
      )::text as held
      from unnest(array[${sql.join(
        wanted.map((w) => sql`${w}`),
        sql`, `,
      )}]::text[]) as a(address)`);
    const held = new Map(rows.map((r) => [r.address, r.held]));
    return wanted.map((a) => toBaseUnits(held.get(a) ?? "0", token.decimals));
  },
  // Nothing to watch: sandbox deposits arrive through the sandbox helpers.
  reader: () => null,
};
