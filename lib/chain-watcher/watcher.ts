import { liveChainConfig, tokenInfo } from "@/lib/chain/config";
import { confirmationsRequired } from "@/lib/chain/networks";
import { ASSETS, NETWORKS, type Network } from "@/lib/chain/tokens";
import type { IncomingTransfer } from "@/lib/chain/transfers";
import { env } from "@/lib/env";
import { fromBaseUnits } from "@/lib/money";
import { providers } from "@/lib/providers";
import type { ChainReader, TransferLog } from "@/lib/providers/chain/types";
import { readCursor, saveCursor } from "./cursor";
import { observePass } from "./metrics";
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
 *
 * Every token of the network's table is watched at every address we handed out on any network, so
 * money of the wrong token, or sent on the wrong network, is recorded and shown instead of ignored.
 */
export async function watchNetwork(
  network: Network,
  receivers: readonly TransferReceiver[],
  opts: { maxRanges?: number } = {},
): Promise<WatchPass | null> {
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
    const here = await ownedTargets(network, receivers);
    const elsewhere = (
      await Promise.all(NETWORKS.filter((n) => n !== network).map((n) => ownedTargets(n, receivers)))
    ).flat();
    const byKey = new Map(here.map((t) => [keyOf(t.tokenAddress, t.address), t]));
    const byAddressHere = new Map(here.map((t) => [t.address.toLowerCase(), t]));
    const byAddressElsewhere = new Map(elsewhere.map((t) => [t.address.toLowerCase(), t]));
    const decimals = tokenDecimals(network, here);
    const tokens = [...decimals.keys()] as `0x${string}`[];
    const recipients = [...new Set([...here, ...elsewhere].map((t) => t.address as `0x${string}`))];
    for (let n = 0; cursor < safeHead && n < (opts.maxRanges ?? DEFAULT_MAX_RANGES); n++) {
      const toBlock = minBig(cursor + range, safeHead);
      const logs =
        recipients.length > 0 ? await node.transferLogs({ tokens, recipients, fromBlock: cursor + 1n, toBlock }) : [];
      const ours = logs.filter(
        (l) => l.value > 0n && (byAddressHere.has(l.to.toLowerCase()) || byAddressElsewhere.has(l.to.toLowerCase())),
      );
      const blocks = await canonicalBlocks(node, network, ours);
      for (const l of ours) {
        const target = byKey.get(keyOf(l.token, l.to));
        const paidAt = blocks.get(l.blockNumber)!;
        if (target) {
          applied += (await target.receiver.apply(target.id, transferOf(network, l, target.decimals, paidAt))) ? 1 : 0;
          continue;
        }
        const wrongToken = byAddressHere.get(l.to.toLowerCase());
        const stray = wrongToken ?? byAddressElsewhere.get(l.to.toLowerCase())!;
        const amount = transferOf(network, l, decimals.get(l.token.toLowerCase()) ?? stray.decimals, paidAt);
        await stray.receiver.recordStray(stray.id, amount, wrongToken ? "wrong_token" : "wrong_network");
      }
      await saveCursor(network, toBlock, (await node.block(toBlock)).timestamp);
      cursor = toBlock;
    }
  }
  observePass(network, head, cursor);
  return { network, fromBlock: Number(startedAt + 1n), toBlock: Number(cursor), safeHead: Number(safeHead), applied };
}

async function ownedTargets(network: Network, receivers: readonly TransferReceiver[]): Promise<Owned[]> {
  const lists = await Promise.all(
    receivers.map(async (receiver) => (await receiver.targets(network)).map((t) => ({ ...t, receiver }))),
  );
  return lists.flat();
}

/** Every token of the network's table (overrides included), and any the targets name, by address (lower case) with its decimals. */
function tokenDecimals(network: Network, targets: DepositTarget[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const asset of ASSETS) {
    const token = tokenInfo(network, asset);
    if (token) out.set(token.address.toLowerCase(), token.decimals);
  }
  // The table is the truth about its tokens; an order's recorded decimals decode that order's own
  // transfers (applied with target.decimals) and serve here only for a token the table lacks.
  for (const t of targets)
    if (!out.has(t.tokenAddress.toLowerCase())) out.set(t.tokenAddress.toLowerCase(), t.decimals);
  return out;
}

/**
 * The payment time of each block holding one of these logs; stops the pass when a log's block is no
 * longer canonical: nothing from a replaced block is credited.
 */
async function canonicalBlocks(node: ChainReader, network: Network, logs: TransferLog[]): Promise<Map<bigint, Date>> {
  const times = new Map<bigint, Date>();
  const hashes = new Map(logs.map((l) => [l.blockNumber, l.blockHash]));
  for (const [blockNumber, hash] of hashes) {
    const block = await node.block(blockNumber);
    if (block.hash !== hash) {
      throw new Error(
        `${network}: block ${blockNumber} was replaced after the logs were read (reorg deeper than the confirmations); the range is read again on the next pass`,
      );
    }
    times.set(blockNumber, block.timestamp);
  }
  return times;
}

function transferOf(network: Network, l: TransferLog, decimals: number, paidAt: Date): IncomingTransfer {
  return {
    network,
    txHash: l.transactionHash,
    logIndex: l.logIndex,
    fromAddress: l.from,
    toAddress: l.to,
    tokenAddress: l.token,
    amount: fromBaseUnits(l.value, decimals),
    blockNumber: Number(l.blockNumber),
    blockHash: l.blockHash,
    blockTime: paidAt,
  };
}

const minBig = (a: bigint, b: bigint) => (a < b ? a : b);
const maxBig = (a: bigint, b: bigint) => (a > b ? a : b);
