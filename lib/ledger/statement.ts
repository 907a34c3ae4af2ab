import { and, asc, desc, eq, gt, inArray, lt, sql, type SQL } from "drizzle-orm";
import type { Executor } from "@/db";
import { ledgerEntries, LEDGER_KINDS } from "@/db/schema";
import { saoPauloDayRange } from "@/lib/day-range";
import { shownBalance } from "./ledger";

// The merchant's statement: every ledger entry with the balance right after it, filtered by São Paulo
// calendar days and kinds. Pages and exports walk the ledger by id, one bounded page at a time.
//
// The balance after an entry is computed when read: the running sum of the merchant's entries (every
// kind) in id order. It is not stored, because storing it would make every credit wait its turn on the
// merchant's row, which credits never do (lib/ledger/ledger.ts). The sum in id order is the balance
// after each entry in the order entries were numbered; it is never negative, because a debit (which
// holds the merchant row) counts every credit numbered before it, committed before it or not.

export type LedgerKind = (typeof LEDGER_KINDS)[number];

export type StatementFilter = {
  merchantId: string;
  /** São Paulo calendar days, inclusive (YYYY-MM-DD). */
  from?: string;
  to?: string;
  kinds?: readonly LedgerKind[];
};

export type StatementEntry = {
  id: number;
  kind: LedgerKind;
  amountCentavos: number;
  balanceAfterCentavos: number;
  refType: string;
  refId: string;
  description: string | null;
  createdAt: Date;
};

const columns = {
  id: ledgerEntries.id,
  kind: ledgerEntries.kind,
  amountCentavos: ledgerEntries.amountCentavos,
  refType: ledgerEntries.refType,
  refId: ledgerEntries.refId,
  description: ledgerEntries.description,
  createdAt: ledgerEntries.createdAt,
};

function where(f: StatementFilter): SQL {
  return and(
    eq(ledgerEntries.merchantId, f.merchantId),
    saoPauloDayRange(ledgerEntries.createdAt, f.from, f.to),
    f.kinds && f.kinds.length > 0 ? inArray(ledgerEntries.kind, [...f.kinds]) : undefined,
  )!;
}

type Row = Omit<StatementEntry, "balanceAfterCentavos">;

/**
 * The balance after each of `rows`, given `base`, the balance after entry `afterId` (0: before any):
 * one window over the merchant's entries after `afterId` up to the newest of `rows`, whatever their kind.
 * Returns the rows with their balances and the balance after the newest of them.
 */
async function withBalances(
  ex: Executor,
  merchantId: string,
  rows: Row[],
  afterId: number,
  base: number,
): Promise<{ entries: StatementEntry[]; last: { id: number; balance: number } }> {
  if (rows.length === 0) return { entries: [], last: { id: afterId, balance: base } };
  const maxId = Math.max(...rows.map((r) => r.id));
  const running = await ex.execute<{ id: string | number; running: string | number }>(sql`
    select id, running from (
      select id, sum(amount_centavos) over (order by id) as running
      from ledger_entries where merchant_id = ${merchantId} and id > ${afterId} and id <= ${maxId}
    ) t where id in ${sql.raw(`(${rows.map((r) => Number(r.id)).join(",")})`)}`);
  const byId = new Map(running.map((r) => [Number(r.id), base + Number(r.running)]));
  const entries = rows.map((r) => ({ ...r, balanceAfterCentavos: byId.get(r.id)! }));
  return { entries, last: { id: maxId, balance: byId.get(maxId)! } };
}

/**
 * The balance after each of `rows`, counted back from the balance now: the balance after an entry is
 * today's balance less every entry numbered after it. The newest pages, which people read, then cost
 * the entries since their oldest row, not the merchant's whole history (at ten million orders a
 * merchant's first page summed ten thousand entries). The balance and the entries are read by one
 * statement, so in one snapshot, where the balance shown equals the ledger's sum (lib/ledger/ledger.ts).
 */
async function withBalancesFromNow(ex: Executor, merchantId: string, rows: Row[]): Promise<StatementEntry[]> {
  if (rows.length === 0) return [];
  const minId = Math.min(...rows.map((r) => r.id));
  const after = await ex.execute<{ id: string | number; balance: string | number }>(sql`
    select id, (select ${shownBalance()} from merchants where merchants.id = ${merchantId})
               - coalesce(sum(amount_centavos) over (order by id desc rows between unbounded preceding and 1 preceding), 0) as balance
    from ledger_entries where merchant_id = ${merchantId} and id >= ${minId}
    order by id desc`);
  const byId = new Map(after.map((r) => [Number(r.id), Number(r.balance)]));
  return rows.map((r) => ({ ...r, balanceAfterCentavos: byId.get(r.id)! }));
}

/** Newest first, `limit` entries older than the entry `before` (an id); `nextBefore` is null on the last page. */
export async function statementPage(
  ex: Executor,
  f: StatementFilter,
  page: { before?: number; limit: number },
): Promise<{ entries: StatementEntry[]; nextBefore: number | null }> {
  const rows = await ex
    .select(columns)
    .from(ledgerEntries)
    .where(and(where(f), page.before ? lt(ledgerEntries.id, page.before) : undefined))
    .orderBy(desc(ledgerEntries.id))
    .limit(page.limit + 1);
  const page_ = rows.slice(0, page.limit);
  const entries = await withBalancesFromNow(ex, f.merchantId, page_);
  return { entries, nextBefore: rows.length > page.limit ? page_[page_.length - 1].id : null };
}

/**
 * Every entry of the filter, oldest first, in pages of `pageSize`: each page is one keyset query, so
 * an export of any length holds one page in memory and no connection between pages.
 */
export async function* statementPages(
  ex: Executor,
  f: StatementFilter,
  pageSize = 1000,
): AsyncGenerator<StatementEntry[]> {
  let after = 0;
  // The running balance carried from page to page: each window covers only the entries since the last one.
  let last = { id: 0, balance: 0 };
  for (;;) {
    const rows = await ex
      .select(columns)
      .from(ledgerEntries)
      .where(and(where(f), gt(ledgerEntries.id, after)))
      .orderBy(asc(ledgerEntries.id))
      .limit(pageSize);
    if (rows.length > 0) {
      const counted = await withBalances(ex, f.merchantId, rows, last.id, last.balance);
      last = counted.last;
      yield counted.entries;
    }
    if (rows.length < pageSize) return;
    after = rows[rows.length - 1].id;
  }
}
