import { sql } from "drizzle-orm";
import { db, type Executor } from "@/db";
import { floatLimits, liveNetworks, tokenInfo, type FloatAsset } from "@/lib/chain/config";
import type { Asset, Network } from "@/lib/chain/tokens";
import { env } from "@/lib/env";
import { heldChainTxs, type HeldChainTx } from "@/lib/hot-wallet/float";
import { jobQueue } from "@/lib/jobs/queue";
import { log } from "@/lib/log";
import { sendMail } from "@/lib/mail/mailer";
import { cryptoCompare, fromBaseUnits } from "@/lib/money";
import { providers } from "@/lib/providers";

// The hot wallet's float, watched (docs/operations.md, "Hot-wallet float"). On every network with a
// float configured (HOT_WALLET_FLOAT_<NET>), the check reads the hot wallet's balance of each
// configured token and of gas from the node and stores it beside its minimum and target
// (hot_wallet_float, which the scrape-time gauges read, so every instance reports the same). Going
// below a minimum is a crossing: marked once, by one conditional UPDATE however many instances check,
// and the operator is mailed then; coming back above clears it, so the next crossing mails again.

/** Recurring: reads the float and releases what it can pay (lib/worker works it). */
export const floatCheckQueue = jobQueue<object>("hot-wallet-float", {
  policy: "stately",
  retryLimit: 0,
  expireInSeconds: 120,
});

/** Networks whose float is watched: a node to read, and limits to compare with. */
export function floatNetworks(): Network[] {
  return liveNetworks().filter((n) => floatLimits(n) !== null);
}

export type FloatReading = {
  network: Network;
  asset: FloatAsset;
  balance: string;
  minimum: string;
  target: string;
  belowMinimum: boolean;
  /** Above the target: what `treasury move-excess` would send to the cold address (tokens only). */
  excess: string;
};

/** Reads one network's float from its node: each configured token, and gas. */
export async function readFloat(network: Network): Promise<FloatReading[]> {
  const limits = floatLimits(network);
  if (!limits) return [];
  const assets = (Object.keys(limits) as FloatAsset[]).filter((a) => a !== "gas") as Asset[];
  const tokens = assets.map((a) => tokenInfo(network, a)!);
  const balances = await providers().chain.hotWalletBalances(
    network,
    tokens.map((t) => t.address),
  );
  if (!balances) return [];
  const readings: FloatReading[] = [];
  const reading = (asset: FloatAsset, balance: string): FloatReading => {
    const { min, target } = limits[asset]!;
    const over = cryptoCompare(balance, target) > 0;
    return {
      network,
      asset,
      balance,
      minimum: min,
      target,
      belowMinimum: cryptoCompare(balance, min) < 0,
      excess: over ? subtract(balance, target) : "0",
    };
  };
  assets.forEach((asset, i) => readings.push(reading(asset, fromBaseUnits(balances.tokens[i], tokens[i].decimals))));
  if (limits.gas) readings.push(reading("gas", fromBaseUnits(balances.native, 18)));
  return readings;
}

function subtract(a: string, b: string): string {
  // Exact: both are decimal strings of at most 18 places, so base units of 10^-18 hold them as integers.
  const units = (s: string) => {
    const [w, f = ""] = s.split(".");
    return BigInt(w + f.padEnd(18, "0"));
  };
  return fromBaseUnits(units(a) - units(b), 18);
}

/**
 * Stores a reading; true when it is a new crossing below the minimum. Only one caller ever gets true
 * for a crossing, however many instances check at once: below_since is set only where it was null.
 */
async function store(ex: Executor, r: FloatReading): Promise<boolean> {
  await ex.execute(sql`
    insert into hot_wallet_float (network, asset, balance, minimum, target, below_since, checked_at)
    values (${r.network}, ${r.asset}, ${r.balance}, ${r.minimum}, ${r.target}, null, now())
    on conflict (network, asset) do update set
      balance = excluded.balance, minimum = excluded.minimum, target = excluded.target, checked_at = now()
      ${r.belowMinimum ? sql`` : sql`, below_since = null`}`);
  if (!r.belowMinimum) return false;
  const crossed = await ex.execute(sql`
    update hot_wallet_float set below_since = now() where network = ${r.network} and asset = ${r.asset} and below_since is null returning 1`);
  return crossed.length > 0;
}

/** One check of every watched network: stored, crossings mailed. A network whose node fails is logged and skipped. */
export async function checkFloat(): Promise<FloatReading[]> {
  const all: FloatReading[] = [];
  for (const network of floatNetworks()) {
    let readings: FloatReading[];
    try {
      readings = await readFloat(network);
    } catch (err) {
      log.warn("hot-wallet float not read; the next check tries again", { network, err });
      continue;
    }
    for (const r of readings) {
      if (await store(db(), r)) await announce(r);
    }
    all.push(...readings);
  }
  return all;
}

async function announce(r: FloatReading): Promise<void> {
  const what = r.asset === "gas" ? "gas" : r.asset;
  log.error("hot wallet below minimum", { network: r.network, asset: r.asset, balance: r.balance, minimum: r.minimum });
  const to = env().OPERATOR_ALERT_EMAIL;
  if (!to) return;
  await sendMail({
    to,
    subject: `[payments] hot wallet below minimum on ${r.network}: ${what}`,
    text:
      `The hot wallet holds ${r.balance} ${what} on ${r.network}, below its minimum of ${r.minimum} (target ${r.target}).\n` +
      `On-chain withdrawals and Crypto-PIX refunds it cannot pay wait (PENDING, with the reason) and leave by themselves once it is topped up.\n\n` +
      `See it with: npm run cli -- treasury status\nThis mail is sent once per crossing; the next one comes only after the balance was back above the minimum.`,
  }).catch((err: unknown) => log.warn("operator alert mail not sent", { network: r.network, asset: r.asset, err }));
}

/** The float as the last check stored it, for the gauges (every instance reads the same rows). */
export async function storedFloat(
  ex: Executor = db(),
): Promise<{ network: string; asset: string; balance: string; belowMinimum: boolean }[]> {
  const rows = await ex.execute<{ network: string; asset: string; balance: string; below: boolean }>(
    sql`select network, asset, balance::text as balance, below_since is not null as below from hot_wallet_float order by network, asset`,
  );
  return rows.map((r) => ({ network: r.network, asset: r.asset, balance: r.balance, belowMinimum: r.below }));
}

export type FloatStatus = { readings: FloatReading[]; held: HeldChainTx[]; coldAddress: string | null };

/** The operator's view: read now from the nodes (and stored, so a crossing still mails once), and what waits. */
export async function floatStatus(network?: Network): Promise<FloatStatus> {
  const readings = (await checkFloat()).filter((r) => !network || r.network === network);
  const held = (await heldChainTxs()).filter((h) => !network || h.network === network);
  return { readings, held, coldAddress: env().HOT_WALLET_COLD_ADDRESS ?? null };
}
