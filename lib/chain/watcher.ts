import { parseAbiItem, type PublicClient } from "viem";
import { applyCryptoPixTransfer, settleCryptoPixPayment } from "@/lib/crypto-pix/service";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { fromBaseUnits } from "@/lib/money";
import { applyDepositTransfer } from "@/lib/onchain/service";
import { chainClient, rpc } from "@/lib/providers/chain/live";
import type { Network } from "@/lib/providers/chain/tokens";
import { liveChainConfig } from "./config";
import { confirmationsRequired } from "./networks";
import type { IncomingTransfer } from "./transfers";
import { readCursor, saveCursor, watchTargets, type WatchTarget } from "./watch-targets";

// The deposit watcher: reads ERC-20 Transfer logs to our deposit addresses from the node, and
// applies each one, once, through the same service functions the sandbox helpers call.
//
// Reorgs: it only reads blocks that already have the network's confirmations (up to the "safe
// head", head − confirmations + 1), so a transfer is applied only once it is confirmed, and the
// cursor never passes a block that could still be replaced. Each matched log's block hash is also
// compared with the canonical chain before applying, so a reorg deeper than the confirmations stops
// the pass instead of crediting a vanished transfer.

const TRANSFER = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)");
// Topic filters with thousands of OR-ed values are refused by some providers; chunks stay well inside.
const ADDRESS_CHUNK = 200;
const DEFAULT_MAX_RANGES = 50;

export type WatchPass = { network: Network; fromBlock: number; toBlock: number; safeHead: number; applied: number };

type TransferLog = {
  address: `0x${string}`;
  blockNumber: bigint;
  blockHash: `0x${string}`;
  transactionHash: `0x${string}`;
  logIndex: number;
  args: { from: `0x${string}`; to: `0x${string}`; value: bigint };
};

const keyOf = (token: string, to: string) => `${token.toLowerCase()}:${to.toLowerCase()}`;

/**
 * One pass over a network with an RPC URL: from the stored cursor up to the safe head, at most
 * `maxRanges` ranges of CHAIN_LOG_BLOCK_RANGE blocks. Safe to run again at any point: transfers
 * already applied are recognised by (network, tx hash, log index) and not counted twice, and the
 * cursor advances only after a range is fully applied, so a pass stopped midway loses nothing.
 */
export async function watchNetwork(network: Network, opts: { maxRanges?: number } = {}): Promise<WatchPass | null> {
  if (!liveChainConfig(network)) return null;
  const client = chainClient(network);
  const required = BigInt(confirmationsRequired(network));
  // The head is read before the targets: any transfer up to it went to an address handed out
  // before we read it, so the target list below includes it.
  const head = await rpc(network, "read the head block", () => client.getBlockNumber({ cacheTime: 0 }));
  const safeHead = head - required + 1n;
  const range = BigInt(env().CHAIN_LOG_BLOCK_RANGE);
  // First pass on a network: look back one range rather than scanning the chain from genesis.
  let cursor = (await readCursor(network)) ?? maxBig(-1n, safeHead - range);
  const startedAt = cursor;
  let applied = 0;
  if (cursor < safeHead) {
    const targets = await watchTargets(network);
    const byKey = new Map(targets.map((t) => [keyOf(t.tokenAddress, t.address), t]));
    for (let n = 0; cursor < safeHead && n < (opts.maxRanges ?? DEFAULT_MAX_RANGES); n++) {
      const toBlock = minBig(cursor + range, safeHead);
      const logs = targets.length > 0 ? await transferLogs(client, network, targets, cursor + 1n, toBlock) : [];
      const matched = logs.filter((l) => l.args.value > 0n && byKey.has(keyOf(l.address, l.args.to)));
      await assertCanonical(client, network, matched);
      for (const l of matched) applied += await applyLog(network, byKey.get(keyOf(l.address, l.args.to))!, l);
      await saveCursor(network, toBlock);
      cursor = toBlock;
    }
  }
  return { network, fromBlock: Number(startedAt + 1n), toBlock: Number(cursor), safeHead: Number(safeHead), applied };
}

async function transferLogs(client: PublicClient, network: Network, targets: WatchTarget[], fromBlock: bigint, toBlock: bigint): Promise<TransferLog[]> {
  const tokens = [...new Set(targets.map((t) => t.tokenAddress.toLowerCase() as `0x${string}`))];
  const addresses = [...new Set(targets.map((t) => t.address as `0x${string}`))];
  const logs: TransferLog[] = [];
  for (let i = 0; i < addresses.length; i += ADDRESS_CHUNK) {
    const chunk = addresses.slice(i, i + ADDRESS_CHUNK);
    const found = await rpc(network, "read transfer logs", () =>
      client.getLogs({ address: tokens, event: TRANSFER, args: { to: chunk }, fromBlock, toBlock, strict: true }),
    );
    for (const l of found) {
      // Pending logs carry nulls; a mined block within the safe head never does.
      if (l.blockNumber === null || l.blockHash === null || l.transactionHash === null || l.logIndex === null) continue;
      logs.push({ ...l, blockNumber: l.blockNumber, blockHash: l.blockHash, transactionHash: l.transactionHash, logIndex: l.logIndex });
    }
  }
  // Block then log order, so a partial payment is applied before the rest, as it happened.
  return logs.sort((a, b) => (a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1));
}

/** Stops the pass when a log's block is no longer canonical: nothing from a replaced block is credited. */
async function assertCanonical(client: PublicClient, network: Network, logs: TransferLog[]): Promise<void> {
  const blocks = new Map(logs.map((l) => [l.blockNumber, l.blockHash]));
  for (const [blockNumber, hash] of blocks) {
    const block = await rpc(network, "read a block", () => client.getBlock({ blockNumber }));
    if (block.hash !== hash) {
      throw new Error(`${network}: block ${blockNumber} was replaced after the logs were read (reorg deeper than the confirmations); the range is read again on the next pass`);
    }
  }
}

/** Applies one confirmed transfer; returns 1 when it was new, 0 when it had been applied before. */
async function applyLog(network: Network, target: WatchTarget, l: TransferLog): Promise<number> {
  const transfer: IncomingTransfer = {
    network,
    txHash: l.transactionHash,
    logIndex: l.logIndex,
    fromAddress: l.args.from,
    toAddress: l.args.to,
    tokenAddress: l.address,
    amount: fromBaseUnits(l.args.value, target.decimals),
    blockNumber: Number(l.blockNumber),
    blockHash: l.blockHash,
  };
  if (target.kind === "onchain_order") {
    const result = await applyDepositTransfer(target.id, transfer);
    return result.duplicate ? 0 : 1;
  }
  const result = await applyCryptoPixTransfer(target.id, transfer);
  if (result.fullyPaid) {
    // The payout is a call to the PIX provider: if it fails here, the sweep settles the payment
    // later (it looks for fully paid payments whose payout was never requested).
    await settleCryptoPixPayment(target.id).catch((err: unknown) => log.warn("crypto-pix settlement deferred to the sweep", { paymentId: target.id, err }));
  }
  return result.duplicate ? 0 : 1;
}

const minBig = (a: bigint, b: bigint) => (a < b ? a : b);
const maxBig = (a: bigint, b: bigint) => (a > b ? a : b);
