import { BaseError, createPublicClient, http, parseAbiItem, TransactionNotFoundError, TransactionReceiptNotFoundError, type PublicClient } from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { hotWalletKey, liveChainConfig, type NetworkChainConfig } from "@/lib/chain/config";
import { confirmationsRequired } from "@/lib/chain/networks";
import { signErc20Transfer } from "@/lib/chain/sign";
import type { Network } from "@/lib/chain/tokens";
import { env } from "@/lib/env";
import { UpstreamUnavailable } from "@/lib/errors";
import { brlToCentavosUp, Decimal, fromBaseUnits } from "@/lib/money";
import type { NativeSymbol, RatesProvider } from "@/lib/providers/rates/types";
import { processSingleton } from "@/lib/singleton";
import type { ChainProvider, ChainReader, TransferLog, TransferOutcome } from "./types";

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

type Fees = { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };
type Entry = { key: string; cfg: NetworkChainConfig; client: PublicClient; fees?: { at: number; value: Fees } };
const entries = processSingleton("evm-clients", () => new Map<Network, Entry>());

function entryFor(network: Network): Entry {
  const cfg = liveChainConfig(network);
  if (!cfg) throw new UpstreamUnavailable(`No EVM node is configured for ${network} (EVM_RPC_URL_${network.toUpperCase()})`);
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

async function fees(network: Network): Promise<Fees> {
  const entry = entryFor(network);
  if (entry.fees && Date.now() - entry.fees.at < FEE_CACHE_MS) return entry.fees.value;
  const value = await rpc(network, "estimate fees", () => entry.client.estimateFeesPerGas());
  entry.fees = { at: Date.now(), value: { maxFeePerGas: value.maxFeePerGas, maxPriorityFeePerGas: value.maxPriorityFeePerGas } };
  return entry.fees.value;
}

// Deriving the address costs a curve multiplication; the key only changes with the configuration.
let wallet: { key: string; account: PrivateKeyAccount } | null = null;

function hotWallet(): PrivateKeyAccount {
  const key = hotWalletKey();
  if (wallet?.key !== key) wallet = { key, account: privateKeyToAccount(key) };
  return wallet.account;
}

// Messages a node gives when the transaction, or one with its nonce, is already in: a rebroadcast
// that finds it there has done its job.
const ALREADY_SENT = /already known|known transaction|nonce too low|already imported|transaction already exists/i;

/** The `ChainProvider` for networks with an RPC URL; `rates` prices the gas in BRL. */
export const liveChain = (rates: RatesProvider): ChainProvider => ({
  name: "evm-node",
  async quoteNetworkFeeCentavos(network) {
    const { maxFeePerGas } = await fees(network);
    const native = await rates.quote(NATIVE[network]);
    const nativeCost = fromBaseUnits(ERC20_TRANSFER_GAS * maxFeePerGas, 18);
    return brlToCentavosUp(new Decimal(nativeCost).times(native.rate).toFixed());
  },
  hotWalletAddress() {
    return hotWallet().address;
  },
  // A nonce belongs to an account on a chain: two networks pointed at one node (tests do) share it.
  nonceScope(network) {
    return `chain:${entryFor(network).cfg.chainId}`;
  },
  async pendingNonce(network) {
    const { client } = entryFor(network);
    return rpc(network, "read the hot wallet's nonce", () => client.getTransactionCount({ address: hotWallet().address, blockTag: "pending" }));
  },
  async signTransfer({ network, token, to, amount, nonce }) {
    const { maxFeePerGas, maxPriorityFeePerGas } = await fees(network);
    const signed = await signErc20Transfer({
      privateKey: hotWalletKey(),
      chainId: entryFor(network).cfg.chainId,
      token,
      to,
      amount,
      nonce,
      gas: ERC20_TRANSFER_GAS,
      maxFeePerGas,
      maxPriorityFeePerGas,
    });
    return { txHash: signed.hash, rawTransaction: signed.rawTransaction };
  },
  async broadcast(network, rawTransaction) {
    const { client } = entryFor(network);
    try {
      await client.sendRawTransaction({ serializedTransaction: rawTransaction as `0x${string}` });
    } catch (err) {
      const text = err instanceof BaseError ? `${err.shortMessage} ${err.details}` : String(err);
      if (ALREADY_SENT.test(text)) return;
      throw nodeFailure(network, "broadcast a transaction", err);
    }
  },
  async transferOutcome(network, txHash) {
    return readOutcome(network, txHash as `0x${string}`);
  },
  reader: (network) => (liveChainConfig(network) ? nodeReader(network) : null),
});

const TRANSFER = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)");
// Topic filters with thousands of OR-ed values are refused by some providers; chunks stay well inside.
const RECIPIENT_CHUNK = 200;

function nodeReader(network: Network): ChainReader {
  const { client } = entryFor(network);
  return {
    headBlock: () => rpc(network, "read the head block", () => client.getBlockNumber({ cacheTime: 0 })),
    async blockHash(blockNumber) {
      const block = await rpc(network, "read a block", () => client.getBlock({ blockNumber }));
      return block.hash;
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
          if (l.blockNumber === null || l.blockHash === null || l.transactionHash === null || l.logIndex === null) continue;
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
      return logs.sort((a, b) => (a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1));
    },
  };
}

/**
 * A transaction counts once it has the network's confirmations in a block that is still canonical;
 * a revert is final only then too (a reorg could still include it differently). Until then: pending.
 */
async function readOutcome(network: Network, hash: `0x${string}`): Promise<TransferOutcome> {
  const { client } = entryFor(network);
  const receipt = await rpc(network, "read a receipt", () =>
    client.getTransactionReceipt({ hash }).catch((err: unknown) => {
      if (err instanceof TransactionReceiptNotFoundError) return null;
      throw err;
    }),
  );
  if (!receipt) {
    const known = await rpc(network, "read a transaction", () =>
      client.getTransaction({ hash }).then(
        () => true,
        (err: unknown) => {
          if (err instanceof TransactionNotFoundError) return false;
          throw err;
        },
      ),
    );
    return { status: "pending", rebroadcast: !known };
  }
  const head = await rpc(network, "read the head block", () => client.getBlockNumber({ cacheTime: 0 }));
  const confirmations = head - receipt.blockNumber + 1n;
  if (confirmations < BigInt(confirmationsRequired(network))) return { status: "pending" };
  const block = await rpc(network, "read a block", () => client.getBlock({ blockNumber: receipt.blockNumber }));
  if (block.hash !== receipt.blockHash) return { status: "pending" };
  return receipt.status === "success" ? { status: "confirmed" } : { status: "failed", reason: "transaction reverted on-chain" };
}
