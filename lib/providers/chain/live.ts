import {
  BaseError,
  createPublicClient,
  erc20Abi,
  http,
  parseAbiItem,
  RpcRequestError,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  type PublicClient,
} from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { hotWalletKey, liveChainConfig, type NetworkChainConfig } from "@/lib/chain/config";
import { confirmationsRequired } from "@/lib/chain/networks";
import { signErc20Transfer, signSelfTransfer, signValueTransfer } from "@/lib/chain/sign";
import type { Network } from "@/lib/chain/tokens";
import { env } from "@/lib/env";
import { UpstreamUnavailable } from "@/lib/errors";
import { brlToCentavosUp, Decimal, fromBaseUnits } from "@/lib/money";
import type { NativeSymbol, RatesProvider } from "@/lib/providers/rates/types";
import { processSingleton } from "@/lib/singleton";
import type { ChainProvider, ChainReader, Fees, NonceState, TransferLog } from "./types";

// The chain adapter for networks with an EVM_RPC_URL_*: reads and broadcasts through that node with
// viem. Keys never leave the process: transactions are signed locally and sent raw.

// A plain ERC-20 transfer uses 35-65k gas; unused gas is not charged, and a fixed limit (rather than
// eth_estimateGas) lets a transfer that will revert still be mined, so it fails visibly and is
// credited back instead of being stuck before broadcast.
export const ERC20_TRANSFER_GAS = 100_000n;
// Fee parameters change slowly; caching them keeps the RPC round trip out of the nonce-locked
// section when withdrawals arrive together.
const FEE_CACHE_MS = 10_000;

const NATIVE: Record<Network, NativeSymbol> = { eth: "ETH", bsc: "BNB", polygon: "POL" };

type Entry = { key: string; cfg: NetworkChainConfig; client: PublicClient; fees?: { at: number; value: Fees } };
const entries = processSingleton("evm-clients", () => new Map<Network, Entry>());

function entryFor(network: Network): Entry {
  const cfg = liveChainConfig(network);
  if (!cfg)
    throw new UpstreamUnavailable(`No EVM node is configured for ${network} (EVM_RPC_URL_${network.toUpperCase()})`);
  const e = env();
  const key = `${cfg.rpcUrl}|${cfg.chainId}|${e.CHAIN_RPC_TIMEOUT_MS}`;
  const cached = entries.get(network);
  if (cached?.key === key) return cached;
  const client = createPublicClient({
    transport: http(cfg.rpcUrl, { timeout: e.CHAIN_RPC_TIMEOUT_MS, retryCount: 3, retryDelay: 200 }),
  });
  const entry: Entry = { key, cfg, client };
  entries.set(network, entry);
  return entry;
}

/** Runs one node call, turning its failure into the "processing error" the API answers with. */
async function rpc<T>(network: Network, what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw nodeFailure(network, what, err);
  }
}

function nodeFailure(network: Network, what: string, err: unknown): UpstreamUnavailable {
  if (err instanceof UpstreamUnavailable) return err;
  const reason = err instanceof BaseError ? err.shortMessage : err instanceof Error ? err.message : String(err);
  return new UpstreamUnavailable(`EVM node for ${network} failed to ${what}: ${reason}`);
}

async function fees(network: Network, opts: { fresh?: boolean } = {}): Promise<Fees> {
  const entry = entryFor(network);
  if (!opts.fresh && entry.fees && Date.now() - entry.fees.at < FEE_CACHE_MS) return entry.fees.value;
  const value = await rpc(network, "estimate fees", () => entry.client.estimateFeesPerGas());
  entry.fees = {
    at: Date.now(),
    value: { maxFeePerGas: value.maxFeePerGas, maxPriorityFeePerGas: value.maxPriorityFeePerGas },
  };
  return entry.fees.value;
}

// Deriving the address costs a curve multiplication; the key only changes with the configuration.
let wallet: { key: string; account: PrivateKeyAccount } | null = null;

function hotWallet(): PrivateKeyAccount {
  const key = hotWalletKey();
  if (wallet?.key !== key) wallet = { key, account: privateKeyToAccount(key) };
  return wallet.account;
}

// What nodes (geth, erigon, bor, bsc, anvil, public providers) answer to a broadcast, by meaning.
const KNOWN =
  /already known|known transaction|already imported|transaction already exists|already in (the )?(tx|transaction)?pool/i;
const NONCE_USED = /nonce too low|nonce has already been used|old nonce|invalid nonce/i;
const UNDERPRICED =
  /underpriced|fee too low|gas price too low|replacement fee too low|less than (the )?block base fee/i;

/** The `ChainProvider` for networks with an RPC URL; `rates` prices the gas in BRL. */
export const liveChain = (rates: RatesProvider): ChainProvider => ({
  name: "evm-node",
  async quoteNetworkFeeCentavos(network, given) {
    const { maxFeePerGas } = given ?? (await fees(network));
    const native = await rates.quote(NATIVE[network]);
    const nativeCost = fromBaseUnits(ERC20_TRANSFER_GAS * maxFeePerGas, 18);
    return brlToCentavosUp(new Decimal(nativeCost).times(native.rate).toFixed());
  },
  fees,
  hotWalletAddress() {
    return hotWallet().address;
  },
  // A nonce belongs to an account on a chain: two networks pointed at one node (tests do) share it,
  // and a new hot-wallet key starts a sequence of its own.
  nonceScope(network, account) {
    return `chain:${entryFor(network).cfg.chainId}:${(account ?? hotWallet().address).toLowerCase()}`;
  },
  async pendingNonce(network, account) {
    const { client } = entryFor(network);
    return rpc(network, "read an account's nonce", () =>
      client.getTransactionCount({ address: account ?? hotWallet().address, blockTag: "pending" }),
    );
  },
  async minedNonce(network) {
    const { client } = entryFor(network);
    return rpc(network, "read the hot wallet's nonce", () =>
      client.getTransactionCount({ address: hotWallet().address, blockTag: "latest" }),
    );
  },
  async signTransfer({ network, token, to, amount, nonce, fees, privateKey }) {
    const chainId = entryFor(network).cfg.chainId;
    return signErc20Transfer({
      privateKey: privateKey ?? hotWalletKey(),
      chainId,
      token,
      to,
      amount,
      nonce,
      gas: ERC20_TRANSFER_GAS,
      ...fees,
    });
  },
  async signSelfTransfer({ network, nonce, fees, privateKey }) {
    return signSelfTransfer({
      privateKey: privateKey ?? hotWalletKey(),
      chainId: entryFor(network).cfg.chainId,
      nonce,
      ...fees,
    });
  },
  async signGasTransfer({ network, to, value, nonce, fees }) {
    return signValueTransfer({
      privateKey: hotWalletKey(),
      chainId: entryFor(network).cfg.chainId,
      to,
      value,
      nonce,
      ...fees,
    });
  },
  async broadcast(network, rawTransaction) {
    const { client } = entryFor(network);
    try {
      await client.sendRawTransaction({ serializedTransaction: rawTransaction as `0x${string}` });
      return { result: "accepted" };
    } catch (err) {
      // A node's refusal is an answer; a timeout or a reset is not (the node may have taken it): that throws.
      if (!(err instanceof BaseError) || !isNodeAnswer(err)) throw nodeFailure(network, "broadcast a transaction", err);
      const text = `${err.shortMessage} ${err.details ?? ""}`;
      if (KNOWN.test(text)) return { result: "known" };
      if (NONCE_USED.test(text)) return { result: "nonce-used" };
      if (UNDERPRICED.test(text)) return { result: "underpriced" };
      return { result: "rejected", reason: err.shortMessage };
    }
  },
  headBlock: (network) =>
    rpc(network, "read the head block", () => entryFor(network).client.getBlockNumber({ cacheTime: 0 })),
  nonceState: (network, q) => readNonceState(network, q),
  async hotWalletBalances(network, tokens, account) {
    const { client } = entryFor(network);
    const address = account ?? hotWallet().address;
    const block = await rpc(network, "read the head block", () => client.getBlockNumber({ cacheTime: 0 }));
    return rpc(network, "read the hot wallet's balances", async () => {
      const [minedNonce, native, ...held] = await Promise.all([
        client.getTransactionCount({ address, blockNumber: block }),
        client.getBalance({ address, blockNumber: block }),
        ...tokens.map((token) =>
          client.readContract({
            address: token,
            abi: erc20Abi,
            functionName: "balanceOf",
            args: [address],
            blockNumber: block,
          }),
        ),
      ]);
      return { block, minedNonce, native, tokens: held };
    });
  },
  async tokenBalances(network, token, addresses, opts) {
    const { client } = entryFor(network);
    const head = await rpc(network, "read the head block", () => client.getBlockNumber({ cacheTime: 0 }));
    // A transfer counts in the books once it has its confirmations, in and out alike: read there, a
    // transfer mined but not confirmed is still in the wallet on both sides.
    const back = opts?.confirmed ? BigInt(confirmationsRequired(network) - 1) : 0n;
    const block = head > back ? head - back : 0n;
    const balances: bigint[] = [];
    // In slices, so thousands of deposit addresses do not open thousands of requests at once.
    for (let i = 0; i < addresses.length; i += 50) {
      const slice = addresses.slice(i, i + 50);
      balances.push(
        ...(await rpc(network, "read token balances", () =>
          Promise.all(
            slice.map((a) =>
              client.readContract({
                address: token.address,
                abi: erc20Abi,
                functionName: "balanceOf",
                args: [a],
                blockNumber: block,
              }),
            ),
          ),
        )),
      );
    }
    return balances;
  },
  async transactionFee(network, hash) {
    const { client } = entryFor(network);
    const receipt = await rpc(network, "read a receipt", () =>
      client.getTransactionReceipt({ hash }).catch((err: unknown) => {
        if (err instanceof TransactionReceiptNotFoundError) return null;
        throw err;
      }),
    );
    return receipt ? receipt.gasUsed * receipt.effectiveGasPrice : null;
  },
  reader: (network) => (liveChainConfig(network) ? nodeReader(network) : null),
});

/** A JSON-RPC error object from the node (it answered), rather than a failed or timed-out request. */
function isNodeAnswer(err: BaseError): boolean {
  return err.walk((e) => e instanceof RpcRequestError) !== null;
}

/**
 * A transaction counts once it has the network's confirmations in a block that is still canonical;
 * a revert is final only then too (a reorg could still include it differently). With none of our
 * hashes mined, the nonce is "taken" only when the account's count at the safe head has passed it.
 */
async function readNonceState(
  network: Network,
  q: { nonce: number; hashes: string[]; from?: `0x${string}` },
): Promise<NonceState> {
  const { client } = entryFor(network);
  const head = await rpc(network, "read the head block", () => client.getBlockNumber({ cacheTime: 0 }));
  const required = BigInt(confirmationsRequired(network));
  for (const hash of [...q.hashes].reverse()) {
    const receipt = await rpc(network, "read a receipt", () =>
      client.getTransactionReceipt({ hash: hash as `0x${string}` }).catch((err: unknown) => {
        if (err instanceof TransactionReceiptNotFoundError) return null;
        throw err;
      }),
    );
    if (!receipt) continue;
    let final = head - receipt.blockNumber + 1n >= required;
    if (final) {
      const block = await rpc(network, "read a block", () => client.getBlock({ blockNumber: receipt.blockNumber }));
      final = block.hash === receipt.blockHash;
    }
    return { state: "mined", hash, success: receipt.status === "success", final };
  }
  const safeHead = head - required + 1n;
  if (safeHead >= 0n) {
    const minedCount = await rpc(network, "read the hot wallet's nonce", () =>
      client.getTransactionCount({ address: q.from ?? hotWallet().address, blockNumber: safeHead }),
    );
    if (minedCount > q.nonce) {
      // Read the receipts once more: one may have been mined between the reads above and this one.
      for (const hash of q.hashes) {
        const late = await client.getTransactionReceipt({ hash: hash as `0x${string}` }).catch(() => null);
        if (late) return { state: "mined", hash, success: late.status === "success", final: false };
      }
      return { state: "taken" };
    }
  }
  const known: string[] = [];
  for (const hash of q.hashes) {
    const seen = await rpc(network, "read a transaction", () =>
      client.getTransaction({ hash: hash as `0x${string}` }).then(
        () => true,
        (err: unknown) => {
          if (err instanceof TransactionNotFoundError) return false;
          throw err;
        },
      ),
    );
    if (seen) known.push(hash);
  }
  return { state: "pending", known };
}
const TRANSFER = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)");
// Topic filters with thousands of OR-ed values are refused by some providers; chunks stay well inside.
const RECIPIENT_CHUNK = 200;

function nodeReader(network: Network): ChainReader {
  const { client } = entryFor(network);
  return {
    chainId: () => rpc(network, "read its chain id", () => client.getChainId()),
    headBlock: () => rpc(network, "read the head block", () => client.getBlockNumber({ cacheTime: 0 })),
    async block(blockNumber) {
      const block = await rpc(network, "read a block", () => client.getBlock({ blockNumber }));
      return { hash: block.hash, timestamp: new Date(Number(block.timestamp) * 1000) };
    },
    async transferLogs({ tokens, recipients, fromBlock, toBlock }) {
      const logs: TransferLog[] = [];
      for (let i = 0; i < recipients.length; i += RECIPIENT_CHUNK) {
        const chunk = recipients.slice(i, i + RECIPIENT_CHUNK);
        const found = await rpc(network, "read transfer logs", () =>
          client.getLogs({ address: tokens, event: TRANSFER, args: { to: chunk }, fromBlock, toBlock, strict: true }),
        );
        for (const l of found) {
          // Pending logs carry nulls; a mined block never does.
          if (l.blockNumber === null || l.blockHash === null || l.transactionHash === null || l.logIndex === null)
            continue;
          logs.push({
            token: l.address,
            from: l.args.from,
            to: l.args.to,
            value: l.args.value,
            blockNumber: l.blockNumber,
            blockHash: l.blockHash,
            transactionHash: l.transactionHash,
            logIndex: l.logIndex,
          });
        }
      }
      // Block then log order, so a partial payment is applied before the rest, as it happened.
      return logs.sort((a, b) =>
        a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1,
      );
    },
  };
}
