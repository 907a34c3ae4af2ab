import "server-only";
import { z } from "zod";
import { readDb } from "@/db/replica";
import { and, asc, eq, inArray, or } from "drizzle-orm";
import type { Executor } from "@/db";
import { orderSplits, recipients, type Withdrawal } from "@/db/schema";
import { CSV_FORMATS, csvStream, type CsvColumn, type CsvFormat } from "@/lib/csv";
import { networkName } from "@/lib/chain/network-names";
import { displayStatus } from "@/lib/dashboard/status";
import { isCalendarDay } from "@/lib/day-range";
import { formatMoney, isMessageKey, type Locale, type Translator } from "@/lib/i18n";
import { orderTitleText } from "@/lib/dashboard/order-title";
import { describeFailure } from "@/lib/i18n/failure-reasons";
import { statementPages, type StatementEntry } from "@/lib/ledger/statement";
import { LEDGER_KINDS, SUBSCRIPTION_STATUSES } from "@/db/schema";
import { orderExportPages, type OrderExportRow } from "@/lib/orders/export";
import { maskPixKey } from "@/lib/pix/keys";
import { statementSources, type StatementLine } from "./statement";
import { withdrawalPages } from "@/lib/withdrawals/export";
import { subscriptionPages, type SubscriptionExportRow } from "@/lib/subscriptions/export";
import { formatTaxId } from "@/lib/pix/keys";

// The dashboard's CSV downloads (/dashboard/api/exports/{statement,orders,withdrawals}.csv): one
// module per source streams keyset pages (lib/ledger/statement.ts, lib/orders/export.ts,
// lib/withdrawals/export.ts) and lib/csv.ts writes them, so a year of a busy shop downloads in
// constant memory. Headers and descriptions come from the catalogs in the user's language. In the
// csv format codes (kinds, statuses, failure reasons) stay the API's, so a program can match a file
// against API data; the excel format is for a person, so it writes them in the user's words too, and
// a failure reason as the sentence the dashboard shows (lib/i18n/failure-reasons.ts) with the
// provider's text in a column of its own. Exports read from the replica when one is close enough
// (db/replica.ts), chosen once per download.

export const EXPORT_NAMES = ["statement", "orders", "withdrawals", "subscriptions"] as const;
export type ExportName = (typeof EXPORT_NAMES)[number];

const day = z.string().refine(isCalendarDay, { message: "export.invalidDate" });

export const exportQuery = z
  .object({
    format: z.enum(CSV_FORMATS, { message: "export.invalidFormat" }).default("csv"),
    from: day.optional(),
    to: day.optional(),
    kind: z.enum(LEDGER_KINDS, { message: "export.invalidKind" }).optional(),
    status: z.enum(SUBSCRIPTION_STATUSES, { message: "export.invalidStatus" }).optional(),
  })
  .refine((q) => !q.from || !q.to || q.from <= q.to, { message: "export.invalidRange" });
export type ExportQuery = z.output<typeof exportQuery>;

const text = (s: string | null | undefined) => ({ text: s ?? null });

/** The catalog's words for a code when the key exists; the code itself otherwise (a value added later). */
function label(t: Translator, key: string, code: string): string {
  return isMessageKey(key) ? t(key) : code;
}

/** How a code is written: as the API writes it in csv, in the user's words in excel. */
function codes(t: Translator, format: CsvFormat) {
  const code = (value: string | null, words: (v: string) => string) =>
    text(value === null ? null : format === "excel" ? words(value) : value);
  return {
    code,
    ledgerKind: (v: string) => code(v, (k) => label(t, `ledgerKind.${k}`, k)),
    refType: (v: string) => code(v, (k) => label(t, `export.refType.${k}`, k)),
    orderKind: (v: string) => code(v, (k) => label(t, `kind.${k}`, k)),
    orderStatus: (kind: string, v: string) => code(v, (s) => label(t, `status.${displayStatus(kind, s)}`, s)),
    status: (v: string) => code(v, (s) => label(t, `status.${s}`, s)),
    withdrawalKind: (v: string) =>
      code(v, (k) => (k === "onchain" ? t("kind.onchain_withdrawal") : label(t, `kind.${k}`, k))),
    network: (v: string | null) => code(v, networkName),
    failure: (v: string | null) => code(v, (r) => describeFailure(t, r).text),
  };
}

/**
 * An object's metadata in one cell: JSON in csv (a program parses it back), "key: value; …" in excel,
 * where a person reads it. Empty when there is none.
 */
function metadataCell(m: Record<string, string>, format: CsvFormat) {
  const entries = Object.entries(m);
  if (entries.length === 0) return text(null);
  return text(format === "excel" ? entries.map(([k, v]) => `${k}: ${v}`).join("; ") : JSON.stringify(m));
}

/** A statement entry with where it came from (the order, a refund's order), as the statement page names it. */
type SourcedEntry = StatementEntry & { source: StatementLine["source"] };

async function* withSources(
  merchantId: string,
  pages: AsyncIterable<StatementEntry[]>,
): AsyncGenerator<SourcedEntry[]> {
  for await (const page of pages) {
    const sources = await statementSources(merchantId, page);
    yield page.map((e, i) => ({ ...e, source: sources[i] }));
  }
}

/** "Pedido sale-1001 (Maria Souza)", "PIX de R$ 25,90 · a1b2c3d4": the order as the dashboard names it. */
function orderName(t: Translator, locale: Locale, source: StatementLine["source"]): string | null {
  if (source.type !== "order" || !source.title) return null;
  const title = orderTitleText(source.title, t, (c) => formatMoney(c, locale));
  return source.customer ? `${title} (${source.customer})` : title;
}

const SPLIT_CREDIT_KINDS = new Set<string>(["order_credit", "deposit_credit", "partial_deposit_credit"]);

function statementColumns(t: Translator, format: CsvFormat, locale: Locale): CsvColumn<SourcedEntry>[] {
  const c = codes(t, format);
  return [
    { header: t("export.col.date"), value: (e) => ({ at: e.createdAt }) },
    { header: t("export.col.type"), value: (e) => c.ledgerKind(e.kind) },
    // What happened and to what: "Pagamento recebido · Pedido sale-1001 (Maria Souza)".
    {
      header: t("export.col.description"),
      value: (e) => {
        const name = orderName(t, locale, e.source);
        const what = name ? `${t(`ledgerKind.${e.kind}`)} · ${name}` : t(`ledgerKind.${e.kind}`);
        // A split sale's credit is the merchant's part only, as the statement page says.
        const split = e.source.type === "order" && e.source.split && SPLIT_CREDIT_KINDS.has(e.kind);
        return text(split ? `${what} · ${t("statement.splitPart")}` : what);
      },
    },
    { header: t("export.col.amount"), value: (e) => ({ centavos: e.amountCentavos }) },
    { header: t("export.col.balance"), value: (e) => ({ centavos: e.balanceAfterCentavos }) },
    { header: t("export.col.referenceType"), value: (e) => c.refType(e.refType) },
    { header: t("export.col.reference"), value: (e) => text(e.refId) },
    { header: t("export.col.entryId"), value: (e) => text(String(e.id)) },
    // The order the entry belongs to; a refund's row names the order it refunded, not the refund.
    { header: t("export.col.order"), value: (e) => text(orderName(t, locale, e.source)) },
    { header: t("export.col.orderUuid"), value: (e) => text(e.source.type === "order" ? e.source.id : null) },
  ];
}

type ExportPart = { name: string; centavos: number; status: string };
type OrderWithSplits = OrderExportRow & { splits?: ExportPart[] };

/** Each page's orders with their split's parts in the order requested, from one query per page; [] for an order without one. */
async function* withSplits(
  ex: Executor,
  merchantId: string,
  pages: AsyncGenerator<OrderExportRow[]>,
): AsyncGenerator<OrderWithSplits[]> {
  for await (const page of pages) {
    const ids = page.map((r) => r.id);
    const rows =
      ids.length === 0
        ? []
        : await ex
            .select({
              orderId: orderSplits.orderId,
              onchainOrderId: orderSplits.onchainOrderId,
              name: recipients.name,
              value: orderSplits.valueCentavos,
              status: orderSplits.status,
            })
            .from(orderSplits)
            .innerJoin(recipients, eq(recipients.id, orderSplits.recipientId))
            .where(
              and(
                eq(orderSplits.merchantId, merchantId),
                or(inArray(orderSplits.orderId, ids), inArray(orderSplits.onchainOrderId, ids)),
              ),
            )
            .orderBy(asc(orderSplits.position));
    const byOrder = new Map<string, ExportPart[]>();
    for (const p of rows) {
      const id = (p.orderId ?? p.onchainOrderId)!;
      byOrder.set(id, [...(byOrder.get(id) ?? []), { name: p.name, centavos: p.value, status: p.status }]);
    }
    yield page.map((r) => ({ ...r, splits: byOrder.get(r.id) ?? [] }));
  }
}

/**
 * The split in one cell: "name: 30.00 CREDITED; …" in csv (BRL with a point, the part's state as the
 * API names it), "name: R$ 30,00 Creditado; …" in excel, where a person reads it; empty without one.
 */
function splitsCell(parts: ExportPart[], t: Translator, format: CsvFormat, locale: Locale) {
  if (parts.length === 0) return text(null);
  const part = (p: ExportPart) =>
    format === "excel"
      ? `${p.name}: ${formatMoney(p.centavos, locale)} ${label(t, `order.split.${p.status}`, p.status)}`
      : `${p.name}: ${(p.centavos / 100).toFixed(2)} ${p.status}`;
  return text(parts.map(part).join("; "));
}

/** What the recipients' parts come to (a cancelled part's none): the merchant's own is the rest of what was paid. */
const partsTotal = (parts: ExportPart[]) =>
  parts.length === 0 ? null : parts.filter((p) => p.status !== "CANCELLED").reduce((a, p) => a + p.centavos, 0);

function orderColumns(t: Translator, format: CsvFormat, locale: Locale): CsvColumn<OrderWithSplits>[] {
  const c = codes(t, format);
  const ref = (r: OrderExportRow, ...keys: string[]) => text(keys.map((k) => r.reference[k]).find(Boolean));
  return [
    { header: t("export.col.date"), value: (r) => ({ at: r.createdAt }) },
    { header: t("export.col.paidAt"), value: (r) => ({ at: r.paidAt }) },
    { header: t("export.col.id"), value: (r) => text(r.id) },
    { header: t("export.col.type"), value: (r) => c.orderKind(r.type) },
    { header: t("export.col.status"), value: (r) => c.orderStatus(r.type, r.status) },
    { header: t("export.col.valueBrl"), value: (r) => ({ centavos: r.valueCentavos }) },
    { header: t("export.col.cryptoAmount"), value: (r) => ({ decimal: r.cryptoAmount }) },
    { header: t("export.col.cryptoReceived"), value: (r) => ({ decimal: r.receivedAmount }) },
    { header: t("export.col.asset"), value: (r) => text(r.asset) },
    { header: t("export.col.network"), value: (r) => c.network(r.network) },
    { header: t("export.col.rate"), value: (r) => ({ decimal: r.rate }) },
    { header: t("export.col.rateSource"), value: (r) => text(r.rateSource) },
    { header: t("export.col.paymentLinkId"), value: (r) => text(r.paymentLinkId) },
    { header: t("export.col.orderId"), value: (r) => ref(r, "orderId", "orderRequest") },
    { header: t("export.col.name"), value: (r) => ref(r, "name", "recipientName") },
    { header: t("export.col.document"), value: (r) => ref(r, "cpf", "cnpj") },
    { header: t("export.col.email"), value: (r) => ref(r, "email") },
    { header: t("export.col.payerId"), value: (r) => ref(r, "payerId", "subMerchantId", "merchant") },
    { header: t("export.col.pixKey"), value: (r) => ref(r, "pixKey") },
    { header: t("export.col.address"), value: (r) => text(r.address) },
    { header: t("export.col.txHashes"), value: (r) => text(r.txHashes) },
    { header: t("export.col.metadata"), value: (r) => metadataCell(r.metadata, format) },
    { header: t("export.col.splits"), value: (r) => splitsCell(r.splits ?? [], t, format, locale) },
    { header: t("export.col.splitsTotal"), value: (r) => ({ centavos: partsTotal(r.splits ?? []) }) },
  ];
}

function withdrawalColumns(t: Translator, format: CsvFormat): CsvColumn<Withdrawal>[] {
  const c = codes(t, format);
  return [
    { header: t("export.col.date"), value: (w) => ({ at: w.createdAt }) },
    { header: t("export.col.completedAt"), value: (w) => ({ at: w.completedAt }) },
    { header: t("export.col.id"), value: (w) => text(w.id) },
    { header: t("export.col.type"), value: (w) => c.withdrawalKind(w.kind) },
    { header: t("export.col.status"), value: (w) => c.status(w.status) },
    { header: t("export.col.valueBrl"), value: (w) => ({ centavos: w.valueCentavos }) },
    { header: t("export.col.serviceFee"), value: (w) => ({ centavos: w.serviceFeeCentavos }) },
    { header: t("export.col.networkFee"), value: (w) => ({ centavos: w.networkFeeCentavos }) },
    { header: t("export.col.debit"), value: (w) => ({ centavos: w.debitCentavos }) },
    { header: t("export.col.network"), value: (w) => c.network(w.network) },
    { header: t("export.col.asset"), value: (w) => text(w.token) },
    { header: t("export.col.cryptoAmount"), value: (w) => ({ decimal: w.tokenAmount }) },
    { header: t("export.col.rate"), value: (w) => ({ decimal: w.rate }) },
    // The key is masked as on the withdrawals page: enough to recognise it, not to reuse it.
    {
      header: t("export.col.destination"),
      value: (w) => text(w.kind === "onchain" ? w.toAddress : w.pixKey ? maskPixKey(w.pixKey) : null),
    },
    { header: t("export.col.txHash"), value: (w) => text(w.txHash) },
    { header: t("export.col.failureReason"), value: (w) => c.failure(w.failureReason) },
    // A person reads the sentence; the provider's own text stays beside it for whoever asks them.
    ...(format === "excel"
      ? [{ header: t("export.col.providerAnswer"), value: (w: Withdrawal) => text(w.failureReason) }]
      : []),
    { header: t("export.col.metadata"), value: (w) => metadataCell(w.metadata, format) },
  ];
}

function subscriptionColumns(t: Translator, format: CsvFormat): CsvColumn<SubscriptionExportRow>[] {
  const c = codes(t, format);
  const day = (d: string | null) => text(d);
  return [
    { header: t("export.col.date"), value: (s) => ({ at: s.createdAt }) },
    { header: t("export.col.id"), value: (s) => text(s.id) },
    { header: t("export.col.status"), value: (s) => c.code(s.status, (v) => label(t, `sub.status.${v}`, v)) },
    { header: t("export.col.name"), value: (s) => text(s.payerName) },
    { header: t("export.col.document"), value: (s) => text(formatTaxId(s.payerCpf ?? s.payerCnpj ?? "")) },
    { header: t("export.col.description"), value: (s) => text(s.description) },
    { header: t("export.col.reference"), value: (s) => text(s.reference) },
    {
      header: t("export.col.amountType"),
      value: (s) => c.code(s.fixedCentavos !== null ? "FIXED" : "VARIABLE", (v) => label(t, `sub.amount.${v}`, v)),
    },
    { header: t("export.col.valueBrl"), value: (s) => ({ centavos: s.chargeCentavos }) },
    { header: t("export.col.minimum"), value: (s) => ({ centavos: s.minimumCentavos }) },
    {
      header: t("export.col.periodicity"),
      value: (s) => c.code(s.periodicity, (v) => label(t, `sub.periodicity.${v}`, v)),
    },
    { header: t("export.col.firstDate"), value: (s) => day(s.firstDate) },
    { header: t("export.col.lastDate"), value: (s) => day(s.lastDate) },
    {
      header: t("export.col.nextCharge"),
      value: (s) => day(s.status === "ACTIVE" || s.status === "AWAITING_AUTHORISATION" ? s.nextDueDate : null),
    },
    { header: t("export.col.retryPolicy"), value: (s) => c.code(s.retryPolicy, (v) => label(t, `sub.retry.${v}`, v)) },
    { header: t("export.col.journey"), value: (s) => c.code(s.journey, (v) => label(t, `sub.journey.${v}`, v)) },
    { header: t("export.col.paidCycles"), value: (s) => text(String(s.paidCycles)) },
    { header: t("export.col.paidTotal"), value: (s) => ({ centavos: s.paidCentavos }) },
    { header: t("export.col.failedCycles"), value: (s) => text(String(s.failedCycles)) },
    {
      header: t("export.col.cancelledBy"),
      value: (s) => c.code(s.cancelledBy, (v) => label(t, `sub.cancelledBy.${v}`, v)),
    },
    { header: t("export.col.recurrenceId"), value: (s) => text(s.idRec) },
    { header: t("export.col.metadata"), value: (s) => metadataCell(s.metadata, format) },
  ];
}

/** The CSV body of one export for one merchant, as a byte stream of keyset pages. */
export function exportStream(
  name: ExportName,
  merchantId: string,
  q: ExportQuery,
  t: Translator,
  pageSize = 1000,
  locale: Locale = "pt-BR",
): ReadableStream<Uint8Array> {
  const range = { merchantId, from: q.from, to: q.to };
  const ex = readDb();
  switch (name) {
    case "statement":
      return csvStream(
        withSources(merchantId, statementPages(ex, { ...range, kinds: q.kind ? [q.kind] : undefined }, pageSize)),
        statementColumns(t, q.format, locale),
        q.format,
      );
    case "orders":
      return csvStream(
        withSplits(ex, merchantId, orderExportPages(ex, range, pageSize)),
        orderColumns(t, q.format, locale),
        q.format,
      );
    case "withdrawals":
      return csvStream(withdrawalPages(ex, range, pageSize), withdrawalColumns(t, q.format), q.format);
    case "subscriptions":
      return csvStream(
        subscriptionPages(ex, { ...range, status: q.status }, pageSize),
        subscriptionColumns(t, q.format),
        q.format,
      );
  }
}

/** "extrato_2026-11-01_2026-11-30.csv": the export's name in the user's language and its range. */
export function exportFileName(
  name: ExportName,
  q: { from?: string; to?: string; format: CsvFormat },
  t: Translator,
): string {
  const range = [q.from ?? "", q.to ?? ""].filter(Boolean).join("_");
  return `${t(`export.file.${name}`)}${range ? `_${range}` : ""}${q.format === "excel" ? "_excel" : ""}.csv`;
}
