import { liveChainConfig } from "@/lib/chain/config";
import { confirmationsRequired } from "@/lib/chain/networks";
import type { Network } from "@/lib/chain/tokens";
import { env } from "@/lib/env";
import { fromBaseUnits } from "@/lib/money";
import { providers } from "@/lib/providers";
import type { ChainReader, TransferLog } from "@/lib/providers/chain/types";
import { readCursor, saveCursor } from "./cursor";
import type { DepositTarget, TransferReceiver } from "./receiver";

// The deposit watcher: reads ERC-20 Transfer logs to our deposit addresses through the chain
// provider, and hands each one, once, to the receiver that owns the address (the same service
// functions the sandbox helpers call).
//
// Reorgs: it only reads blocks that already have the network's confirmations (up to the "safe
// head", head − confirmations + 1), so a transfer is applied only once it is confirmed, and the
// cursor never passes a block that could still be replaced. Each matched log's block hash is also
// compared with the canonical chain before applying, so a reorg deeper than the confirmations stops
// the pass instead of crediting a vanished transfer.

const DEFAULT_MAX_RANGES = 50;

export type WatchPass = { network: Network; fromBlock: number; toBlock: number; safeHead: number; applied: number };

type Owned = DepositTarget & { receiver: TransferReceiver };

const keyOf = (token: string, to: string) => `${token.toLowerCase()}:${to.toLowerCase()}`;

/**
 * One pass over a network with a node: from the stored cursor up to the safe head, at most
 * `maxRanges` ranges of CHAIN_LOG_BLOCK_RANGE blocks. Safe to run again at any point: transfers
 * already applied are recognised by (network, tx hash, log index) and not counted twice, and the
 * cursor advances only after a range is fully applied, so a pass stopped midway loses nothing.
 */
export async function watchNetwork(network: Network, receivers: readonly TransferReceiver[], opts: { maxRanges?: number } = {}): Promise<WatchPass | null> {
  const node = liveChainConfig(network) ? providers().chain.reader(network) : null;
  if (!node) return null;
  const required = BigInt(confirmationsRequired(network));
  // The head is read before the targets: any transfer up to it went to an address handed out
  // before we read it, so the target list below includes it.
  const head = await node.headBlock();
  const safeHead = head - required + 1n;
  const range = BigInt(env().CHAIN_LOG_BLOCK_RANGE);
  // First pass on a network: look back one range rather than scanning the chain from genesis.
  let cursor = (await readCursor(network)) ?? maxBig(-1n, safeHead - range);
  const startedAt = cursor;
  let applied = 0;
  if (cursor < safeHead) {
    const targets = await ownedTargets(network, receivers);
    const byKey = new Map(targets.map((t) => [keyOf(t.tokenAddress, t.address), t]));
    const tokens = [...new Set(targets.map((t) => t.tokenAddress.toLowerCase() as `0x${string}`))];
    const recipients = [...new Set(targets.map((t) => t.address as `0x${string}`))];
    for (let n = 0; cursor < safeHead && n < (opts.maxRanges ?? DEFAULT_MAX_RANGES); n++) {
      const toBlock = minBig(cursor + range, safeHead);
      const logs = targets.length > 0 ? await node.transferLogs({ tokens, recipients, fromBlock: cursor + 1n, toBlock }) : [];
      const matched = logs.filter((l) => l.value > 0n && byKey.has(keyOf(l.token, l.to)));
      await assertCanonical(node, network, matched);
      for (const l of matched) applied += await applyLog(network, byKey.get(keyOf(l.token, l.to))!, l);
      await saveCursor(network, toBlock);
      cursor = toBlock;
    }
  }
  return { network, fromBlock: Number(startedAt + 1n), toBlock: Number(cursor), safeHead: Number(safeHead), applied };
}

async function ownedTargets(network: Network, receivers: readonly TransferReceiver[]): Promise<Owned[]> {
  const lists = await Promise.all(receivers.map(async (receiver) => (await receiver.targets(network)).map((t) => ({ ...t, receiver }))));
  return lists.flat();
}

/** Stops the pass when a log's block is no longer canonical: nothing from a replaced block is credited. */
async function assertCanonical(node: ChainReader, network: Network, logs: TransferLog[]): Promise<void> {
  const blocks = new Map(logs.map((l) => [l.blockNumber, l.blockHash]));
  for (const [blockNumber, hash] of blocks) {
    if ((await node.blockHash(blockNumber)) !== hash) {
      throw new Error(
        `${network}: block ${blockNumber} was replaced after the logs were read (reorg deeper than the confirmations); the range is read again on the next pass`,
      );
    }
  }
}

/** Applies one confirmed transfer; returns 1 when it was new, 0 when it had been applied before. */
async function applyLog(network: Network, target: Owned, l: TransferLog): Promise<number> {
  const fresh = await target.receiver.apply(target.id, {
    network,
    txHash: l.transactionHash,
    logIndex: l.logIndex,
    fromAddress: l.from,
    toAddress: l.to,
    tokenAddress: l.token,
    amount: fromBaseUnits(l.value, target.decimals),
    blockNumber: Number(l.blockNumber),
    blockHash: l.blockHash,
  });
  return fresh ? 1 : 0;
}

const minBig = (a: bigint, b: bigint) => (a < b ? a : b);
const maxBig = (a: bigint, b: bigint) => (a > b ? a : b);
