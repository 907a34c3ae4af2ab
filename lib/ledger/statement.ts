import { and, asc, desc, eq, gt, inArray, lt, type SQL } from "drizzle-orm";
import type { Executor } from "@/db";
import { ledgerEntries, LEDGER_KINDS } from "@/db/schema";
import { saoPauloDayRange } from "@/lib/day-range";

// The merchant's statement: every ledger entry with the balance right after it (written with the
// entry, see postLedgerEntry), filtered by São Paulo calendar days and kinds. Pages and exports walk
// the ledger by id, the order entries applied in, one bounded page at a time.

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
  balanceAfterCentavos: ledgerEntries.balanceAfterCentavos,
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
  const entries = rows.slice(0, page.limit);
  return { entries, nextBefore: rows.length > page.limit ? entries[entries.length - 1].id : null };
}

/**
 * Every entry of the filter, oldest first, in pages of `pageSize`: each page is one keyset query, so
 * an export of any length holds one page in memory and no connection between pages.
 */
export async function* statementPages(ex: Executor, f: StatementFilter, pageSize = 1000): AsyncGenerator<StatementEntry[]> {
  let after = 0;
  for (;;) {
    const rows = await ex
      .select(columns)
      .from(ledgerEntries)
      .where(and(where(f), gt(ledgerEntries.id, after)))
      .orderBy(asc(ledgerEntries.id))
      .limit(pageSize);
    if (rows.length > 0) yield rows;
    if (rows.length < pageSize) return;
    after = rows[rows.length - 1].id;
  }
}
