import { sql } from "drizzle-orm";
import { db } from "@/db";
import { sweeps, type ChainTx } from "@/db/schema";
import { liveNetworks, sweepThresholds, tokenInfo } from "@/lib/chain/config";
import { depositPrivateKey } from "@/lib/chain/deposit-keys";
import type { Asset, Network } from "@/lib/chain/tokens";
import { env } from "@/lib/env";
import { chainTxById } from "@/lib/hot-wallet/queries";
import { createChainTx, planSend, sendChainTx } from "@/lib/hot-wallet/transactions";
import { jobQueue } from "@/lib/jobs/queue";
import { log } from "@/lib/log";
import { fromBaseUnits, toBaseUnits } from "@/lib/money";
import { providers } from "@/lib/providers";
import { ERC20_TRANSFER_GAS } from "@/lib/providers/chain/live";

// Sweeping (docs/operations.md, "Sweeping"): a deposit address holding more of a token than its
// threshold (SWEEP_THRESHOLDS_<NET>) is emptied into the hot wallet (or SWEEP_TO). When the address
// cannot pay the gas of one token transfer, the hot wallet sends it that first (a sweep_gas
// transaction); the token transfer (a sweep transaction) is signed with the address's own key, in the
// address's own nonce scope, and held until the gas is there. Both are hot-wallet-machine
// transactions: recorded with the sweep before anything is broadcast, sent again when dropped,
// replaced when slow, decided by receipt. What the gas cost is the service's, kept on the sweep
// (fee_wei, gas_left_wei), never on a merchant's ledger.
//
// Money the deposit watcher has not applied yet (its transfer still waits for its confirmations) is
// never swept: an address whose node balance is above what our records say it received, less what
// was swept, is skipped until the watcher has applied it. Only the token each order or payment
// waits for is swept; money of another token stays where it is, shown to the merchant.

/** Recurring, in the worker that holds DEPOSIT_XPRV_FILE (lib/worker works it every SWEEP_INTERVAL_SECONDS). */
export const sweepDepositsQueue = jobQueue<object>("treasury-sweep", {
  policy: "stately",
  retryLimit: 0,
  expireInSeconds: 900,
});

/** Room for replacements at higher fees: the top-up covers the transfer's gas at 1.5 times the fees it was signed with. */
const GAS_MARGIN_NUMERATOR = 3n;
const GAS_MARGIN_DENOMINATOR = 2n;

/** Networks swept: a node to read and send through, and thresholds. */
export function sweepNetworks(): Network[] {
  return liveNetworks().filter((n) => sweepThresholds(n) !== null);
}

export type SweepItem = {
  network: Network;
  asset: Asset;
  address: string;
  /** What the node shows the address holding, in tokens. */
  balance: string;
  action: "sweep" | "skip";
  /** Why it is skipped. */
  reason?: string;
  /** Native coin the hot wallet sends first for the gas ("0": the address has enough). */
  gasTopUp?: string;
  sweepId?: string;
  gasChainTxId?: string | null;
  chainTxId?: string;
};

export type SweepRun = {
  dryRun: boolean;
  to: Record<string, string>;
  items: SweepItem[];
  /** Earlier sweeps decided since the last run. */
  finished: { id: string; status: "swept" | "failed"; feeWei: string }[];
  /** Addresses holding some of a token, but not more than its threshold. */
  belowThreshold: number;
};

type Candidate = {
  walletIndex: number;
  address: string;
  token: string;
  received: string;
  swept: string;
  pendingSweeps: number;
};

/**
 * Deposit addresses on `network` that may hold `token`: those of orders and payments waiting for it
 * still open, or that ever received a transfer. With what we recorded them receiving and what sweeps
 * took (in flight or done).
 */
async function candidates(network: Network, token: string): Promise<Candidate[]> {
  const rows = await db().execute<{
    wallet_index: number;
    address: string;
    received: string;
    swept: string;
    pending: number;
  }>(sql`
    with owned as (
      select o.wallet_index, o.address from onchain_orders o
      where o.network = ${network} and lower(o.token_address) = ${token}
        and (o.closed_at is null or exists (select 1 from chain_transfers t where t.owner_id = o.id))
      union
      select p.wallet_index, p.address from crypto_pix_payments p
      where p.network = ${network} and lower(p.token_address) = ${token} and p.wallet_index is not null
        and (p.closed_at is null or exists (select 1 from chain_transfers t where t.owner_id = p.id))
    )
    select w.wallet_index, w.address,
      coalesce((select sum(t.amount) from chain_transfers t
        where t.network = ${network} and lower(t.to_address) = lower(w.address) and lower(t.token_address) = ${token}), 0)::text as received,
      coalesce((select sum(s.amount) from sweeps s
        where s.network = ${network} and lower(s.address) = lower(w.address) and lower(s.token_address) = ${token} and s.status in ('pending', 'swept')), 0)::text as swept,
      (select count(*) from sweeps s where s.network = ${network} and lower(s.address) = lower(w.address) and s.status = 'pending')::int as pending
    from owned w order by w.wallet_index`);
  return rows.map((r) => ({
    walletIndex: Number(r.wallet_index),
    address: r.address,
    token,
    received: r.received,
    swept: r.swept,
    pendingSweeps: r.pending,
  }));
}

/** Where sweeps send tokens: SWEEP_TO, or the hot wallet. */
function destination(network: Network): `0x${string}` {
  return (env().SWEEP_TO as `0x${string}` | undefined) ?? providers().chain.hotWalletAddress(network);
}

/**
 * One run: finishes the sweeps decided since the last one, then sweeps (or, `dryRun`, lists) every
 * address above its threshold. A network whose node fails is logged and left for the next run.
 */
export async function sweepDeposits(opts: { network?: Network; dryRun?: boolean } = {}): Promise<SweepRun> {
  const dryRun = opts.dryRun ?? false;
  const run: SweepRun = { dryRun, to: {}, items: [], finished: [], belowThreshold: 0 };
  if (!dryRun) run.finished = await finishSweeps();
  for (const network of sweepNetworks()) {
    if (opts.network && network !== opts.network) continue;
    run.to[network] = destination(network);
    const thresholds = sweepThresholds(network)!;
    for (const asset of Object.keys(thresholds) as Asset[]) {
      try {
        await sweepToken(network, asset, thresholds[asset]!, dryRun, run);
      } catch (err) {
        log.warn("sweep of a token not finished; the next run tries again", { network, asset, err });
      }
    }
  }
  return run;
}

async function sweepToken(
  network: Network,
  asset: Asset,
  threshold: string,
  dryRun: boolean,
  run: SweepRun,
): Promise<void> {
  const token = tokenInfo(network, asset)!;
  const chain = providers().chain;
  const list = await candidates(network, token.address.toLowerCase());
  if (list.length === 0) return;
  const balances = await chain.tokenBalances!(
    network,
    token,
    list.map((c) => c.address as `0x${string}`),
  );
  const limit = toBaseUnits(threshold, token.decimals);
  const to = destination(network);
  for (const [i, c] of list.entries()) {
    const balance = balances[i];
    if (balance === 0n) continue;
    const item: SweepItem = {
      network,
      asset,
      address: c.address,
      balance: fromBaseUnits(balance, token.decimals),
      action: "skip",
    };
    const recorded = toBaseUnits(c.received, token.decimals) - toBaseUnits(c.swept, token.decimals);
    if (c.pendingSweeps > 0) item.reason = "a sweep of this address is in flight";
    else if (balance > recorded)
      item.reason = `confirming: ${fromBaseUnits(balance - recorded, token.decimals)} ${asset} arrived that the deposit watcher has not applied yet (waiting for its confirmations)`;
    else if (balance <= limit) {
      run.belowThreshold++;
      continue;
    }
    if (item.reason) {
      run.items.push(item);
      continue;
    }
    if (balance < recorded)
      log.warn("deposit address holds less than recorded; sweeping what it holds", {
        network,
        address: c.address,
        asset,
      });
    try {
      Object.assign(item, await sweepOne(network, asset, token, c, balance, to, dryRun));
    } catch (err) {
      item.reason = `not swept: ${err instanceof Error ? err.message : String(err)}`;
      log.warn("deposit address not swept; the next run tries again", { network, address: c.address, asset, err });
    }
    run.items.push(item);
  }
}

async function sweepOne(
  network: Network,
  asset: Asset,
  token: { address: `0x${string}`; decimals: number },
  c: Candidate,
  balance: bigint,
  to: `0x${string}`,
  dryRun: boolean,
): Promise<Partial<SweepItem>> {
  const chain = providers().chain;
  const address = c.address as `0x${string}`;
  const own = await chain.hotWalletBalances(network, [], address);
  if (!own) throw new Error(`${network} has no node to read ${address} from`);
  const depositPlan = await planSend(network, address);
  // What the token transfer may burn at the fees it is signed with, and room for a replacement.
  const needed = ERC20_TRANSFER_GAS * depositPlan.fees.maxFeePerGas;
  const topUp = own.native >= needed ? 0n : (needed * GAS_MARGIN_NUMERATOR) / GAS_MARGIN_DENOMINATOR - own.native;
  const amount = fromBaseUnits(balance, token.decimals);
  if (dryRun) return { action: "sweep", gasTopUp: fromBaseUnits(topUp, 18) };
  const privateKey = depositPrivateKey(c.walletIndex, c.address);
  const hotPlan = topUp > 0n ? await planSend(network) : null;
  const made = await db().transaction(async (tx) => {
    // Two runs at once (the job and an operator's command): the second finds the first one's sweep.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`sweep:${network}:${c.address.toLowerCase()}`}))`);
    const [inFlight] = await tx.execute(sql`
      select 1 from sweeps where network = ${network} and lower(address) = ${c.address.toLowerCase()} and status = 'pending' limit 1`);
    if (inFlight) return null;
    const gas: { chainTx: ChainTx } | null = hotPlan
      ? await createChainTx(tx, hotPlan, { purpose: "sweep_gas", to: c.address, valueWei: topUp })
      : null;
    const sweep = await createChainTx(tx, depositPlan, { purpose: "sweep", token, to, amount, privateKey });
    const [row] = await tx
      .insert(sweeps)
      .values({
        network,
        walletIndex: c.walletIndex,
        address: c.address,
        asset,
        tokenAddress: token.address,
        amount,
        toAddress: to,
        gasChainTxId: gas?.chainTx.id ?? null,
        chainTxId: sweep.chainTx.id,
        gasSentWei: topUp.toString(),
      })
      .returning({ id: sweeps.id });
    return { sweepId: row.id, gasChainTxId: gas?.chainTx.id ?? null, chainTxId: sweep.chainTx.id };
  });
  if (!made) return { action: "skip", reason: "a sweep of this address is in flight" };
  log.info("deposit address swept", {
    network,
    address: c.address,
    asset,
    amount,
    gasTopUp: fromBaseUnits(topUp, 18),
    sweepId: made.sweepId,
  });
  // The gas first: the token transfer is held until the address can pay for it.
  if (made.gasChainTxId) await sendChainTx(made.gasChainTxId);
  await sendChainTx(made.chainTxId);
  return { action: "sweep", gasTopUp: fromBaseUnits(topUp, 18), ...made };
}

// When this process last swept: one worker sweeps (the one holding the key), so its own clock is enough.
let lastSweepAt = 0;

/**
 * The recurring job's tick. The job queue's durable schedule fires every minute whatever the
 * interval, so a tick sweeps only once SWEEP_INTERVAL_SECONDS have passed since this process last
 * did (a second's slack for the timer's jitter); in between it only finishes decided sweeps.
 */
export async function sweepTick(): Promise<SweepRun | null> {
  const now = Date.now();
  if (now - lastSweepAt < env().SWEEP_INTERVAL_SECONDS * 1000 - 1000) {
    await finishSweeps();
    return null;
  }
  lastSweepAt = now;
  return sweepDeposits();
}

/**
 * Pending sweeps whose token transfer is decided: swept (confirmed) or failed (reverted, superseded:
 * the tokens are still there, a later run sweeps them again), with what both transactions paid in
 * fees and what gas the address kept, read from the node: the service's cost of sweeping.
 */
export async function finishSweeps(): Promise<SweepRun["finished"]> {
  const rows = await db().execute<{
    id: string;
    network: string;
    address: string;
    chain_tx_id: string;
    gas_chain_tx_id: string | null;
  }>(sql`
    select s.id, s.network, s.address, s.chain_tx_id, s.gas_chain_tx_id from sweeps s join chain_txs x on x.id = s.chain_tx_id
    where s.status = 'pending' and x.status <> 'pending' order by s.created_at`);
  const finished: SweepRun["finished"] = [];
  const chain = providers().chain;
  for (const r of rows) {
    try {
      const network = r.network as Network;
      const sweepTx = (await chainTxById(db(), r.chain_tx_id))!;
      const gasTx = r.gas_chain_tx_id ? await chainTxById(db(), r.gas_chain_tx_id) : undefined;
      let fee = 0n;
      for (const t of [gasTx, sweepTx]) {
        if (t?.minedHash) fee += (await chain.transactionFee?.(network, t.minedHash as `0x${string}`)) ?? 0n;
      }
      const left = (await chain.hotWalletBalances(network, [], r.address as `0x${string}`))?.native ?? null;
      const status = sweepTx.status === "confirmed" ? "swept" : "failed";
      const done = await db().execute(sql`
        update sweeps set status = ${status}, fee_wei = ${fee.toString()}, gas_left_wei = ${left === null ? null : left.toString()}, finished_at = now()
        where id = ${r.id} and status = 'pending' returning 1`);
      if (done.length === 0) continue;
      if (status === "failed")
        log.warn("sweep failed; the tokens stay at the deposit address", {
          sweepId: r.id,
          reason: sweepTx.failureReason,
        });
      finished.push({ id: r.id, status, feeWei: fee.toString() });
    } catch (err) {
      log.warn("sweep not finished; the next run tries again", { sweepId: r.id, err });
    }
  }
  return finished;
}

export type SweepCosts = {
  network: string;
  sweeps: number;
  swept: Record<string, string>;
  feeWei: string;
  gasLeftWei: string;
  gasSentWei: string;
};

/** What sweeping moved and cost the service, per network: the sweeps ledger summed. */
export async function sweepCosts(): Promise<SweepCosts[]> {
  const rows = await db().execute<{
    network: string;
    asset: string;
    n: number;
    amount: string;
    fee: string;
    left: string;
    sent: string;
  }>(sql`
    select network, asset, count(*)::int as n, sum(amount)::text as amount, coalesce(sum(fee_wei), 0)::text as fee,
      coalesce(sum(gas_left_wei), 0)::text as left, sum(gas_sent_wei)::text as sent
    from sweeps where status = 'swept' group by network, asset order by network, asset`);
  const out = new Map<string, SweepCosts>();
  for (const r of rows) {
    const c = out.get(r.network) ?? {
      network: r.network,
      sweeps: 0,
      swept: {},
      feeWei: "0",
      gasLeftWei: "0",
      gasSentWei: "0",
    };
    c.sweeps += r.n;
    c.swept[r.asset] = fromBaseUnits(toBaseUnits(r.amount, 18), 18);
    c.feeWei = (BigInt(c.feeWei) + BigInt(r.fee)).toString();
    c.gasLeftWei = (BigInt(c.gasLeftWei) + BigInt(r.left)).toString();
    c.gasSentWei = (BigInt(c.gasSentWei) + BigInt(r.sent)).toString();
    out.set(r.network, c);
  }
  return [...out.values()];
}
