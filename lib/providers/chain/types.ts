import type { Network } from "@/lib/chain/tokens";

export type SentTransfer = { txHash: string; rawTransaction: string };
/** `rebroadcast`: the node has never seen the transaction (its broadcast was lost), so send it again. */
export type TransferOutcome = { status: "pending" | "confirmed" | "failed"; reason?: string; rebroadcast?: boolean };

/** An ERC-20 Transfer log in a mined block. */
export type TransferLog = {
  token: `0x${string}`;
  from: `0x${string}`;
  to: `0x${string}`;
  value: bigint;
  blockNumber: bigint;
  blockHash: `0x${string}`;
  transactionHash: `0x${string}`;
  logIndex: number;
};

/** What the deposit watcher reads from a network's node. */
export interface ChainReader {
  /** The latest block number, never cached. */
  headBlock(): Promise<bigint>;
  /** Transfer logs of `tokens` to `recipients` in [fromBlock, toBlock], in block then log order. */
  transferLogs(q: { tokens: `0x${string}`[]; recipients: `0x${string}`[]; fromBlock: bigint; toBlock: bigint }): Promise<TransferLog[]>;
  /** The canonical block's hash at a height, to tell a reorg. */
  blockHash(blockNumber: bigint): Promise<`0x${string}`>;
}

export interface ChainProvider {
  readonly name: string;
  /** Gas for one token transfer on `network`, quoted in BRL centavos. */
  quoteNetworkFeeCentavos(network: Network): Promise<number>;
  /** The hot wallet's address on `network`, which nonces are tracked for. */
  hotWalletAddress(network: Network): `0x${string}`;
  /**
   * Names the nonce sequence of `network`'s hot wallet (the key of its hot_wallet_nonces row). A count
   * belongs to one account on one chain: the sandbox's never-broadcast count and a node's must not mix.
   */
  nonceScope(network: Network): string;
  /** The hot wallet's next nonce as the node counts it (pending transactions included): where our own count starts. */
  pendingNonce(network: Network): Promise<number>;
  /** Signs a token transfer with the given nonce; `broadcast` sends it. Split so the nonce is taken in our transaction. */
  signTransfer(args: { network: Network; token: `0x${string}`; to: `0x${string}`; amount: bigint; nonce: number }): Promise<SentTransfer>;
  broadcast(network: Network, rawTransaction: string): Promise<void>;
  /** Where a sent transaction stands. */
  transferOutcome(network: Network, txHash: string, sentAt: Date): Promise<TransferOutcome>;
  /** The node to watch for deposits on `network`, or null where no node is (sandbox transfers are simulated). */
  reader(network: Network): ChainReader | null;
}
