import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Pool } from "@/db";
import { runMigrations } from "@/db/migrate";
import * as schema from "@/db/schema";
import { processSlot } from "@/lib/singleton";
import { eq } from "drizzle-orm";

// Every statement on a hot path must run by the plan it was written for, whatever PostgreSQL knows of
// its tables. A prepared statement (db/prepared.ts, and every tagged postgres.js query) is planned
// once per connection; after a few executions PostgreSQL keeps a generic plan, made without the
// parameters' values, and keeps it until statistics change. On a new deployment, or anywhere
// autovacuum has not analyzed a growing table yet, nothing changes them: a plan chosen while the
// table was empty serves it at ten million rows. So each statement the hot paths send is captured
// here, as sent, and explained with plan_cache_mode = force_generic_plan, first on the nearly empty
// tables the paths left, then after a large insert with no ANALYZE; each scan must go through the
// index the statement is meant to use.

type PlanNode = { "Node Type": string; "Relation Name"?: string; "Index Name"?: string; Plans?: PlanNode[] };
type Scan = { node: string; relation: string; indexes: string[] };
type Captured = { text: string; types: number[] };

const scratchName = `plans_${process.pid}_${Date.now()}`;
let adminUrl: string;
let scratchUrl: string;
let pool: Pool;
let savedUrl: string | undefined;
/** The statements sent while `current` ran, by operation. */
const byOperation = new Map<string, Map<string, Captured>>();
let current: string | null = null;

function open(url: string): Pool {
  const sql = postgres(url, {
    max: 5,
    onnotice: () => {},
    debug: (_connection, text, _params, types) => {
      if (!current) return;
      const seen = byOperation.get(current) ?? new Map<string, Captured>();
      byOperation.set(current, seen);
      if (!seen.has(text)) seen.set(text, { text, types: [...(types as number[])] });
    },
  });
  return { sql, db: drizzle(sql, { schema }), url, applicationName: "plans", listenUrl: url, closeWith: [] };
}

beforeAll(async () => {
  adminUrl = process.env.DATABASE_URL!;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${scratchName}"`);
  await admin.end();
  const u = new URL(adminUrl);
  u.pathname = `/${scratchName}`;
  scratchUrl = u.toString();
  await runMigrations(scratchUrl);
  pool = open(scratchUrl);
  savedUrl = process.env.DATABASE_URL;
  process.env.DATABASE_URL = scratchUrl;
  processSlot<Pool>("db-pool").value = pool;
}, 120_000);

afterAll(async () => {
  processSlot<Pool>("db-pool").value = undefined;
  process.env.DATABASE_URL = savedUrl;
  await pool?.sql.end({ timeout: 5 });
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists "${scratchName}" with (force)`);
  await admin.end();
});

async function during<T>(operation: string, run: () => Promise<T>): Promise<T> {
  current = operation;
  try {
    return await run();
  } finally {
    current = null;
  }
}

// The test runs for minutes on a loaded machine: it says what it is doing as it goes.
const started = Date.now();
const progress = (what: string) => console.log(`query-plans: ${what} (${Math.round((Date.now() - started) / 1000)} s)`);

const EXPLAINABLE = /^\s*(select|insert|update|delete|with)\b/i;

/**
 * The scans of a statement's generic plan: every node that reads a table, and the indexes it reads
 * through (a bitmap scan's come from its Bitmap Index Scans). Tables written by INSERT/UPDATE/DELETE
 * are not scans; what those statements read to find their rows is.
 */
async function genericScans(sql: postgres.Sql, statement: Captured): Promise<Scan[]> {
  return sql.begin(async (tx) => {
    await tx.unsafe("set local plan_cache_mode = force_generic_plan");
    const typeNames = statement.types.length
      ? await tx.unsafe<{ name: string }[]>(
          "select coalesce(t.typname, 'unknown') as name from unnest($1::oid[]) with ordinality u(oid, n) left join pg_type t on t.oid = u.oid order by n",
          [statement.types as never],
        )
      : [];
    const declared = typeNames.length
      ? `(${typeNames.map((t) => (t.name === "unknown" ? "unknown" : `"${t.name}"`)).join(", ")})`
      : "";
    await tx.unsafe(`prepare plan_probe ${declared} as ${statement.text}`);
    const [{ n }] = await tx.unsafe<{ n: number }[]>(
      "select coalesce(cardinality(parameter_types), 0) as n from pg_prepared_statements where name = 'plan_probe'",
    );
    // A generic plan does not depend on the values: nulls stand for every parameter.
    const args = n ? `(${Array.from({ length: n }, () => "null").join(", ")})` : "";
    const [row] = await tx.unsafe<{ "QUERY PLAN": { Plan: PlanNode }[] }[]>(
      `explain (format json) execute plan_probe${args}`,
    );
    await tx.unsafe("deallocate plan_probe");
    const scans: Scan[] = [];
    const indexesUnder = (node: PlanNode): string[] => [
      ...(node["Index Name"] ? [node["Index Name"]] : []),
      ...(node.Plans ?? []).flatMap(indexesUnder),
    ];
    const walk = (node: PlanNode) => {
      const relation = node["Relation Name"];
      if (relation && node["Node Type"] !== "ModifyTable") {
        const indexes =
          node["Node Type"] === "Bitmap Heap Scan"
            ? indexesUnder(node)
            : node["Index Name"]
              ? [node["Index Name"]]
              : [];
        scans.push({ node: node["Node Type"], relation, indexes });
        if (node["Node Type"] === "Bitmap Heap Scan") return;
      }
      for (const child of node.Plans ?? []) walk(child);
    };
    walk(row["QUERY PLAN"][0].Plan);
    return scans;
  });
}

/**
 * A large insert, as a busy deployment's tables hold it: one big merchant (the test's) among a
 * thousand, no ANALYZE afterwards. Enough rows that a wrong plan costs visibly more than the right one.
 */
async function grow(sql: postgres.Sql, merchantId: string, n: number) {
  await sql.unsafe(`
    insert into merchants (id, company_name, pix_key, pix_key_type)
      select gen_random_uuid(), 'M' || i, '52998224725', 'cpf' from generate_series(1, 999) i;
    create temporary table m as select id, row_number() over (order by id) as i from merchants;
    insert into api_keys (merchant_id, name, prefix, key_hash, mode)
      select m.id, 'k' || g, 'pk', md5(m.id::text || g), 'sandbox' from m, generate_series(1, 2) g;
    insert into orders (merchant_id, kind, payment_link_id, hash, status, value_centavos, reference, provider, txid, expires_at, created_at)
      select case when g % 4 = 0 then (select id from m where i = 1 + g % 1000) else '${merchantId}'::uuid end,
             'pix', 'pl' || g, 'h' || g, (array['COMPLETED','COMPLETED','CANCELLED','PENDING'])[1 + g % 4], 100 + g % 5000,
             case when g % 5 = 0 then jsonb_build_object('orderId', 'PED-' || g, 'name', 'Maria ' || g) else '{}'::jsonb end,
             'sandbox', 'tx' || g, now() - interval '1 hour' + g * interval '1 ms', now() - interval '1 year' + g * interval '100 ms'
      from generate_series(1, ${n}) g;
    insert into ledger_entries (merchant_id, kind, amount_centavos, ref_type, ref_id, created_at)
      select merchant_id, 'order_credit', value_centavos, 'order', id::text, created_at from orders where status = 'COMPLETED' on conflict do nothing;
    insert into unfolded_credits (entry_id, merchant_id, amount_centavos)
      select id, merchant_id, amount_centavos from ledger_entries where id % 10 = 0;
    insert into events (merchant_id, type, subject_type, subject_id, data, position, created_at)
      select merchant_id, 'order.status_changed', 'order', id::text, '{}'::jsonb, row_number() over (order by created_at) + 1000, created_at from orders;
    insert into withdrawals (merchant_id, kind, status, value_centavos, debit_centavos, limit_day, created_at)
      select case when g % 4 = 0 then (select id from m where i = 1 + g % 1000) else '${merchantId}'::uuid end, 'pix_out', 'COMPLETED', 100, 100,
             (now() - g * interval '1 minute')::date, now() - g * interval '1 minute'
      from generate_series(1, ${n / 10}) g;
    insert into pix_receipts (end_to_end_id, txid, order_id, merchant_id, value_centavos, paid_at, applied, source)
      select 'E' || id, txid, id, merchant_id, value_centavos, created_at, true, 'sandbox' from orders where status = 'COMPLETED' on conflict do nothing;
    insert into order_refunds (order_id, merchant_id, value_centavos, status, provider, payment_ref, created_at)
      select id, merchant_id, 1, 'COMPLETED', 'sandbox', 'E' || id, created_at from orders where status = 'COMPLETED' and value_centavos % 7 = 0;
    insert into deposit_addresses (wallet_index, address, owner_kind)
      select 1000000 + g, '0x' || lpad(to_hex(g), 40, '0'), 'onchain_order' from generate_series(1, ${n / 10}) g;
    insert into onchain_orders (merchant_id, payment_link_id, network, asset, token_address, token_decimals, address, wallet_index, status, value_centavos,
                                crypto_amount, rate, rate_source, rate_at, expires_at, closed_at, created_at)
      select case when g % 4 = 0 then (select id from m where i = 1 + g % 1000) else '${merchantId}'::uuid end, 'oc' || g, 'bsc', 'USDT', '0x0', 18,
             '0x' || lpad(to_hex(g), 40, '0'), 1000000 + g, 'COMPLETED', 100, 1, 5, 'test', now(), now() - interval '1 day', now(), now() - interval '1 year' + g * interval '1 s'
      from generate_series(1, ${n / 10}) g;
    insert into idempotency_keys (merchant_id, key, method, path, body_hash, state, expires_at)
      select '${merchantId}', 'k' || g, 'POST', '/api/v1/order/create/pix', 'x', 'done', now() + interval '1 day' from generate_series(1, ${n / 10}) g;
  `);
}

// Tables whose size does not follow the business (sessions, invitations, one row per API key or
// per endpoint, the limiter's current windows, catalogs): reading one whole costs what an index would.
const SMALL = new Set([
  "pg_type",
  "api_keys",
  "rate_limits",
  "user_sessions",
  "password_resets",
  "team_invitations",
  "email_codes",
  "users",
  "webhook_endpoints",
  "payout_destinations",
  "chain_cursors",
  "provider_cursors",
  "hot_wallet_nonces",
  "deployment_marks",
]);

// The indexes each table of the business may be read through by a hot statement, unless the
// operation says more precisely (INTENT): a statement that scans one of these tables whole, or reads
// it through another index, fails.
const READ_THROUGH: Record<string, string[]> = {
  recipients: ["recipients_pkey", "recipients_merchant", "recipients_merchant_document"],
  recipient_ledger_entries: [
    "recipient_ledger_entries_pkey",
    "recipient_ledger_entries_recipient",
    "recipient_ledger_entries_ref",
  ],
  recipient_payouts: ["recipient_payouts_pkey", "recipient_payouts_recipient", "recipient_payouts_schedule_slot"],
  recipient_payout_skips: ["recipient_payout_skips_slot"],
  merchants: ["merchants_pkey"],
  orders: [
    "orders_pkey",
    "orders_payment_link_id",
    "orders_txid",
    "orders_payment_hash",
    "orders_merchant_created",
    "orders_merchant_value",
    "orders_search",
    "orders_pending_expiry",
    "orders_provider_ref",
    "orders_awaiting_provider",
  ],
  onchain_orders: [
    "onchain_orders_pkey",
    "onchain_orders_payment_link_id",
    "onchain_orders_merchant_created",
    "onchain_orders_merchant_value",
    "onchain_orders_search",
    "onchain_orders_open_expiry",
  ],
  crypto_pix_payments: [
    "crypto_pix_payments_pkey",
    "crypto_pix_merchant_created",
    "crypto_pix_merchant_value",
    "crypto_pix_search",
    "crypto_pix_open_expiry",
    "crypto_pix_refund_pending",
  ],
  ledger_entries: [
    "ledger_entries_pkey",
    "ledger_entries_merchant",
    "ledger_entries_merchant_kind",
    "ledger_entries_merchant_created",
  ],
  unfolded_credits: ["unfolded_credits_merchant", "unfolded_credits_pkey"],
  events: [
    "events_pkey",
    "events_unpublished",
    "events_merchant_position",
    "events_merchant_seq",
    "events_subject",
    "events_position",
  ],
  webhook_deliveries: [
    "webhook_deliveries_pkey",
    "webhook_deliveries_due",
    "webhook_deliveries_endpoint_due",
    "webhook_deliveries_first_attempt",
    "webhook_deliveries_order",
    "webhook_deliveries_event",
  ],
  withdrawals: [
    "withdrawals_pkey",
    "withdrawals_merchant_day",
    "withdrawals_merchant_created",
    "withdrawals_tx_hash",
    "withdrawals_waiting",
  ],
  unapplied_resolutions: ["unapplied_resolutions_pkey", "unapplied_resolutions_waiting", "unapplied_resolutions_order"],
  pix_receipts: ["pix_receipts_pkey", "pix_receipts_order"],
  order_refunds: ["order_refunds_pkey", "order_refunds_order", "order_refunds_open"],
  pix_returns: ["pix_returns_pkey", "pix_returns_order"],
  // What open MED infractions hold out of a merchant's balance (GET /account, the overview).
  med_infractions: ["med_infractions_merchant"],
  pix_payouts: ["pix_payouts_pkey", "pix_payouts_owner", "pix_payouts_open"],
  idempotency_keys: ["idempotency_keys_merchant_id_key_method_path_pk", "idempotency_keys_expiry"],
  chain_transfers: [
    "chain_transfers_pkey",
    "chain_transfers_owner",
    "chain_transfers_unique",
    "chain_transfers_refund_pending",
  ],
  chain_txs: ["chain_txs_pkey", "chain_txs_owner", "chain_txs_pending", "chain_txs_nonce"],
  crypto_pix_invoices: [
    "crypto_pix_invoices_pkey",
    "crypto_pix_invoices_hash",
    "crypto_pix_invoices_pending",
    "crypto_pix_invoices_action",
  ],
  deposit_addresses: ["deposit_addresses_pkey", "deposit_addresses_address"],
  audit_events: ["audit_events_pkey", "audit_events_merchant"],
  mail_outbox: ["mail_outbox_pkey", "mail_outbox_merchant"],
  invoices: ["invoices_pkey", "invoices_order", "invoices_txid", "invoices_merchant_created", "invoices_open_expiry"],
  invoice_batches: ["invoice_batches_pkey", "invoice_batches_merchant_created", "invoice_batches_processing"],
  subscriptions: [
    "subscriptions_pkey",
    "subscriptions_id_rec",
    "subscriptions_payment_link",
    "subscriptions_merchant_created",
    "subscriptions_awaiting",
    "subscriptions_active_next",
  ],
  subscription_cycles: [
    "subscription_cycles_pkey",
    "subscription_cycles_number",
    "subscription_cycles_txid",
    "subscription_cycles_order",
    "subscription_cycles_open",
    "subscription_cycles_merchant_failed",
  ],
  subscription_creations: [
    "subscription_creations_pkey",
    "subscription_creations_key",
    "subscription_creations_creating",
  ],
};

// Where one operation must take one road: the lookups by a unique key, the merchant's lists and
// statement by their own index, the sweep by its partial indexes.
const INTENT: Record<string, Record<string, string[]>> = {
  "order by id": { orders: ["orders_pkey"] },
  "paid order by id": { orders: ["orders_pkey"], order_refunds: ["order_refunds_order"] },
  "order by payment link id": { orders: ["orders_payment_link_id"] },
  "payment by PSP notification": { orders: ["orders_txid", "orders_pkey"] },
  account: {
    merchants: ["merchants_pkey"],
    unfolded_credits: ["unfolded_credits_merchant"],
    withdrawals: ["withdrawals_merchant_day"],
  },
  "sandbox payment": { orders: ["orders_txid", "orders_pkey"] },
  "order list": {
    orders: ["orders_merchant_created"],
    onchain_orders: ["onchain_orders_merchant_created"],
    crypto_pix_payments: ["crypto_pix_merchant_created"],
  },
  "dashboard recipients": { recipients: ["recipients_merchant"] },
  "dashboard recipient search": { recipients: ["recipients_merchant"] },
  "dashboard recipient": {
    recipients: ["recipients_pkey"],
    recipient_ledger_entries: ["recipient_ledger_entries_recipient"],
    recipient_payouts: ["recipient_payouts_recipient", "recipient_payouts_pkey"],
    recipient_payout_skips: ["recipient_payout_skips_slot"],
    order_splits: ["order_splits_pkey"],
  },
  // Every minute: the scheduled recipients, then a page's paid slots and recorded skips.
  "automatic payouts": {
    recipients: ["recipients_payout_schedule", "recipients_pkey"],
    recipient_payouts: ["recipient_payouts_schedule_slot"],
    recipient_payout_skips: ["recipient_payout_skips_slot"],
  },
  "dashboard statement": { ledger_entries: ["ledger_entries_merchant"] },
  "dashboard statement by kind": { ledger_entries: ["ledger_entries_merchant_kind", "ledger_entries_merchant"] },
  "export orders": {
    orders: ["orders_merchant_created"],
    onchain_orders: ["onchain_orders_merchant_created"],
    crypto_pix_payments: ["crypto_pix_merchant_created"],
    chain_transfers: ["chain_transfers_owner"],
  },
  "export statement": { ledger_entries: ["ledger_entries_merchant"] },
  sweep: {
    orders: ["orders_pending_expiry", "orders_pkey"],
    idempotency_keys: ["idempotency_keys_expiry"],
    invoices: ["invoices_open_expiry", "invoices_pkey"],
    invoice_batches: ["invoice_batches_processing", "invoice_batches_pkey"],
    subscriptions: ["subscriptions_awaiting", "subscriptions_active_next", "subscriptions_pkey"],
    subscription_cycles: ["subscription_cycles_open", "subscription_cycles_pkey"],
  },
};

async function wrongPlans(label: string): Promise<string[]> {
  progress(
    `checking the generic plans of ${[...byOperation.values()].reduce((n, s) => n + s.size, 0)} statements: ${label}`,
  );
  const admin = postgres(scratchUrl, { max: 1, onnotice: () => {} });
  const wrong: string[] = [];
  try {
    for (const [operation, statements] of byOperation) {
      if (operation === "seed") continue;
      for (const statement of statements.values()) {
        if (!EXPLAINABLE.test(statement.text)) continue;
        for (const scan of await genericScans(admin, statement)) {
          if (SMALL.has(scan.relation)) continue;
          const allowed = INTENT[operation]?.[scan.relation] ?? READ_THROUGH[scan.relation];
          const fine =
            allowed !== undefined && scan.indexes.length > 0 && scan.indexes.every((i) => allowed.includes(i));
          if (!fine) {
            wrong.push(
              `${label}, ${operation}: ${scan.node} on ${scan.relation}${scan.indexes.length ? ` using ${scan.indexes.join(", ")}` : ""} (meant: ${allowed?.join(" or ") ?? "nothing: add the table to READ_THROUGH"})\n    ${statement.text.replace(/\s+/g, " ").trim().slice(0, 300)}`,
            );
          }
        }
      }
    }
  } finally {
    await admin.end();
  }
  return wrong;
}

describe("hot statements' generic plans", () => {
  it("use their intended indexes on empty tables and after a large insert without ANALYZE", async () => {
    const { seedMerchant, api } = await import("./helpers");
    const { runSweep } = await import("@/lib/worker");
    const { getStatement } = await import("@/lib/dashboard/server/statement");
    const { listDashboardOrders } = await import("@/lib/dashboard/server/orders");
    const { getOverview } = await import("@/lib/dashboard/server/overview");
    const { getOrderDetail } = await import("@/lib/dashboard/server/order-detail");
    const { dashboardRecipientsQuery, getRecipientDetail, listDashboardRecipients, splitChoices } =
      await import("@/lib/dashboard/server/recipients");
    const { orderExportPages } = await import("@/lib/orders/export");
    const { statementPages } = await import("@/lib/ledger/statement");
    const { withdrawalPages } = await import("@/lib/withdrawals/export");
    const { claimDue, msUntilNextDue } = await import("@/lib/webhooks/claims");
    const { postRecipientEntry } = await import("@/lib/recipients/ledger");
    const { runAutoPayouts } = await import("@/lib/recipients/auto-payouts");
    const { randomUUID } = await import("node:crypto");
    const { flushKeyUsage } = await import("@/lib/identity/api-keys/authenticate");
    const { db } = await import("@/db");
    const first = async <T>(pages: AsyncGenerator<T>) => (await pages.next()).value;

    progress("running the hot operations, recording their statements");
    const { merchant, apiKey } = await during("seed", () => seedMerchant({ balanceCentavos: 10_000_000 }));
    const ok = async (
      operation: string,
      method: string,
      path: string,
      body?: unknown,
      headers?: Record<string, string>,
    ) => {
      const res = await during(operation, () => api(method, path, { apiKey, body, headers }));
      if (res.status >= 300) throw new Error(`${operation}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };
    const created = await ok("create PIX order", "POST", "/api/v1/order/create/pix", {
      value: 10,
      orderId: "PED-1",
      name: "Maria Souza",
      expiresIn: 600,
    });
    const id = created.pixOrder._id as string;
    const link = created.pixOrder.paymentLinkId as string;
    await ok(
      "create PIX order (Idempotency-Key)",
      "POST",
      "/api/v1/order/create/pix",
      { value: 11 },
      { "idempotency-key": "plan-1" },
    );
    await ok("order by id", "GET", `/api/v1/order/${id}`);
    await ok("order by payment link id", "GET", `/api/v1/order/${link}`);
    await ok("account", "GET", "/api/v1/account");
    await ok("public payment page", "GET", `/api/v1/public/payments/${link}`);
    const notified = await ok("create PIX order", "POST", "/api/v1/order/create/pix", { value: 12 });
    const { applyReceivedPix } = await import("@/lib/orders/pix-receipts");
    const [paidByPsp] = await db().select().from(schema.orders).where(eq(schema.orders.id, notified.pixOrder._id));
    await during("payment by PSP notification", () =>
      applyReceivedPix(
        {
          endToEndId: "E00000000202601010000plan0001",
          txid: paidByPsp.txid,
          valueCentavos: 1200,
          paidAt: new Date(),
          chave: null,
        },
        "notification",
      ),
    );
    const deposit = await ok("on-chain deposit", "POST", "/api/v1/onchain/deposit", {
      value: 50,
      network: "bsc",
      asset: "USDT",
    });
    await ok("on-chain deposit by link", "GET", `/api/v1/onchain/order/${deposit.order.paymentLinkId}`);
    await ok("sandbox payment", "POST", `/api/v1/sandbox/orders/${id}/pay`);
    await ok("paid order by id", "GET", `/api/v1/order/${id}`);
    await ok("order list", "GET", "/api/v1/orders?limit=20");
    const page = await ok("order list", "GET", "/api/v1/orders?limit=1");
    await ok("order list, next page", "GET", `/api/v1/orders?limit=20&cursor=${page.nextCursor}`);
    await ok("order list by status", "GET", "/api/v1/orders?limit=20&status=PENDING");
    for (const q of ["maria", "Joao", "PED-1", id.slice(0, 8), link, "10,00", "529.982.247-25"])
      await ok("order search", "GET", `/api/v1/orders?limit=20&q=${encodeURIComponent(q)}`);
    await ok("events", "GET", "/api/v1/events?limit=50");
    await ok("withdrawal list", "GET", "/api/v1/withdrawals?limit=20");
    await ok("pix-out", "POST", "/api/v1/order/pix-out", { value: 1 });
    const { recipient } = await ok("create recipient", "POST", "/api/v1/recipients", {
      name: "Maria Souza",
      document: "52998224725",
      pixKey: "maria@example.com",
    });
    await ok(
      "create recipient (Idempotency-Key)",
      "POST",
      "/api/v1/recipients",
      {
        name: "João Lima",
        document: "11144477735",
        pixKey: "joao@example.com",
      },
      { "idempotency-key": "plan-recipient" },
    );
    const recipients = await ok("recipient list", "GET", "/api/v1/recipients?limit=1");
    await ok("recipient list, next page", "GET", `/api/v1/recipients?limit=1&cursor=${recipients.nextCursor}`);
    await ok("recipient", "GET", `/api/v1/recipients/${recipient.id}`);
    await during("seed", () =>
      db().transaction((tx) =>
        postRecipientEntry(tx, {
          merchantId: merchant.id,
          recipientId: recipient.id,
          kind: "split_credit",
          amountCentavos: 5_000,
          refType: "order_split",
          refId: randomUUID(),
        }),
      ),
    );
    await ok("recipient payout", "POST", `/api/v1/recipients/${recipient.id}/payouts`, { value: 10 });
    const statement = await ok("recipient statement", "GET", `/api/v1/recipients/${recipient.id}/statement?limit=1`);
    await ok(
      "recipient statement, next page",
      "GET",
      `/api/v1/recipients/${recipient.id}/statement?limit=1&cursor=${statement.nextCursor}`,
    );
    await ok("recipient edit", "PATCH", `/api/v1/recipients/${recipient.id}`, { pixKey: "nova@example.com" });
    await during("dashboard recipients", () => listDashboardRecipients(merchant.id, dashboardRecipientsQuery({})));
    for (const q of ["maria", "529.982", "PED%_"])
      await during("dashboard recipient search", () =>
        listDashboardRecipients(merchant.id, dashboardRecipientsQuery({ q })),
      );
    await during("dashboard recipient", () => getRecipientDetail(merchant.id, recipient.id));
    await during("order form's recipients", () => splitChoices(merchant.id));
    await ok("recipient schedule", "PATCH", `/api/v1/recipients/${recipient.id}`, {
      payoutSchedule: { interval: "daily", minimumValue: 1_000 },
    });
    // Far ahead: the schedule's slot is due, the balance below its minimum (a skip recorded, then seen).
    for (let i = 0; i < 2; i++)
      await during("automatic payouts", () => runAutoPayouts(new Date("2099-01-01T12:00:00Z")));
    await during("dashboard statement", () => getStatement(merchant.id, {}));
    await during("dashboard statement by kind", () => getStatement(merchant.id, { kind: "order_credit" }));
    await during("dashboard statement by days", () =>
      getStatement(merchant.id, { from: "2020-01-01", to: "2099-12-31" }),
    );
    await during("dashboard orders", () => listDashboardOrders(merchant.id, { page: 1, limit: 20 }));
    await during("dashboard orders, filtered", () =>
      listDashboardOrders(merchant.id, { page: 1, limit: 20, status: "PENDING", from: "2020-01-01", q: "maria" }),
    );
    await during("dashboard overview", () => getOverview(merchant.id));
    await during("dashboard order", () => getOrderDetail(merchant.id, id));
    await during("export orders", () => first(orderExportPages(db(), { merchantId: merchant.id })));
    await during("export statement", () => first(statementPages(db(), { merchantId: merchant.id })));
    await during("export withdrawals", () => first(withdrawalPages(db(), { merchantId: merchant.id })));
    await during("sweep", () => runSweep());
    await during("webhook claims", () => claimDue(10));
    await during("webhook next due", () => msUntilNextDue());
    await during("key usage", () => flushKeyUsage());
    const empty = await wrongPlans("empty tables");
    progress("inserting 200,000 rows without ANALYZE");
    await grow(pool.sql, merchant.id, 200_000);
    const grown = await wrongPlans("after a large insert, no ANALYZE");
    progress("done");
    expect([...empty, ...grown]).toEqual([]);
  }, 300_000);
});
