import { sql } from "drizzle-orm";
import { db, type Executor } from "@/db";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { sendMail } from "@/lib/mail/mailer";

// Money that has left (or may have left) and that the service cannot settle by itself: a payout or
// refund whose outcome stays unknown long after it was sent, one the provider keeps refusing to
// take again, a hold invoice that will not settle after its PIX was made. Such a record gets an
// `attention` text (why) and `attention_at` (since when), cleared when it is decided. Raising it
// logs an error, mails OPERATOR_ALERT_EMAIL once per record, and the scrape-time gauge
// payments_money_out_attention counts what is waiting (docs/operations.md). The same goes for
// money that left without our asking and that no merchant could be debited for (a devolução of a PIX
// that credited nobody), for every disagreement reconciliation finds with a provider's records, and for
// a reconciliation run stopped by a provider answer it cannot read (recon_run).

/** The tables whose rows can need an operator, by the name the metric and the CLI use. */
export const ATTENTION_KINDS = {
  pix_payout: "pix_payouts",
  refund: "order_refunds",
  hold_invoice: "crypto_pix_invoices",
  chain_tx: "chain_txs",
  pix_return: "pix_returns",
  recon_mismatch: "recon_mismatches",
  recon_run: "recon_runs",
} as const;
export type AttentionKind = keyof typeof ATTENTION_KINDS;

const KEY_COLUMN: Record<AttentionKind, string> = {
  pix_payout: "id",
  refund: "id",
  hold_invoice: "payment_id",
  chain_tx: "id",
  pix_return: "id",
  recon_mismatch: "id",
  recon_run: "id",
};

/**
 * Marks one record as needing an operator, and tells them the first time (mail and error log). Kept
 * while it stays true; `clearAttention` (or the record's decision) removes it. Never throws for the
 * mail: the record's state is what matters, and it is already written.
 */
export async function raiseAttention(kind: AttentionKind, id: string, why: string, ex: Executor = db()): Promise<void> {
  const table = sql.identifier(ATTENTION_KINDS[kind]);
  const key = sql.identifier(KEY_COLUMN[kind]);
  const text = why.slice(0, 500);
  const since = kind === "chain_tx" ? sql`` : sql`, attention_at = coalesce(attention_at, now())`;
  // Only a record that had no attention yet is announced; a new reason for one already listed is
  // written without another mail.
  const rows = await ex.execute<{ was: string | null }>(sql`
    update ${table} t set attention = ${text}${since}
    from (select ${key} as k, attention as was from ${table} where ${key} = ${id} for update) old
    where t.${key} = old.k and t.attention is distinct from ${text}
    returning old.was`);
  if (rows.length === 0) return;
  if (rows[0].was !== null) return;
  log.error("money out needs an operator", { kind, id, why: text });
  const to = env().OPERATOR_ALERT_EMAIL;
  if (to) {
    await sendMail({
      to,
      subject: `[payments] ${kind.replace("_", " ")} ${id} needs an operator`,
      text: `${text}\n\nSee it with: npm run cli -- ${kind === "recon_mismatch" ? "recon mismatches" : "attention"}\nIt stays listed until it is decided.`,
    }).catch((err: unknown) => log.warn("operator alert mail not sent", { kind, id, err }));
  }
}

/** Removes a record's attention (it was decided, or the condition went away). */
export async function clearAttention(kind: AttentionKind, id: string, ex: Executor = db()): Promise<void> {
  const table = sql.identifier(ATTENTION_KINDS[kind]);
  const key = sql.identifier(KEY_COLUMN[kind]);
  const since = kind === "chain_tx" ? sql`` : sql`, attention_at = null`;
  await ex.execute(sql`update ${table} set attention = null${since} where ${key} = ${id} and attention is not null`);
}

export type AttentionItem = { kind: AttentionKind; id: string; attention: string; since: Date | null };

/** Everything waiting for an operator, oldest first (the CLI's `attention`). */
export async function attentionList(ex: Executor = db(), limit = 200): Promise<AttentionItem[]> {
  const rows = await ex.execute<{
    kind: AttentionKind;
    id: string;
    attention: string;
    since: Date | string | null;
  }>(sql`
    select * from (
      select 'pix_payout' as kind, id::text, attention, attention_at as since from pix_payouts where attention is not null
      union all select 'refund', id::text, attention, attention_at from order_refunds where attention is not null
      union all select 'hold_invoice', payment_id::text, attention, attention_at from crypto_pix_invoices where attention is not null
      union all select 'chain_tx', id::text, attention, null from chain_txs where attention is not null and status = 'pending'
      union all select 'pix_return', id::text, attention, attention_at from pix_returns where attention is not null
      union all select 'recon_mismatch', id::text, attention, attention_at from recon_mismatches where attention is not null
      union all select 'recon_run', id::text, attention, attention_at from recon_runs where attention is not null
    ) a order by since nulls last limit ${limit}`);
  return rows.map((r) => ({ ...r, since: r.since === null ? null : new Date(r.since) }));
}

/** How many records of each kind wait for an operator (the metric). */
export async function attentionCounts(ex: Executor = db()): Promise<Record<AttentionKind, number>> {
  const [row] = await ex.execute<Record<AttentionKind, number>>(sql`
    select (select count(*)::int from pix_payouts where attention is not null) as pix_payout,
           (select count(*)::int from order_refunds where attention is not null) as refund,
           (select count(*)::int from crypto_pix_invoices where attention is not null) as hold_invoice,
           (select count(*)::int from chain_txs where attention is not null and status = 'pending') as chain_tx,
           (select count(*)::int from pix_returns where attention is not null) as pix_return,
           (select count(*)::int from recon_mismatches where attention is not null) as recon_mismatch,
           (select count(*)::int from recon_runs where attention is not null) as recon_run`);
  return row;
}
