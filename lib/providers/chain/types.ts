import type { Network } from "@/lib/chain/tokens";

export type Fees = { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };
export type SignedTx = { hash: `0x${string}`; rawTransaction: `0x${string}` };

/**
 * What a node said to a broadcast. accepted: it took it; known: it had it already; nonce-used: a
 * transaction with this nonce is already mined (ours or another); underpriced: a replacement that
 * does not pay enough more than the one it replaces; rejected: anything else the node refused
 * (insufficient funds for gas, …), with its words. A transport failure throws: the outcome is unknown.
 */
export type BroadcastResult =
  { result: "accepted" | "known" | "nonce-used" | "underpriced" } | { result: "rejected"; reason: string };

/**
 * Where one of our nonces stands. mined: one of the given hashes is in a block (final once it has the
 * network's confirmations in a block that is still canonical); taken: at the safe head the account
 * has passed this nonce and none of our hashes is mined (another transaction used it); pending:
 * nothing mined yet, `known` lists the hashes the node still holds.
 */
export type NonceState =
  | { state: "mined"; hash: string; success: boolean; final: boolean }
  | { state: "taken" }
  | { state: "pending"; known: string[] };

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
  /** The chain id the node serves (eth_chainId): start-up compares it with the one we sign for. */
  chainId(): Promise<number>;
  /** The latest block number, never cached. */
  headBlock(): Promise<bigint>;
  /** Transfer logs of `tokens` to `recipients` in [fromBlock, toBlock], in block then log order. */
  transferLogs(q: {
    tokens: `0x${string}`[];
    recipients: `0x${string}`[];
    fromBlock: bigint;
    toBlock: bigint;
  }): Promise<TransferLog[]>;
  /** The canonical block at a height: its hash (to tell a reorg) and its timestamp (the payment time of what it holds). */
  block(blockNumber: bigint): Promise<{ hash: `0x${string}`; timestamp: Date }>;
}

/** Base units, at `block`; `minedNonce` transactions of the hot wallet are in that block or before it. */
export type HotWalletBalances = { block: bigint; minedNonce: number; native: bigint; tokens: bigint[] };

export interface ChainProvider {
  readonly name: string;
  /** Gas for one token transfer on `network` at `fees` (the current estimate when omitted), quoted in BRL centavos. */
  quoteNetworkFeeCentavos(network: Network, fees?: Fees): Promise<number>;
  /** The fees a transaction sent now should offer; `fresh` asks the node even when a recent estimate is kept. */
  fees(network: Network, opts?: { fresh?: boolean }): Promise<Fees>;
  /** The hot wallet's address on `network`, which nonces are tracked for. */
  hotWalletAddress(network: Network): `0x${string}`;
  /**
   * Names the nonce sequence of `network`'s hot wallet (the key of its hot_wallet_nonces row). A count
   * belongs to one account on one chain: the sandbox's never-broadcast count and a node's must not mix.
   */
  nonceScope(network: Network, account?: `0x${string}`): string;
  /**
   * The hot wallet's next nonce as the node counts it (pending transactions included): where our own
   * count starts. `account` asks for another account's (a deposit address being swept).
   */
  pendingNonce(network: Network, account?: `0x${string}`): Promise<number>;
  /** How many of the hot wallet's transactions are mined (the latest block's count), or null where no node is. */
  minedNonce(network: Network): Promise<number | null>;
  /**
   * Signs a token transfer at a nonce and fees, locally: no node is asked, so it can run inside a
   * database transaction. With the hot wallet's key, or `privateKey` (a deposit address's, for a sweep).
   */
  signTransfer(args: {
    network: Network;
    token: `0x${string}`;
    to: `0x${string}`;
    amount: bigint;
    nonce: number;
    fees: Fees;
    privateKey?: `0x${string}`;
  }): Promise<SignedTx>;
  /** Signs a zero-value transfer to the signer itself at a nonce: what cancels a transaction, or fills a nonce gap. */
  signSelfTransfer(args: {
    network: Network;
    nonce: number;
    fees: Fees;
    privateKey?: `0x${string}`;
  }): Promise<SignedTx>;
  /** Signs a transfer of `value` wei of the native coin from the hot wallet (gas for a deposit address to be swept). */
  signGasTransfer(args: {
    network: Network;
    to: `0x${string}`;
    value: bigint;
    nonce: number;
    fees: Fees;
  }): Promise<SignedTx>;
  broadcast(network: Network, rawTransaction: string): Promise<BroadcastResult>;
  /** The latest block number: replacement is timed in blocks. */
  headBlock(network: Network): Promise<bigint>;
  /** Where our transaction at `nonce` stands; `hashes` are all its signed versions, `sentAt` when the first was made. */
  nonceState(
    network: Network,
    q: { nonce: number; hashes: string[]; sentAt: Date; from?: `0x${string}` },
  ): Promise<NonceState>;
  /**
   * The hot wallet's balances of gas (the native coin) and of `tokens`, and its count of mined
   * transactions, all read at one block so they describe the same moment; null where no node is.
   * `account` reads another account's instead (a deposit address being swept).
   */
  hotWalletBalances(
    network: Network,
    tokens: `0x${string}`[],
    account?: `0x${string}`,
  ): Promise<HotWalletBalances | null>;
  /**
   * Each address's balance of `token` in base units, all read at one block: the head, or with
   * `confirmed` the network's confirmed head (head − confirmations + 1), the point at which the books
   * count a transfer in (the watcher) or out (the tracker): what the solvency report compares them with.
   * Absent where nothing can answer it.
   */
  tokenBalances?(
    network: Network,
    token: { address: `0x${string}`; decimals: number },
    addresses: `0x${string}`[],
    opts?: { confirmed?: boolean },
  ): Promise<bigint[]>;
  /** The fee a mined transaction paid (gas used × effective price), in wei; null when it is not mined. Absent where no node is. */
  transactionFee?(network: Network, hash: `0x${string}`): Promise<bigint | null>;
  /** The node to watch for deposits on `network`, or null where no node is (sandbox transfers are simulated). */
  reader(network: Network): ChainReader | null;
}
