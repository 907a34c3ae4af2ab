import { desc, sql } from "drizzle-orm";
import { db, type Executor } from "@/db";
import { solvencyReports } from "@/db/schema";
import { assetOf, liveNetworks, tokenInfo } from "@/lib/chain/config";
import { ASSETS, NETWORKS, type Asset, type Network } from "@/lib/chain/tokens";
import { env } from "@/lib/env";
import { jobQueue } from "@/lib/jobs/queue";
import { log } from "@/lib/log";
import { sendMail } from "@/lib/mail/mailer";
import { Decimal, formatBrl, fromBaseUnits, toPlain } from "@/lib/money";
import { providers } from "@/lib/providers";
import type { HeldBalance } from "@/lib/providers/balance";
import type { Quote, QuotedSymbol } from "@/lib/providers/rates/types";

// The solvency report (docs/operations.md, "Solvency report"): do we hold what we owe? Liabilities
// are what the books say belongs to others: merchants' positive balances, money decided to leave
// that has not left (withdrawals, refunds, Crypto-PIX payouts), and money that arrived for no one
// (unapplied funds, owed back to payers). Assets are what the providers say we hold: the PSP
// account, the hot wallet and the deposit addresses per token, the exchange wallet, the Lightning
// node. Crypto is valued in BRL at the rates provider, per line: assets rounded down to the centavo
// and liabilities up, so rounding never hides a shortfall. A source that cannot be read counts as
// zero and is named: a proof of reserves does not count what it did not see. Negative merchant
// balances (a MED devolução debited below zero) are owed to us, shown apart and never counted as held.

/** Recurring: ticks every minute (pg-boss's schedule) and takes a report once SOLVENCY_REPORT_SECONDS have passed. */
export const solvencyQueue = jobQueue<object>("solvency-report", {
  policy: "stately",
  retryLimit: 0,
  expireInSeconds: 900,
});

export type SolvencyLine = {
  side: "liability" | "asset" | "receivable";
  /** What the line is (merchant_balances, pix_payouts, psp, hot_wallet, deposit_addresses, …). */
  kind: string;
  centavos: number;
  /** How many records make it up (liabilities), where that means something. */
  count?: number;
  network?: string;
  asset?: string;
  /** The crypto amount behind it, exact. */
  amount?: string;
  rate?: string;
  rateSource?: string;
  note?: string;
};

export type SolvencyReport = {
  id: number | null;
  takenAt: Date;
  liabilitiesCentavos: number;
  assetsCentavos: number;
  receivablesCentavos: number;
  /** Liabilities − assets, when positive; 0 otherwise. */
  shortfallCentavos: number;
  /** Assets − liabilities, when positive. */
  surplusCentavos: number;
  toleranceCentavos: number;
  /** The shortfall is beyond the tolerance. */
  short: boolean;
  /** This report crossed into a shortfall: the operator was mailed. */
  alerted: boolean;
  lines: SolvencyLine[];
  notRead: string[];
};

type Rounding = "down" | "up";

/** Values crypto in BRL centavos at one quote per symbol for the whole report. */
class Valuer {
  private quotes = new Map<QuotedSymbol, Promise<Quote>>();
  async value(
    symbol: QuotedSymbol,
    amount: string,
    rounding: Rounding,
  ): Promise<{ centavos: number; rate: string; rateSource: string }> {
    let quote = this.quotes.get(symbol);
    if (!quote) {
      quote = providers().rates.quote(symbol);
      this.quotes.set(symbol, quote);
    }
    const q = await quote;
    const exact = new Decimal(amount).times(q.rate).times(100);
    // Floor and ceiling (not toward zero): the sandbox hot wallet's negative balance rounds down too.
    const centavos = exact
      .toDecimalPlaces(0, rounding === "down" ? Decimal.ROUND_FLOOR : Decimal.ROUND_CEIL)
      .toNumber();
    return { centavos, rate: q.rate, rateSource: q.source };
  }
}

/** Networks whose chain is read: every one in sandbox (the sandbox's record, or a node where one is set), the live ones otherwise. */
function reportNetworks(): Network[] {
  return env().PAYMENTS_MODE === "sandbox" ? [...NETWORKS] : liveNetworks();
}

const int = (v: string | number | null | undefined) => Number(v ?? 0);

type CryptoRow = { network: string; asset: string | null; token: string | null; amount: string; n: number };

async function cryptoLines(
  side: "liability",
  kind: string,
  rows: CryptoRow[],
  valuer: Valuer,
  notRead: string[],
  note?: string,
): Promise<SolvencyLine[]> {
  const lines: SolvencyLine[] = [];
  for (const r of rows) {
    if (new Decimal(r.amount).isZero()) continue;
    const asset = r.asset ?? (r.token ? assetOf(r.network as Network, r.token) : null);
    if (!asset) {
      // Owed all the same: named, so the report never looks complete when it is not.
      notRead.push(`${kind}: ${r.amount} of token ${r.token} on ${r.network} (not in the token table, not valued)`);
      continue;
    }
    try {
      const v = await valuer.value(asset as QuotedSymbol, r.amount, "up");
      lines.push({
        side,
        kind,
        network: r.network,
        asset,
        amount: toPlain(new Decimal(r.amount)),
        count: r.n,
        ...v,
        ...(note ? { note } : {}),
      });
    } catch (err) {
      notRead.push(`${kind}: ${r.amount} ${asset} on ${r.network} not valued (${messageOf(err)})`);
    }
  }
  return lines;
}

/** What the books say we owe, and the negative balances owed to us. */
async function liabilities(ex: Executor, valuer: Valuer, notRead: string[]): Promise<SolvencyLine[]> {
  const lines: SolvencyLine[] = [];
  const [balances] = await ex.execute<{ owed: string; receivable: string; owing: number; negative: number }>(sql`
    select coalesce(sum(b) filter (where b > 0), 0)::text as owed, coalesce(-sum(b) filter (where b < 0), 0)::text as receivable,
      count(*) filter (where b > 0)::int as owing, count(*) filter (where b < 0)::int as negative
    from (select m.balance_centavos + coalesce((select sum(u.amount_centavos) from unfolded_credits u where u.merchant_id = m.id), 0) as b from merchants m) x`);
  lines.push({ side: "liability", kind: "merchant_balances", centavos: int(balances.owed), count: balances.owing });
  if (int(balances.receivable) > 0)
    lines.push({
      side: "receivable",
      kind: "negative_merchant_balances",
      centavos: int(balances.receivable),
      count: balances.negative,
      note: "debited below zero (MED devoluções): owed to us, not counted as held",
    });

  // Held out of merchants' balances for open MED infractions: still owed, to the merchant or to the payer.
  const [holds] = await ex.execute<{ centavos: string; n: number }>(sql`
    select coalesce(sum(held_centavos), 0)::text as centavos, count(*)::int as n from med_infractions where hold_state = 'held'`);
  if (holds.n > 0) lines.push({ side: "liability", kind: "med_holds", centavos: int(holds.centavos), count: holds.n });

  // PIX decided and not known to have left: pix-out withdrawals and Crypto-PIX payouts.
  for (const r of await ex.execute<{ purpose: string; centavos: string; n: number }>(sql`
    select purpose, sum(value_centavos)::text as centavos, count(*)::int as n from pix_payouts where status in ('created', 'processing') group by purpose order by purpose`)) {
    lines.push({
      side: "liability",
      kind: r.purpose === "withdrawal" ? "pix_withdrawals_in_flight" : "crypto_pix_payouts_in_flight",
      centavos: int(r.centavos),
      count: r.n,
    });
  }
  // Refunds of PIX and exchange-wallet orders: the merchant was debited, the payer not paid yet.
  const [refunds] = await ex.execute<{ centavos: string; n: number }>(sql`
    select coalesce(sum(value_centavos), 0)::text as centavos, count(*)::int as n from order_refunds where status = 'PENDING'`);
  if (refunds.n > 0)
    lines.push({
      side: "liability",
      kind: "order_refunds_in_flight",
      centavos: int(refunds.centavos),
      count: refunds.n,
    });

  // Token transfers the hot wallet owes and has not had confirmed: withdrawals and crypto refunds.
  const chainOut = await ex.execute<CryptoRow & { purpose: string }>(sql`
    select x.purpose, x.network, w.token as asset, lower(x.token_address) as token, sum(x.amount)::text as amount, count(*)::int as n
    from chain_txs x left join withdrawals w on x.owner_kind = 'withdrawal' and w.id = x.owner_id
    where x.status = 'pending' and x.purpose in ('withdrawal', 'refund') and x.amount is not null
    group by x.purpose, x.network, w.token, lower(x.token_address) order by 1, 2, 3, 4`);
  lines.push(
    ...(await cryptoLines(
      "liability",
      "onchain_withdrawals_in_flight",
      chainOut.filter((r) => r.purpose === "withdrawal"),
      valuer,
      notRead,
    )),
    ...(await cryptoLines(
      "liability",
      "crypto_refunds_in_flight",
      chainOut.filter((r) => r.purpose === "refund"),
      valuer,
      notRead,
    )),
  );

  // Unapplied funds: money that arrived for no order (or too late, or the wrong amount), owed back to its payer.
  const [pix] = await ex.execute<{ centavos: string; n: number }>(sql`
    select coalesce(sum(r.value_centavos - coalesce((select sum(d.value_centavos) from pix_returns d where d.end_to_end_id = r.end_to_end_id and d.status = 'DEVOLVIDO'), 0)), 0)::text as centavos,
      count(*)::int as n
    from pix_receipts r where not r.applied`);
  if (pix.n > 0) lines.push({ side: "liability", kind: "unapplied_pix", centavos: int(pix.centavos), count: pix.n });
  const [provider] = await ex.execute<{ centavos: string; n: number; partial: number }>(sql`
    select coalesce(sum(o.value_centavos) filter (where r.unapplied_reason <> 'wrong_value'), 0)::text as centavos, count(*)::int as n,
      count(*) filter (where r.unapplied_reason = 'wrong_value')::int as partial
    from order_receipts r join orders o on o.id = r.order_id where not r.applied`);
  if (provider.n > 0)
    lines.push({
      side: "liability",
      kind: "unapplied_provider_payments",
      centavos: int(provider.centavos),
      count: provider.n,
      ...(provider.partial > 0
        ? { note: `${provider.partial} underpayment(s) not valued: their amount is kept only in their event` }
        : {}),
    });
  const unappliedChain = await ex.execute<CryptoRow>(sql`
    select t.network, coalesce(o.asset, p.asset) as asset, lower(t.token_address) as token, sum(t.unapplied_amount)::text as amount, count(*)::int as n
    from chain_transfers t
      left join onchain_orders o on t.owner_kind = 'onchain_order' and o.id = t.owner_id
      left join crypto_pix_payments p on t.owner_kind = 'crypto_pix' and p.id = t.owner_id
    where t.unapplied_amount > 0 and (t.refund_status is null or t.refund_status = 'FAILED')
      -- Accepted by the merchant: owed as balance now, which the ledger counts.
      and not exists (select 1 from unapplied_resolutions r where r.transfer_id = t.id and r.kind = 'accept')
    group by 1, 2, 3 order by 1, 2, 3`);
  lines.push(...(await cryptoLines("liability", "unapplied_chain_transfers", unappliedChain, valuer, notRead)));
  // Crypto-PIX payments paid in part or in full whose PIX is not decided yet: the payer's until then.
  const cryptoPixHeld = await ex.execute<CryptoRow>(sql`
    select t.network, p.asset, lower(t.token_address) as token, sum(t.applied_amount)::text as amount, count(distinct p.id)::int as n
    from chain_transfers t join crypto_pix_payments p on t.owner_kind = 'crypto_pix' and p.id = t.owner_id
    where p.status in ('PENDING', 'PARTIAL_ORDER') and p.pix_payout_id is null and t.applied_amount > 0
    group by 1, 2, 3 order by 1, 2, 3`);
  lines.push(...(await cryptoLines("liability", "crypto_pix_awaiting_payout", cryptoPixHeld, valuer, notRead)));
  return lines;
}

/** What the providers say we hold. */
async function assets(ex: Executor, valuer: Valuer, notRead: string[]): Promise<SolvencyLine[]> {
  const lines: SolvencyLine[] = [];
  const p = providers();

  await held(
    "psp",
    p.payout.name,
    p.payout.balance ? () => p.payout.balance!().then((c) => ({ currency: "BRL" as const, centavos: c })) : null,
  );
  // What the PSP blocks beyond its saldo: under the MED (the amounts our holds keep owed, med_holds) it
  // is ours to give back or release, so it is held; by court order it is not ours to use, so it is named.
  if (p.payout.blocked) {
    try {
      const blocked = await p.payout.blocked();
      if (blocked && blocked.medCentavos > 0)
        lines.push({
          side: "asset",
          kind: "psp_blocked_med",
          centavos: blocked.medCentavos,
          note: `${p.payout.name} bloqueios.med: blocked for open MED infractions`,
        });
      if (blocked && blocked.judicialCentavos > 0)
        notRead.push(
          `psp: ${formatBrl(blocked.judicialCentavos)} blocked by court order (${p.payout.name} bloqueios.judicial), not counted as held`,
        );
    } catch (err) {
      notRead.push(`psp blocked amounts: ${p.payout.name} did not answer (${messageOf(err)})`);
    }
  }
  await held("exchange_wallet", p.exchange.name, p.exchange.balance ? () => p.exchange.balance!() : null);
  await held("lightning", p.lightning.name, p.lightning.balance ? () => p.lightning.balance!() : null);

  async function held(kind: string, provider: string, read: (() => Promise<HeldBalance>) | null): Promise<void> {
    if (!read) {
      notRead.push(`${kind}: ${provider} has no balance call`);
      return;
    }
    try {
      const b = await read();
      if (b.currency === "BRL") lines.push({ side: "asset", kind, centavos: b.centavos, note: provider });
      else
        lines.push({
          side: "asset",
          kind,
          asset: b.currency,
          amount: b.amount,
          note: provider,
          ...(await valuer.value(b.currency, b.amount, "down")),
        });
    } catch (err) {
      notRead.push(`${kind}: ${provider} did not answer (${messageOf(err)})`);
    }
  }

  // The chain: per network and token, the hot wallet and every deposit address money was recorded at.
  const deposits = await ex.execute<{
    network: string;
    token: string;
    asset: string | null;
    decimals: number | null;
    addresses: string[];
  }>(sql`
    select t.network, lower(t.token_address) as token, min(coalesce(o.asset, p.asset)) as asset, min(coalesce(o.token_decimals, p.token_decimals)) as decimals,
      array_agg(distinct lower(t.to_address)) as addresses
    from chain_transfers t
      left join onchain_orders o on t.owner_kind = 'onchain_order' and o.id = t.owner_id
      left join crypto_pix_payments p on t.owner_kind = 'crypto_pix' and p.id = t.owner_id
    group by 1, 2`);
  for (const network of reportNetworks()) {
    const tokens = new Map<
      string,
      { address: `0x${string}`; decimals: number; asset: Asset | null; deposits: `0x${string}`[] }
    >();
    for (const asset of ASSETS) {
      const info = tokenInfo(network, asset);
      if (info) tokens.set(info.address.toLowerCase(), { ...info, asset, deposits: [] });
    }
    for (const d of deposits.filter((r) => r.network === network)) {
      const known = tokens.get(d.token);
      if (known) known.deposits = d.addresses as `0x${string}`[];
      else if (d.decimals !== null)
        tokens.set(d.token, {
          address: d.token as `0x${string}`,
          decimals: d.decimals,
          asset: (d.asset as Asset | null) ?? null,
          deposits: d.addresses as `0x${string}`[],
        });
    }
    let hotWallet: `0x${string}`;
    try {
      hotWallet = p.chain.hotWalletAddress(network);
    } catch (err) {
      notRead.push(`${network}: no hot wallet (${messageOf(err)})`);
      continue;
    }
    for (const token of tokens.values()) {
      const name = token.asset ?? token.address;
      let balances: bigint[];
      try {
        if (!p.chain.tokenBalances) throw new Error(`${p.chain.name} cannot read token balances`);
        // Counted once: deposit addresses handed out before allocateDepositAddress skipped the hot wallet's
        // (the sandbox's index 1) may still be the hot wallet itself.
        token.deposits = token.deposits.filter((d) => d.toLowerCase() !== hotWallet.toLowerCase());
        // At the confirmed head, where the books stand: an outgoing transfer stays a liability until confirmed.
        balances = await p.chain.tokenBalances(network, token, [hotWallet, ...token.deposits], { confirmed: true });
      } catch (err) {
        notRead.push(`chain ${network} ${name}: not read (${messageOf(err)})`);
        continue;
      }
      const [hot, ...rest] = balances;
      const depositUnits = rest.reduce((a, b) => a + b, 0n);
      for (const [kind, units, count] of [
        ["hot_wallet", hot, undefined],
        ["deposit_addresses", depositUnits, token.deposits.length],
      ] as const) {
        if (units === 0n) continue;
        const amount = fromBaseUnits(units, token.decimals);
        if (!token.asset) {
          notRead.push(
            `chain ${network}: ${amount} of token ${token.address} (${kind}) not in the token table, not valued`,
          );
          continue;
        }
        try {
          lines.push({
            side: "asset",
            kind,
            network,
            asset: token.asset,
            amount,
            ...(count !== undefined ? { count } : {}),
            ...(await valuer.value(token.asset, amount, "down")),
          });
        } catch (err) {
          notRead.push(`chain ${network} ${token.asset}: ${amount} not valued (${messageOf(err)})`);
        }
      }
    }
  }
  return lines;
}

function messageOf(err: unknown): string {
  // A failed query's message is its SQL; the database's reason is in its cause.
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : null;
  return (cause ?? (err instanceof Error ? err.message : String(err))).slice(0, 300);
}

/** The tolerance for a total of liabilities: the larger of the fixed amount and the share. */
export function toleranceFor(liabilitiesCentavos: number): number {
  const e = env();
  const share = new Decimal(liabilitiesCentavos)
    .times(e.SOLVENCY_TOLERANCE_PERCENT)
    .div(100)
    .toDecimalPlaces(0, Decimal.ROUND_CEIL)
    .toNumber();
  return Math.max(e.SOLVENCY_TOLERANCE_CENTAVOS, share);
}

/** Reads everything and sums it, storing nothing. */
export async function computeSolvency(ex: Executor = db()): Promise<SolvencyReport> {
  const valuer = new Valuer();
  const notRead: string[] = [];
  const takenAt = new Date();
  const lines = [...(await liabilities(ex, valuer, notRead)), ...(await assets(ex, valuer, notRead))];
  const sum = (side: SolvencyLine["side"]) => lines.filter((l) => l.side === side).reduce((a, l) => a + l.centavos, 0);
  const liabilitiesCentavos = sum("liability");
  const assetsCentavos = sum("asset");
  const shortfallCentavos = Math.max(0, liabilitiesCentavos - assetsCentavos);
  const toleranceCentavos = toleranceFor(liabilitiesCentavos);
  return {
    id: null,
    takenAt,
    liabilitiesCentavos,
    assetsCentavos,
    receivablesCentavos: sum("receivable"),
    shortfallCentavos,
    surplusCentavos: Math.max(0, assetsCentavos - liabilitiesCentavos),
    toleranceCentavos,
    short: shortfallCentavos > toleranceCentavos,
    alerted: false,
    lines,
    notRead,
  };
}

/**
 * Takes a report and stores it. Going short is a crossing: only the report that finds the one before
 * it not short mails the operator, decided under one advisory lock, so two instances (or the job and
 * an operator's CLI) mail once between them. Back within the tolerance, the next crossing mails again.
 */
export async function takeSolvencyReport(): Promise<SolvencyReport> {
  const report = await computeSolvency();
  const stored = await db().transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('solvency-report'))`);
    const [previous] = await tx
      .select({ short: solvencyReports.short })
      .from(solvencyReports)
      .orderBy(desc(solvencyReports.id))
      .limit(1);
    const alerted = report.short && !previous?.short;
    const [row] = await tx
      .insert(solvencyReports)
      .values({
        liabilitiesCentavos: report.liabilitiesCentavos,
        assetsCentavos: report.assetsCentavos,
        receivablesCentavos: report.receivablesCentavos,
        shortfallCentavos: report.shortfallCentavos,
        toleranceCentavos: report.toleranceCentavos,
        short: report.short,
        alerted,
        lines: report.lines,
        notRead: report.notRead,
        takenAt: report.takenAt,
      })
      .returning({ id: solvencyReports.id });
    return { ...report, id: row.id, alerted };
  });
  if (stored.short) log.error("solvency: assets short of liabilities beyond the tolerance", summaryOf(stored));
  else if (stored.notRead.length)
    log.warn("solvency: some sources were not read (counted as zero)", { notRead: stored.notRead });
  if (stored.alerted) await announce(stored);
  return stored;
}

/** The job's pass: a report when the last one is older than SOLVENCY_REPORT_SECONDS, else nothing. */
export async function solvencyTick(): Promise<SolvencyReport | null> {
  const last = await latestSolvencyReport();
  // A minute's slack: the schedule ticks every minute, so an hourly report would otherwise slip a minute an hour.
  if (last && Date.now() - last.takenAt.getTime() < (env().SOLVENCY_REPORT_SECONDS - 60) * 1000) return null;
  return takeSolvencyReport();
}

function summaryOf(r: SolvencyReport) {
  return {
    reportId: r.id,
    liabilitiesCentavos: r.liabilitiesCentavos,
    assetsCentavos: r.assetsCentavos,
    shortfallCentavos: r.shortfallCentavos,
    toleranceCentavos: r.toleranceCentavos,
    notRead: r.notRead,
  };
}

async function announce(r: SolvencyReport): Promise<void> {
  const to = env().OPERATOR_ALERT_EMAIL;
  if (!to) return;
  const line = (l: SolvencyLine) =>
    `  ${l.kind}${l.network ? ` ${l.network}` : ""}${l.asset ? ` ${l.asset}` : ""}: ${formatBrl(l.centavos)}${l.amount ? ` (${l.amount} at ${l.rate})` : ""}`;
  await sendMail({
    to,
    subject: `[payments] solvency: assets short of liabilities by ${formatBrl(r.shortfallCentavos)}`,
    text:
      `Solvency report ${r.id} (${r.takenAt.toISOString()}): we owe ${formatBrl(r.liabilitiesCentavos)} and hold ${formatBrl(r.assetsCentavos)}, ` +
      `short by ${formatBrl(r.shortfallCentavos)} (tolerance ${formatBrl(r.toleranceCentavos)}).\n\n` +
      `Owed:\n${r.lines
        .filter((l) => l.side === "liability")
        .map(line)
        .join("\n")}\n\n` +
      `Held:\n${r.lines
        .filter((l) => l.side === "asset")
        .map(line)
        .join("\n")}\n` +
      (r.receivablesCentavos > 0
        ? `\nOwed to us (negative merchant balances, not counted): ${formatBrl(r.receivablesCentavos)}\n`
        : "") +
      (r.notRead.length ? `\nNot read (counted as zero):\n${r.notRead.map((n) => `  ${n}`).join("\n")}\n` : "") +
      `\nSee it with: npm run cli -- treasury solvency\n` +
      `This mail is sent once per crossing; the next one comes only after a report within the tolerance.`,
  }).catch((err: unknown) => log.warn("operator alert mail not sent", { what: "solvency", err }));
}

/** The latest stored report (the gauges, the job's schedule), or null before the first. */
export async function latestSolvencyReport(ex: Executor = db()): Promise<SolvencyReport | null> {
  const [row] = await ex.select().from(solvencyReports).orderBy(desc(solvencyReports.id)).limit(1);
  if (!row) return null;
  return {
    id: row.id,
    takenAt: row.takenAt,
    liabilitiesCentavos: row.liabilitiesCentavos,
    assetsCentavos: row.assetsCentavos,
    receivablesCentavos: row.receivablesCentavos,
    shortfallCentavos: row.shortfallCentavos,
    surplusCentavos: Math.max(0, row.assetsCentavos - row.liabilitiesCentavos),
    toleranceCentavos: row.toleranceCentavos,
    short: row.short,
    alerted: row.alerted,
    lines: row.lines as SolvencyLine[],
    notRead: row.notRead,
  };
}
