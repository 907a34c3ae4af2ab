import { sql } from "drizzle-orm";
import { parseTransaction, type Hex } from "viem";
import { db, type Executor } from "@/db";
import type { ChainTx } from "@/db/schema";
import { assetOf, floatLimits, tokenInfo } from "@/lib/chain/config";
import type { Network } from "@/lib/chain/tokens";
import { log } from "@/lib/log";
import { fromBaseUnits } from "@/lib/money";
import { providers } from "@/lib/providers";

// The hot wallet's float, at the moment of sending (docs/operations.md, "Hot-wallet float"). On a
// network with a float configured (HOT_WALLET_FLOAT_<NET>), a token transfer is broadcast only when
// the node shows the hot wallet holding its amount on top of what our unmined transactions before
// it will take, and the gas it may burn. Otherwise it is held: recorded, signed, nonce reserved, but
// not sent, with the reason on the transaction and on the withdrawal it pays. A transfer sent
// without the tokens would be mined and revert (the gas spent, the withdrawal failed and credited
// back); held, it waits and leaves by itself once the float check sees the wallet topped up.

/**
 * Base units of `tokenAddress` that our pending transactions at nonces from `minedNonce` (the node's
 * count of mined ones: those are in the balance already) up to `beforeNonce` (excluded) will spend.
 */
export async function promisedAhead(
  ex: Executor,
  nonceScope: string,
  tokenAddress: string,
  minedNonce: number,
  beforeNonce: number | null,
): Promise<bigint> {
  const [row] = await ex.execute<{ units: string }>(sql`
    select coalesce(sum(amount_base_units), 0)::text as units from chain_txs
    where nonce_scope = ${nonceScope} and status = 'pending' and lower(token_address) = ${tokenAddress.toLowerCase()}
      and nonce >= ${minedNonce} ${beforeNonce === null ? sql`` : sql`and nonce < ${beforeNonce}`}`);
  return BigInt(row.units);
}

const plain = (units: bigint, decimals: number) => fromBaseUnits(units, decimals);

/** Why this version of a transaction must not be broadcast now, or null when it may be. Reads the node. */
export async function holdReason(chainTx: ChainTx, rawTransaction: string): Promise<string | null> {
  if (chainTx.purpose === "filler" || !chainTx.tokenAddress || !chainTx.amountBaseUnits) return null;
  const network = chainTx.network as Network;
  if (chainTx.purpose === "sweep") return sweepHoldReason(chainTx, rawTransaction);
  const limits = floatLimits(network);
  if (!limits) return null;
  const parsed = parseTransaction(rawTransaction as Hex);
  // A cancellation (a zero-value self-transfer) moves no tokens and is what frees a stuck nonce.
  if (parsed.to?.toLowerCase() !== chainTx.tokenAddress.toLowerCase()) return null;
  const token = chainTx.tokenAddress as `0x${string}`;
  const balances = await providers().chain.hotWalletBalances(network, [token]);
  if (!balances) return null;
  const asset = assetOf(network, token);
  const decimals = asset ? tokenInfo(network, asset)!.decimals : 0;
  const name = asset ?? token;
  const ahead = await promisedAhead(db(), chainTx.nonceScope, token, balances.minedNonce, chainTx.nonce);
  const amount = BigInt(chainTx.amountBaseUnits);
  const held = balances.tokens[0];
  if (held < ahead + amount) {
    const min = asset ? limits[asset]?.min : undefined;
    const below = min !== undefined && held < BigInt(toUnits(min, decimals));
    const what = below ? `hot wallet below minimum on ${network}: ${name}` : `hot wallet short on ${network}: ${name}`;
    const before = ahead > 0n ? ` after ${plain(ahead, decimals)} promised to earlier transfers` : "";
    return `${what} (holds ${plain(held, decimals)}${min !== undefined ? `, minimum ${min}` : ""}; this transfer needs ${plain(amount, decimals)}${before}); waiting for a top-up`;
  }
  const gasCost = (parsed.gas ?? 0n) * (parsed.maxFeePerGas ?? parsed.gasPrice ?? 0n);
  if (balances.native < gasCost) {
    const below = limits.gas !== undefined && balances.native < BigInt(toUnits(limits.gas.min, 18));
    return `hot wallet ${below ? "below minimum" : "short"} on ${network}: gas (holds ${plain(balances.native, 18)}${limits.gas ? `, minimum ${limits.gas.min}` : ""}; this transfer may burn up to ${plain(gasCost, 18)}); waiting for a top-up`;
  }
  return null;
}

/**
 * A sweep's token transfer is paid for by the deposit address: until its gas top-up (sent from the hot
 * wallet just before) is mined there, a node would refuse it, so it waits, held, and leaves once the
 * address can pay.
 */
async function sweepHoldReason(chainTx: ChainTx, rawTransaction: string): Promise<string | null> {
  const parsed = parseTransaction(rawTransaction as Hex);
  const balances = await providers().chain.hotWalletBalances(
    chainTx.network as Network,
    [],
    chainTx.fromAddress as `0x${string}`,
  );
  if (!balances) return null;
  const gasCost = (parsed.gas ?? 0n) * (parsed.maxFeePerGas ?? parsed.gasPrice ?? 0n);
  if (balances.native >= gasCost) return null;
  return `deposit address ${chainTx.fromAddress} holds ${plain(balances.native, 18)} gas, this sweep may burn up to ${plain(gasCost, 18)}: waiting for its gas top-up`;
}

function toUnits(amount: string, decimals: number): string {
  const [whole, frac = ""] = amount.split(".");
  return (whole + frac.padEnd(decimals, "0").slice(0, decimals)).replace(/^0+(?=\d)/, "");
}

/** Not broadcast, and why: on the transaction, and on the withdrawal it pays (GET /withdrawals/{id} shows it). */
export async function markHeld(chainTx: ChainTx, reason: string): Promise<void> {
  const text = reason.slice(0, 500);
  await db().transaction(async (tx) => {
    const [row] = await tx.execute<{ was: string | null }>(sql`
      update chain_txs t set held_reason = ${text}, held_since = coalesce(t.held_since, now()), updated_at = now()
      from (select id, held_reason as was from chain_txs where id = ${chainTx.id} for update) old
      where t.id = old.id and t.status = 'pending' returning old.was`);
    if (chainTx.ownerKind === "withdrawal" && chainTx.ownerId) {
      await tx.execute(sql`
        update withdrawals set waiting_reason = ${text}, updated_at = now()
        where id = ${chainTx.ownerId} and status = 'PENDING' and waiting_reason is distinct from ${text}`);
    }
    // A sweep waiting for its gas top-up is the expected course, not a shortage to warn about.
    if (row && row.was === null && chainTx.purpose === "sweep")
      log.info("sweep held until its gas top-up arrives", { chainTxId: chainTx.id, network: chainTx.network });
    else if (row && row.was === null)
      log.warn("hot-wallet transaction held: the hot wallet cannot pay it", {
        chainTxId: chainTx.id,
        network: chainTx.network,
        reason: text,
      });
  });
}

/** The hot wallet can pay it now: it is broadcast, and nothing waits any more. */
export async function clearHeld(chainTx: ChainTx): Promise<void> {
  await db().transaction(async (tx) => {
    await tx.execute(
      sql`update chain_txs set held_reason = null, held_since = null, updated_at = now() where id = ${chainTx.id} and held_reason is not null`,
    );
    if (chainTx.ownerKind === "withdrawal" && chainTx.ownerId) {
      await tx.execute(
        sql`update withdrawals set waiting_reason = null, updated_at = now() where id = ${chainTx.ownerId} and waiting_reason is not null`,
      );
    }
  });
  log.info("held hot-wallet transaction released", { chainTxId: chainTx.id, network: chainTx.network });
}

/** Whether an earlier nonce of the scope is held: a later transaction cannot be mined before it, so paying more would not help. */
export async function heldBefore(ex: Executor, nonceScope: string, nonce: number): Promise<boolean> {
  const rows = await ex.execute(sql`
    select 1 from chain_txs where nonce_scope = ${nonceScope} and nonce < ${nonce} and status = 'pending' and held_reason is not null limit 1`);
  return rows.length > 0;
}

export type HeldChainTx = {
  id: string;
  purpose: string;
  ownerKind: string | null;
  ownerId: string | null;
  network: string;
  nonce: number;
  reason: string;
  since: Date;
};

/** Pending transactions held for the float, in nonce order (the order they must leave in). */
export async function heldChainTxs(ex: Executor = db()): Promise<HeldChainTx[]> {
  const rows = await ex.execute<{
    id: string;
    purpose: string;
    owner_kind: string | null;
    owner_id: string | null;
    network: string;
    nonce: number;
    held_reason: string;
    held_since: Date | string;
  }>(sql`
    select id, purpose, owner_kind, owner_id, network, nonce, held_reason, held_since from chain_txs
    where status = 'pending' and held_reason is not null order by nonce_scope, nonce`);
  return rows.map((r) => ({
    id: r.id,
    purpose: r.purpose,
    ownerKind: r.owner_kind,
    ownerId: r.owner_id,
    network: r.network,
    nonce: r.nonce,
    reason: r.held_reason,
    since: new Date(r.held_since),
  }));
}
