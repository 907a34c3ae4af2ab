import { and, asc, eq, inArray, isNotNull, lt, or, sql, type SQL } from "drizzle-orm";
import type { Executor } from "@/db";
import { batched } from "@/db/batch";
import { constant, inConstants } from "@/db/constant";
import { prepared, type SqlValue } from "@/db/prepared";
import { newId } from "@/lib/ids";
import {
  orderReceipts,
  orderRefunds,
  orders,
  pixReceipts,
  type Order,
  type OrderRefund,
  type PixReceipt,
} from "@/db/schema";

// The SQL of PIX, exchange-wallet and Lightning orders. Each query takes the executor first (the
// pool or a transaction); the service (./service.ts) decides what happens, these say how it is
// stored. The API's hottest statements (create, look up) are prepared once per pool instead
// (db/prepared.ts), so they run on the pool and take no executor.

type NewOrder = typeof orders.$inferInsert;
const ORDER_COLUMNS = [
  "id",
  "merchantId",
  "kind",
  "paymentLinkId",
  "hash",
  "valueCentavos",
  "reference",
  "metadata",
  "provider",
  "providerRef",
  "brcode",
  "txid",
  "invoice",
  "paymentHash",
  "satoshis",
  "rate",
  "rateSource",
  "rateAt",
  "expiresAt",
] as const satisfies readonly (keyof NewOrder)[];
const NULLABLE_ORDER_COLUMNS = new Set<string>([
  "providerRef",
  "brcode",
  "txid",
  "invoice",
  "paymentHash",
  "satoshis",
  "rate",
  "rateSource",
  "rateAt",
  "expiresAt",
]);
/** An order as sent to PostgreSQL: every column present, absent ones as the null stored, dates as ISO text. */
type SentOrder = { [C in (typeof ORDER_COLUMNS)[number]]-?: Exclude<NewOrder[C], undefined> };
/** Bare parameters reach postgres.js untyped: dates go as ISO text for PostgreSQL to parse. */
type OrderParams = Omit<SentOrder, "rateAt" | "expiresAt"> & { rateAt: string | null; expiresAt: string | null };

// Creating orders is the API's hottest write. The INSERT returns only what PostgreSQL decides
// (defaults, timestamps, and the rate as its numeric column rounds it); the rest of the row is what
// was just sent. Echoing the whole row back cost PostgreSQL the output and this process the parsing of
// ~20 columns it already held. tests/orders.test.ts holds the result equal to the row as stored.
const DECIDED_BY_DATABASE = {
  id: orders.id,
  status: orders.status,
  rate: orders.rate,
  paidAt: orders.paidAt,
  version: orders.version,
  createdAt: orders.createdAt,
  updatedAt: orders.updatedAt,
};
/**
 * Creates arriving together share one INSERT (db/batch.ts): under load one statement of eight orders
 * costs PostgreSQL about what three single ones do. Two batches in flight keep the pool free for the
 * lookups and payments running beside them.
 */
export const ORDER_BATCH = { concurrency: 2, maxBatch: 16 };
/**
 * The placeholder of row i's column j, named once: making the names per batch (`column + i`) spent
 * ~3% of a create's CPU on building and interning ~300 strings.
 */
const PARAM_NAMES = Array.from({ length: ORDER_BATCH.maxBatch }, (_, i) => ORDER_COLUMNS.map((c) => c + i));
/** One prepared INSERT per number of rows (1 … ORDER_BATCH.maxBatch), built once per pool. */
const insertOrdersQuery = (rows: number) =>
  prepared(`insert_orders_${rows}`, (d) =>
    d
      .insert(orders)
      .values(
        Array.from(
          { length: rows },
          (_, i) =>
            // Nullable columns go in as bare SQL parameters: Drizzle runs each column's encoder on its
            // placeholder, and the timestamp encoder cannot take null.
            Object.fromEntries(
              ORDER_COLUMNS.map((c, j) => {
                const name = PARAM_NAMES[i][j];
                return [c, NULLABLE_ORDER_COLUMNS.has(c) ? sql`${sql.placeholder(name)}` : sql.placeholder(name)];
              }),
            ) as unknown as NewOrder,
        ),
      )
      .returning(DECIDED_BY_DATABASE)
      .prepare(`insert_orders_${rows}`),
  );

const insertOrderBatch = batched(async (rows: OrderParams[]) => {
  const params: Record<string, unknown> = {};
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    const names = PARAM_NAMES[i];
    for (let j = 0; j < ORDER_COLUMNS.length; j++) params[names[j]] = r[ORDER_COLUMNS[j]];
  }
  const generated = await insertOrdersQuery(rows.length).execute(params);
  // Matched by id: the order RETURNING lists the rows in is not one PostgreSQL promises.
  const byId = new Map(generated.map((g) => [g.id, g]));
  return rows.map((r) => {
    const g = byId.get(r.id);
    if (!g) throw new Error(`insert_orders: no row returned for ${r.id}`);
    return g;
  });
}, ORDER_BATCH);

// Every object here is a literal with every key, in one fixed shape: building them key by key from
// the column lists made every property access a megamorphic lookup (~4% of a create's CPU in a profile).
export async function insertOrder(values: Omit<NewOrder, "id">): Promise<Order> {
  // What was sent, with every absent column as the null PostgreSQL stores. The id is made here, not
  // by the column's default, so a batch's returned rows can be matched to their requests. Random
  // (v4), not time-ordered (v7): merchants find orders by the first characters of their id, and a
  // v7 id's first eight are the minute it was made, shared by every order of that minute.
  const sent: SentOrder = {
    id: newId(),
    merchantId: values.merchantId,
    kind: values.kind,
    paymentLinkId: values.paymentLinkId,
    hash: values.hash,
    valueCentavos: values.valueCentavos,
    reference: values.reference ?? {},
    metadata: values.metadata ?? {},
    provider: values.provider,
    providerRef: values.providerRef ?? null,
    brcode: values.brcode ?? null,
    txid: values.txid ?? null,
    invoice: values.invoice ?? null,
    paymentHash: values.paymentHash ?? null,
    satoshis: values.satoshis ?? null,
    rate: values.rate ?? null,
    rateSource: values.rateSource ?? null,
    rateAt: values.rateAt ?? null,
    expiresAt: values.expiresAt ?? null,
  };
  const generated = await insertOrderBatch({
    ...sent,
    rateAt: sent.rateAt?.toISOString() ?? null,
    expiresAt: sent.expiresAt?.toISOString() ?? null,
  });
  // The row in the table's field order, as a select gives it; tests/orders.test.ts holds it equal to the stored row.
  return {
    id: sent.id,
    merchantId: sent.merchantId,
    kind: sent.kind,
    paymentLinkId: sent.paymentLinkId,
    hash: sent.hash,
    status: generated.status,
    valueCentavos: sent.valueCentavos,
    reference: sent.reference,
    metadata: sent.metadata,
    provider: sent.provider,
    providerRef: sent.providerRef,
    brcode: sent.brcode,
    txid: sent.txid,
    invoice: sent.invoice,
    paymentHash: sent.paymentHash,
    satoshis: sent.satoshis,
    rate: generated.rate,
    rateSource: sent.rateSource,
    rateAt: sent.rateAt,
    expiresAt: sent.expiresAt,
    paidAt: generated.paidAt,
    payLinks: null,
    version: generated.version,
    splitCount: 0,
    createdAt: generated.createdAt,
    updatedAt: generated.updatedAt,
  };
}

/**
 * Any order, in the caller's transaction (a keyed request's, which binds its key beside it) or with
 * what only some providers return (pay links): the plain insert. The batched one runs on the pool only.
 */
export async function insertOrderIn(ex: Executor, values: NewOrder): Promise<Order> {
  const [row] = await ex.insert(orders).values(values).returning();
  return row;
}

// Order lookups are the API's hottest reads: prepared once per pool, and batched like creates
// (db/batch.ts): lookups arriving together are one SELECT by primary key. The merchant is checked on
// each row here rather than in the statement, so one statement serves many merchants' lookups. One
// batch at a time: a primary-key read is short, and with one in flight the next batch gathers more
// lookups; alternating runs measured ~20% more lookups per second than with two in flight.
//
// Each id is its own primary-key probe (a LATERAL subquery per id) rather than `id = any(ids)`:
// PostgreSQL keeps one generic plan per prepared statement, made without the array, and on a table
// that still looked empty when it was made (a new deployment, or no ANALYZE yet) a sequential scan
// costs less than ten probes; it then kept reading every order on every lookup as the table grew
// (tests/query-plans.test.ts). One probe against one scan of the table is decided for the probe at
// any size.
const ordersByIdQuery = () =>
  prepared("orders_by_id", (d) => {
    const probe = d
      .select()
      .from(orders)
      .where(eq(orders.id, sql`wanted.id`))
      .limit(1)
      .as("o");
    return d
      .select(probe._.selectedFields)
      .from(sql`unnest(${sql.placeholder("ids")}::uuid[]) as wanted(id)`)
      .crossJoinLateral(probe)
      .prepare("orders_by_id");
  });
export const ORDER_LOOKUP_BATCH = { concurrency: 1, maxBatch: 64 };
const orderByIdBatch = batched(async (ids: string[]) => {
  const rows = await ordersByIdQuery().execute({ ids });
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id));
}, ORDER_LOOKUP_BATCH);
// By the unique payment link id alone, the merchant checked on the row: with the merchant in the
// statement too, the generic plan PostgreSQL made on an empty table walked the merchant's orders
// from the oldest (its (merchant_id, created_at, id) index) and kept doing so at any size.
const orderByLinkQuery = () =>
  prepared("order_by_link", (d) =>
    d
      .select()
      .from(orders)
      .where(eq(orders.paymentLinkId, sql.placeholder("link")))
      .limit(1)
      .prepare("order_by_link"),
  );

/** One of the merchant's orders by its id (a UUID, lower case). */
export async function merchantOrderById(merchantId: string, id: string): Promise<Order | undefined> {
  const row = await orderByIdBatch(id);
  // Another merchant's order does not exist for this one (ids cannot be probed: docs/api.md#authentication).
  return row?.merchantId === merchantId ? row : undefined;
}

/** One of the merchant's orders by its payment link id. */
export async function merchantOrderByLink(merchantId: string, link: string): Promise<Order | undefined> {
  const [row] = await orderByLinkQuery().execute({ link });
  return row?.merchantId === merchantId ? row : undefined;
}

/** Any merchant's order by its payment link id: the payer's side. */
export async function orderByLink(ex: Executor, link: string): Promise<Order | undefined> {
  const [row] = await ex.select().from(orders).where(eq(orders.paymentLinkId, link)).limit(1);
  return row;
}

export async function orderById(ex: Executor, id: string): Promise<Order | undefined> {
  const [row] = await ex.select().from(orders).where(eq(orders.id, id));
  return row;
}

/**
 * The rule for completing an order (docs/api.md#states-expiry-and-money), as a condition on its row: an order completes when
 * it was paid, by the provider's own clock (`paidAt`, ISO text), no later than its expiry. That
 * includes an order the sweep already cancelled because the provider reported the payment late:
 * expiry is judged by the payment time, not by when we learnt of it.
 */
export function payableAt(paidAt: SqlValue<string>): SQL {
  return sql`${orders.status} in ('PENDING', 'CANCELLED') and (${orders.expiresAt} is null or ${orders.expiresAt} >= ${paidAt})`;
}

/**
 * PENDING (or CANCELLED) → COMPLETED when payableAt allows it; undefined when the order did not
 * qualify. `valueCentavos`: what was paid, for an order whose value is what its payment day asked (an invoice's).
 */
export async function markPaid(
  ex: Executor,
  id: string,
  paidAt: Date,
  valueCentavos?: number,
): Promise<Order | undefined> {
  const [updated] = await ex
    .update(orders)
    .set({
      status: "COMPLETED",
      paidAt,
      version: sql`${orders.version} + 1`,
      updatedAt: sql`now()`,
      ...(valueCentavos !== undefined ? { valueCentavos } : {}),
    })
    .where(and(eq(orders.id, id), payableAt(paidAt.toISOString())))
    .returning();
  return updated;
}

/**
 * PENDING orders past their expiry (among `ids` when given): the orders_pending_expiry index's
 * predicate, spelled with the status as a constant so that every plan can use that index.
 */
function expiredPending(ids: string[] | undefined): SQL {
  return and(
    eq(orders.status, constant("PENDING")),
    isNotNull(orders.expiresAt),
    lt(orders.expiresAt, sql`now()`),
    ids ? inArray(orders.id, ids) : undefined,
  )!;
}

/** PENDING orders past their expiry (among `ids` when given), unlocked: what a sweep is about to look at. */
export function dueOrders(ex: Executor, ids: string[] | undefined, limit: number): Promise<Order[]> {
  return ex.select().from(orders).where(expiredPending(ids)).limit(limit);
}

/** PENDING orders past their expiry (among `ids` when given), locked; rows another sweeper holds are skipped. */
export function lockExpiredPending(ex: Executor, ids: string[] | undefined, limit: number): Promise<Order[]> {
  return ex.select().from(orders).where(expiredPending(ids)).limit(limit).for("update", { skipLocked: true });
}

/** PENDING → CANCELLED for these orders; returns those that changed. */
export function markCancelled(ex: Executor, ids: string[]): Promise<Order[]> {
  return ex
    .update(orders)
    .set({ status: "CANCELLED", version: sql`${orders.version} + 1`, updatedAt: sql`now()` })
    .where(and(inArray(orders.id, ids), eq(orders.status, "PENDING")))
    .returning();
}

/** The PIX order a charge's txid belongs to, locked for the payment being applied. */
export async function lockOrderByTxid(ex: Executor, txid: string): Promise<Order | undefined> {
  const [row] = await ex.select().from(orders).where(eq(orders.txid, txid)).for("update");
  return row;
}

/** Records a received PIX once; false when its end-to-end id was recorded before. */
export async function insertPixReceipt(ex: Executor, values: typeof pixReceipts.$inferInsert): Promise<boolean> {
  const rows = await ex
    .insert(pixReceipts)
    .values(values)
    .onConflictDoNothing()
    .returning({ id: pixReceipts.endToEndId });
  return rows.length > 0;
}

export async function receiptExists(ex: Executor, endToEndId: string): Promise<boolean> {
  const rows = await ex
    .select({ id: pixReceipts.endToEndId })
    .from(pixReceipts)
    .where(eq(pixReceipts.endToEndId, endToEndId));
  return rows.length > 0;
}

/** The PIX that paid an order (what a refund sends back against). */
export async function appliedReceiptOf(ex: Executor, orderId: string): Promise<PixReceipt | undefined> {
  const [row] = await ex
    .select()
    .from(pixReceipts)
    .where(and(eq(pixReceipts.orderId, orderId), eq(pixReceipts.applied, true)))
    .limit(1);
  return row;
}

/** One order, locked until the transaction ends: what serialises its refunds' requests and decisions. */
export async function lockOrder(ex: Executor, id: string): Promise<Order | undefined> {
  const [row] = await ex.select().from(orders).where(eq(orders.id, id)).for("update");
  return row;
}

/** COMPLETED → REFUND (its refunds reached its value); undefined when it was not COMPLETED. */
export async function markRefunded(ex: Executor, id: string): Promise<Order | undefined> {
  const [updated] = await ex
    .update(orders)
    .set({ status: "REFUND", version: sql`${orders.version} + 1`, updatedAt: sql`now()` })
    .where(and(eq(orders.id, id), eq(orders.status, "COMPLETED")))
    .returning();
  return updated;
}

// A paid order's lookup also reads its refunds: prepared like the lookup itself. Built by Drizzle and
// sent unnamed on every lookup, it held lookups of paid orders to under half the rate of unpaid ones
// (docs/performance.md: 2,053-2,348 against 4,767-5,726 a second prepared, on 1 M orders).
const refundsOfOrderQuery = () =>
  prepared("order_refunds_of", (d) =>
    d
      .select()
      .from(orderRefunds)
      .where(eq(orderRefunds.orderId, sql.placeholder("orderId")))
      .orderBy(asc(orderRefunds.createdAt), asc(orderRefunds.id))
      .prepare("order_refunds_of"),
  );

/** The order's refunds, oldest first, on the pool: the order lookup's. */
export function refundsOfOrderOnPool(orderId: string): Promise<OrderRefund[]> {
  return refundsOfOrderQuery().execute({ orderId });
}

/** An order's refunds, oldest first (the lookup's `refunds`; lib/refunds writes them). */
export function refundsOfOrder(ex: Executor, orderId: string): Promise<OrderRefund[]> {
  return ex
    .select()
    .from(orderRefunds)
    .where(eq(orderRefunds.orderId, orderId))
    .orderBy(asc(orderRefunds.createdAt), asc(orderRefunds.id));
}

/** Records a provider's payment once; false when (provider, payment) was recorded before. */
export async function insertOrderReceipt(ex: Executor, values: typeof orderReceipts.$inferInsert): Promise<boolean> {
  const rows = await ex
    .insert(orderReceipts)
    .values(values)
    .onConflictDoNothing()
    .returning({ ref: orderReceipts.paymentRef });
  return rows.length > 0;
}

/**
 * Orders of a kind at a provider whose payment could still arrive or be reported: PENDING ones, however
 * long past their expiry (the sweep leaves an order open while the provider settles a payment made in
 * time: OpenNode's on-chain `processing`, a Binance order paid at its close), and ones cancelled at
 * expiry within `lateWindowSeconds` (a payment made in time may be reported late).
 */
export function ordersAwaitingProvider(
  ex: Executor,
  kind: Order["kind"],
  provider: string,
  lateWindowSeconds: number,
  limit: number,
): Promise<Order[]> {
  return ex
    .select()
    .from(orders)
    .where(
      and(
        // Constants, so the plan can prove orders_awaiting_provider's predicate.
        eq(orders.kind, constant(kind)),
        eq(orders.provider, provider),
        inConstants(orders.status, ["PENDING", "CANCELLED"]),
        // Every Lightning and exchange-wallet order has an expiry.
        or(
          eq(orders.status, constant("PENDING")),
          sql`${orders.expiresAt} > now() - make_interval(secs => ${lateWindowSeconds})`,
        ),
      ),
    )
    .orderBy(orders.expiresAt)
    .limit(limit);
}

/** A Lightning or exchange-wallet order by the provider's id for it (PIX orders are found by txid). */
export async function orderByProviderRef(
  ex: Executor,
  provider: string,
  providerRef: string,
): Promise<Order | undefined> {
  const [row] = await ex
    .select()
    .from(orders)
    // The kinds as the orders_provider_ref index's predicate states them: without them no plan can use it.
    .where(
      and(
        sql`${orders.kind} in ('lightning', 'exchange')`,
        eq(orders.provider, provider),
        eq(orders.providerRef, providerRef),
      ),
    )
    .limit(1);
  return row;
}
