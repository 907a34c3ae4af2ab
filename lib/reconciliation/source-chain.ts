import { and, eq, gte, inArray, isNotNull, lt, ne, sql, type SQL } from "drizzle-orm";
import { db } from "@/db";
import { chainTransfers, chainTxs, cryptoPixPayments, depositAddresses, onchainOrders, withdrawals } from "@/db/schema";
import { env } from "@/lib/env";
import { providers } from "@/lib/providers";
import { fromBaseUnits } from "@/lib/money";
import { liveChainConfig, tokenInfo } from "@/lib/chain/config";
import { confirmationsRequired } from "@/lib/chain/networks";
import { ASSETS, NETWORKS, type Network } from "@/lib/chain/tokens";
import type { ChainReader } from "@/lib/providers/chain/types";
import { DayNotFinal, type Movement, type ProviderMovement, type ReconSource } from "./run";

// The chain reconciliation source: what it matches is listed in ./sources.ts.

/** The lowest block in [0, last] whose timestamp is at or after `t` (last + 1 when none): blocks are in time order. */
async function firstBlockFrom(node: ChainReader, t: Date, last: bigint): Promise<bigint> {
  let lo = 0n;
  let hi = last + 1n;
  while (lo < hi) {
    const mid = (lo + hi) / 2n;
    if ((await node.block(mid)).timestamp.getTime() >= t.getTime()) hi = mid;
    else lo = mid + 1n;
  }
  return lo;
}

/** Transfers received at our addresses with the merchant each was for (an on-chain order's, a Crypto-PIX payment's). */
function receivedTransfers(where: SQL | undefined) {
  return db()
    .select({
      transfer: chainTransfers,
      orderMerchant: onchainOrders.merchantId,
      cryptoPixMerchant: cryptoPixPayments.merchantId,
    })
    .from(chainTransfers)
    .leftJoin(
      onchainOrders,
      and(eq(chainTransfers.ownerKind, "onchain_order"), eq(onchainOrders.id, chainTransfers.ownerId)),
    )
    .leftJoin(
      cryptoPixPayments,
      and(eq(chainTransfers.ownerKind, "crypto_pix"), eq(cryptoPixPayments.id, chainTransfers.ownerId)),
    )
    .where(where);
}

/** Hot-wallet transactions with the merchant each was for (a withdrawal's, a Crypto-PIX payment's). */
function sentTxs(where: SQL | undefined) {
  return db()
    .select({
      t: chainTxs,
      merchantId: sql<string | null>`coalesce(${withdrawals.merchantId}, ${cryptoPixPayments.merchantId})`,
    })
    .from(chainTxs)
    .leftJoin(withdrawals, and(eq(chainTxs.ownerKind, "withdrawal"), eq(withdrawals.id, chainTxs.ownerId)))
    .leftJoin(cryptoPixPayments, and(eq(chainTxs.ownerKind, "crypto_pix"), eq(cryptoPixPayments.id, chainTxs.ownerId)))
    .where(where);
}

const transferRef = (network: string, txHash: string, logIndex: number) =>
  `in:${network}:${txHash.toLowerCase()}:${logIndex}`;
// One token transfer per transaction of ours: the mined hash names it.
const sentRef = (network: string, txHash: string) => `out:${network}:${txHash.toLowerCase()}`;

export function chain(): ReconSource {
  const networks = () => NETWORKS.filter((n) => liveChainConfig(n) !== null && providers().chain.reader(n) !== null);
  // A window's block ranges, worked out once per run: each network's blocks of the window, in steps of
  // CHAIN_LOG_BLOCK_RANGE. A page is one step, so a resumed run starts again at the range it stopped in.
  const plans = new Map<string, { network: Network; fromBlock: bigint; toBlock: bigint }[]>();
  async function plan(window: { from: Date; to: Date }) {
    const key = `${window.from.toISOString()}/${window.to.toISOString()}`;
    const known = plans.get(key);
    if (known) return known;
    const steps: { network: Network; fromBlock: bigint; toBlock: bigint }[] = [];
    const range = BigInt(env().CHAIN_LOG_BLOCK_RANGE);
    for (const network of networks()) {
      const node = providers().chain.reader(network)!;
      const safeHead = (await node.headBlock()) - BigInt(confirmationsRequired(network)) + 1n;
      // The window is judged only once a block after it is confirmed: until then a later block may
      // still add transfers to it, or a reorg take some away. The run fails and is tried again later.
      const end = safeHead < 0n ? 0n : await firstBlockFrom(node, window.to, safeHead);
      if (safeHead < 0n || end > safeHead)
        throw new DayNotFinal(
          `${network}: the blocks up to ${window.to.toISOString()} do not have their confirmations yet`,
        );
      for (let b = await firstBlockFrom(node, window.from, safeHead); b < end; b += range)
        steps.push({ network, fromBlock: b, toBlock: b + range - 1n < end - 1n ? b + range - 1n : end - 1n });
    }
    plans.set(key, steps);
    return steps;
  }
  return {
    name: "chain",
    enabled: () => env().PAYMENTS_MODE === "live" && networks().length > 0,
    async page(window, page) {
      const steps = await plan(window);
      const step = steps[page];
      if (!step) return { items: [], next: null };
      const node = providers().chain.reader(step.network)!;
      const decimals = new Map<string, number>();
      for (const asset of ASSETS) {
        const token = tokenInfo(step.network, asset);
        if (token) decimals.set(token.address.toLowerCase(), token.decimals);
      }
      // Every address we ever handed out, as the watcher watches them: money of the wrong token or on the
      // wrong network still reached us.
      const recipients = (
        await db()
          .select({ address: depositAddresses.address })
          .from(depositAddresses)
          .where(lt(depositAddresses.createdAt, window.to))
      ).map((r) => r.address as `0x${string}`);
      const logs =
        recipients.length && decimals.size
          ? await node.transferLogs({
              tokens: [...decimals.keys()] as `0x${string}`[],
              recipients,
              fromBlock: step.fromBlock,
              toBlock: step.toBlock,
            })
          : [];
      // What the hot wallet sent: the node lists Transfer logs by recipient only (the reader's filter), so
      // those to every address it ever paid for us; one to an address it never paid is not seen here.
      const hot = providers().chain.hotWalletAddress(step.network).toLowerCase();
      const paid = (
        await db()
          .selectDistinct({ address: chainTxs.toAddress })
          .from(chainTxs)
          .where(
            and(
              eq(chainTxs.network, step.network),
              isNotNull(chainTxs.tokenAddress),
              lt(chainTxs.createdAt, window.to),
            ),
          )
      ).map((r) => r.address as `0x${string}`);
      const sent =
        paid.length && decimals.size
          ? (
              await node.transferLogs({
                tokens: [...decimals.keys()] as `0x${string}`[],
                recipients: paid,
                fromBlock: step.fromBlock,
                toBlock: step.toBlock,
              })
            ).filter((l) => l.from.toLowerCase() === hot)
          : [];
      const times = new Map<bigint, Date>();
      const items: ProviderMovement[] = [];
      for (const l of sent) {
        if (!times.has(l.blockNumber)) times.set(l.blockNumber, (await node.block(l.blockNumber)).timestamp);
        items.push({
          ref: sentRef(step.network, l.transactionHash),
          valueCentavos: 0,
          amount: fromBaseUnits(l.value, decimals.get(l.token.toLowerCase()) ?? 18),
          state: "CONFIRMED",
          at: times.get(l.blockNumber)!,
          detail: { token: l.token, from: l.from, to: l.to, block: Number(l.blockNumber) },
        });
      }
      for (const l of logs) {
        if (l.value <= 0n) continue;
        if (!times.has(l.blockNumber)) times.set(l.blockNumber, (await node.block(l.blockNumber)).timestamp);
        items.push({
          ref: transferRef(step.network, l.transactionHash, l.logIndex),
          valueCentavos: 0,
          amount: fromBaseUnits(l.value, decimals.get(l.token.toLowerCase()) ?? 18),
          state: "CONFIRMED",
          at: times.get(l.blockNumber)!,
          detail: { token: l.token, from: l.from, to: l.to, block: Number(l.blockNumber) },
        });
      }
      return { items, next: page + 1 < steps.length ? page + 1 : null };
    },
    async ours(refs) {
      const out = new Map<string, Movement>();
      const sentHashes = refs.filter((r) => r.startsWith("out:")).map((r) => r.split(":")[2]);
      if (sentHashes.length)
        for (const { t, merchantId } of await sentTxs(inArray(sql`lower(${chainTxs.minedHash})`, sentHashes))) {
          const ref = sentRef(t.network, t.minedHash!);
          out.set(ref, {
            ref,
            valueCentavos: 0,
            amount: t.amount ?? "0",
            state: t.status.toUpperCase(),
            merchantId,
            detail: { chainTxId: t.id, purpose: t.purpose, ownerId: t.ownerId },
          });
        }
      const hashes = [...new Set(refs.filter((r) => r.startsWith("in:")).map((r) => r.split(":")[2]))];
      if (hashes.length === 0) return out;
      const rows = await receivedTransfers(inArray(sql`lower(${chainTransfers.txHash})`, hashes));
      for (const { transfer: t, orderMerchant, cryptoPixMerchant } of rows) {
        const ref = transferRef(t.network, t.txHash, t.logIndex);
        out.set(ref, {
          ref,
          valueCentavos: 0,
          amount: t.amount,
          state: "CONFIRMED",
          merchantId: orderMerchant ?? cryptoPixMerchant ?? null,
          detail: { transferId: t.id, ownerKind: t.ownerKind, ownerId: t.ownerId, note: t.note },
        });
      }
      return out;
    },
    async oursIn({ from, to }) {
      const live = networks();
      if (live.length === 0) return [];
      // A sandbox helper's transfer has no block: it never was on a chain.
      const rows = await receivedTransfers(
        and(
          inArray(chainTransfers.network, live),
          isNotNull(chainTransfers.blockNumber),
          gte(chainTransfers.blockTime, from),
          lt(chainTransfers.blockTime, to),
        ),
      );
      // Token transfers the hot wallet made for us and saw confirmed that day (a sweep is sent by a
      // deposit address, not the hot wallet: the node's side above never lists it).
      const sent = await sentTxs(
        and(
          inArray(chainTxs.network, live),
          eq(chainTxs.status, "confirmed"),
          ne(chainTxs.purpose, "sweep"),
          isNotNull(chainTxs.tokenAddress),
          isNotNull(chainTxs.minedHash),
          sql`${chainTxs.amount} > 0`,
          gte(chainTxs.decidedAt, from),
          lt(chainTxs.decidedAt, to),
        ),
      );
      const sentMovements = sent.map(({ t, merchantId }) => ({
        ref: sentRef(t.network, t.minedHash!),
        valueCentavos: 0,
        amount: t.amount ?? "0",
        state: "CONFIRMED",
        merchantId,
        detail: { chainTxId: t.id, purpose: t.purpose, ownerId: t.ownerId },
      }));
      return [
        ...sentMovements,
        ...rows.map(({ transfer: t, orderMerchant, cryptoPixMerchant }) => ({
          ref: transferRef(t.network, t.txHash, t.logIndex),
          valueCentavos: 0,
          amount: t.amount,
          state: "CONFIRMED",
          merchantId: orderMerchant ?? cryptoPixMerchant ?? null,
          detail: { transferId: t.id, ownerKind: t.ownerKind, ownerId: t.ownerId },
        })),
      ];
    },
    sameState: (ours, theirs) => ours === theirs,
  };
}
