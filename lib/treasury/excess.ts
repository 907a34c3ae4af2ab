import { sql } from "drizzle-orm";
import { db } from "@/db";
import { floatLimits, tokenInfo } from "@/lib/chain/config";
import type { Asset, Network } from "@/lib/chain/tokens";
import { env } from "@/lib/env";
import { InvalidInput } from "@/lib/errors";
import { promisedAhead } from "@/lib/hot-wallet/float";
import { createChainTx, planSend, sendChainTx } from "@/lib/hot-wallet/transactions";
import { log } from "@/lib/log";
import { fromBaseUnits, toBaseUnits } from "@/lib/money";
import { providers } from "@/lib/providers";
import { floatNetworks } from "./float";

// The operator's `treasury move-excess`: each configured token's balance above its target goes to
// HOT_WALLET_COLD_ADDRESS, as a hot-wallet transaction like any other (recorded with its nonce and
// signed version before it is broadcast, followed to a receipt by the chain-tx job). What our
// pending transactions will still take from the balance is not excess: a second run while the first
// transfer is unmined, or after it, finds nothing to move. Gas is not moved (a token transfer needs
// it, and the cold address is for tokens); the status shows its excess for a move by hand.

export type ExcessMove = {
  network: Network;
  asset: Asset;
  balance: string;
  target: string;
  /** Held by our pending transactions (withdrawals, refunds, earlier moves) not mined yet. */
  promised: string;
  moved: string;
  chainTxId: string | null;
  hash: string | null;
};

export async function moveExcess(opts: { network?: Network; dryRun?: boolean } = {}): Promise<ExcessMove[]> {
  const cold = env().HOT_WALLET_COLD_ADDRESS;
  if (!cold) throw new InvalidInput("HOT_WALLET_COLD_ADDRESS is not set: there is nowhere to move the excess to");
  const moves: ExcessMove[] = [];
  for (const network of floatNetworks()) {
    if (opts.network && network !== opts.network) continue;
    const limits = floatLimits(network)!;
    for (const asset of Object.keys(limits).filter((a) => a !== "gas") as Asset[]) {
      moves.push(await moveOne(network, asset, limits[asset]!.target, cold, opts.dryRun ?? false));
    }
  }
  return moves;
}

async function moveOne(
  network: Network,
  asset: Asset,
  target: string,
  cold: string,
  dryRun: boolean,
): Promise<ExcessMove> {
  const token = tokenInfo(network, asset)!;
  const plan = await planSend(network);
  // Balance and mined count read at one block: a transfer of ours mined by then is in the balance and
  // out of `promised`, one mined after is in `promised`; never both, never neither.
  const balances = await providers().chain.hotWalletBalances(network, [token.address]);
  if (!balances) throw new InvalidInput(`${network} has no node to read the hot wallet from`);
  const balance = balances.tokens[0];
  const made = await db().transaction(async (tx) => {
    // Two operators at once: the second waits here, then counts the first one's transfer as promised.
    await tx.execute(
      sql`select pg_advisory_xact_lock(hashtext(${`treasury-excess:${plan.nonceScope}:${token.address.toLowerCase()}`}))`,
    );
    const promised = await promisedAhead(tx, plan.nonceScope, token.address, balances.minedNonce, null);
    const amount = balance - promised - toBaseUnits(target, token.decimals);
    const base = {
      network,
      asset,
      balance: fromBaseUnits(balance, token.decimals),
      target,
      promised: fromBaseUnits(promised, token.decimals),
    };
    if (amount <= 0n) return { ...base, moved: "0", chainTxId: null, hash: null };
    const moved = fromBaseUnits(amount, token.decimals);
    if (dryRun) return { ...base, moved, chainTxId: null, hash: null };
    const { chainTx, hash } = await createChainTx(tx, plan, { purpose: "treasury", token, to: cold, amount: moved });
    return { ...base, moved, chainTxId: chainTx.id, hash };
  });
  if (made.chainTxId) {
    log.info("float excess sent to the cold address", {
      network,
      asset,
      amount: made.moved,
      chainTxId: made.chainTxId,
      hash: made.hash,
    });
    await sendChainTx(made.chainTxId);
  }
  return made;
}
