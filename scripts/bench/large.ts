import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";
import autocannon from "autocannon";
import postgres from "postgres";
import { startEmbeddedPostgres } from "@/db/embedded";
import { runMigrations } from "@/db/migrate";
import { generateApiKey, hashApiKey } from "@/lib/identity/api-keys/keys";
import type { RssSampler } from "./machine";

// The large-data mode of `npm run bench` (BENCH_LARGE_ORDERS=10000000): the app (limiter on) on an
// empty database and on one holding BENCH_LARGE_ORDERS orders over BENCH_LARGE_MERCHANTS merchants, a
// year of them, with the ledger entries and events they would have left, side by side: creates,
// lookups and the account under load (autocannon), and one request at a time the statement's first
// page, order search (GET /api/v1/orders?q=) and the CSV export's first page.
//
// The orders, entries and events are written with COPY into tables whose indexes and constraints are
// dropped first and built again after (what pg_restore does): minutes, where inserting ten million rows
// into ten indexes takes hours. Each table is truncated and filled in one transaction with FREEZE, as a
// table autovacuum had long since visited looks; nothing is analyzed (PostgreSQL learns the tables'
// sizes from the index builds, and nothing else). With BENCH_LARGE_DIR the seeded cluster is kept there
// and a later run with the same size reuses it.

export type LargeOptions = {
  dir: string;
  orders: number;
  merchants: number;
  pgSettings: Record<string, string>;
  port: number;
  connections: number;
  duration: number;
  warmup: number;
  adminToken: string;
  poolSize: string;
  rss: RssSampler;
  startApp: (env: Record<string, string>, logFile: string) => ChildProcess;
  stop: (child: ChildProcess) => Promise<void>;
  waitFor: (url: string) => Promise<void>;
};

type Figures = { rps?: number; p50: number; p95?: number; p99?: number; max?: number; count: number; non2xx?: number };
type Phase = Record<string, Figures>;
export type LargeResult = {
  orders: number;
  merchants: number;
  seedSeconds: number;
  seeded: { orders: number; ledgerEntries: number; events: number; databaseMb: number };
  empty: Phase;
  large: Phase;
  table: string[];
  appPeakRssMb: number;
};

/** Merchants whose statement, search and export are read (the same ones in both phases). */
const PROBES = 20;
const FIRST = [
  "Maria",
  "José",
  "Ana",
  "João",
  "Antônio",
  "Francisca",
  "Carlos",
  "Paulo",
  "Pedro",
  "Lucas",
  "Luiz",
  "Marcos",
  "Luis",
  "Gabriel",
  "Rafael",
  "Daniel",
  "Marcelo",
  "Bruno",
  "Eduardo",
  "Felipe",
  "Raimundo",
  "Rodrigo",
  "Manoel",
  "Mateus",
  "André",
  "Fernando",
  "Fábio",
  "Leonardo",
  "Gustavo",
  "Guilherme",
  "Leandro",
  "Tiago",
  "Adriana",
  "Juliana",
  "Márcia",
  "Fernanda",
  "Patrícia",
  "Aline",
  "Sandra",
  "Camila",
];
const LAST = [
  "Silva",
  "Santos",
  "Oliveira",
  "Souza",
  "Rodrigues",
  "Ferreira",
  "Alves",
  "Pereira",
  "Lima",
  "Gomes",
  "Costa",
  "Ribeiro",
  "Martins",
  "Carvalho",
  "Almeida",
  "Lopes",
  "Soares",
  "Fernandes",
  "Vieira",
  "Barbosa",
  "Rocha",
  "Dias",
  "Nascimento",
  "Andrade",
  "Moreira",
  "Nunes",
  "Marques",
  "Machado",
  "Mendes",
  "Freitas",
  "Cardoso",
  "Ramos",
  "Gonçalves",
  "Santana",
  "Teixeira",
  "Araújo",
  "Pinto",
  "Correia",
  "Moura",
  "Cavalcanti",
];
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** A small fast generator: the data must be varied, not secret, and ten million rows must not wait on the CSPRNG. */
function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

/** As lib/ids.ts makes them: the second in six base62 digits, then random ones. */
function timeOrdered(second: number, length: number, random: () => number): string {
  let out = "";
  let n = second;
  for (let i = 0; i < 6; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  for (let i = 6; i < length; i++) out += BASE62[Math.floor(random() * 62)];
  return out;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
const r1 = (x: number) => Math.round(x * 10) / 10;
function latencyFigures(ms: number[]): Figures {
  const s = [...ms].sort((a, b) => a - b);
  return { count: s.length, p50: r1(percentile(s, 0.5)), p95: r1(percentile(s, 0.95)), max: r1(s[s.length - 1] ?? 0) };
}

type Merchant = { id: string; keys: string[] };

/** Copies `rows` (lines of COPY text, made lazily) into `table` in one transaction that first empties it, with FREEZE. */
async function copyInto(sql: postgres.Sql, table: string, columns: string[], rows: Iterable<string>) {
  await sql.begin(async (tx) => {
    await tx.unsafe(`truncate ${table}`);
    const writable = await tx.unsafe(`copy ${table} (${columns.join(", ")}) from stdin with (freeze)`).writable();
    // Lines are batched into chunks of ~1 MB: one write per line would cost more than the line.
    function* chunks() {
      let buffer: string[] = [];
      let size = 0;
      for (const line of rows) {
        buffer.push(line);
        size += line.length;
        if (size > 1 << 20) {
          yield buffer.join("");
          buffer = [];
          size = 0;
        }
      }
      if (buffer.length) yield buffer.join("");
    }
    await pipeline(Readable.from(chunks()), writable);
  });
}

/** The indexes and constraints of `tables` (and the foreign keys that point at them), to drop before a bulk load and build again after. */
async function schemaOf(sql: postgres.Sql, tables: string[]) {
  const constraints = await sql<{ table: string; name: string; def: string; type: string }[]>`
    select c.conrelid::regclass::text as table, c.conname as name, pg_get_constraintdef(c.oid) as def, c.contype as type
    from pg_constraint c
    where c.contype in ('p', 'u', 'f') and (c.conrelid::regclass::text = any(${tables}) or c.confrelid::regclass::text = any(${tables}))`;
  const owned = new Set(constraints.map((c) => c.name));
  const indexes = await sql<{ name: string; def: string }[]>`
    select indexname as name, indexdef as def from pg_indexes where schemaname = 'public' and tablename = any(${tables})`;
  return { constraints, indexes: indexes.filter((i) => !owned.has(i.name)) };
}

/** Writes the large database: merchants and their keys, then orders, ledger entries and events by COPY. */
async function seed(url: string, o: LargeOptions, log: (s: string) => void): Promise<Merchant[]> {
  const sql = postgres(url, {
    max: 1,
    onnotice: () => {},
    connection: { maintenance_work_mem: "1GB", statement_timeout: 0 },
  });
  try {
    const merchants: Merchant[] = Array.from({ length: o.merchants }, () => ({
      id: randomUUID(),
      keys: [generateApiKey("sandbox"), generateApiKey("sandbox")].map((k) => k.key),
    }));
    const tables = ["orders", "ledger_entries", "events"];
    const { constraints, indexes } = await schemaOf(sql, tables);
    let t = performance.now();
    for (const c of constraints.filter((c) => c.type === "f"))
      await sql.unsafe(`alter table ${c.table} drop constraint ${c.name}`);
    for (const c of constraints.filter((c) => c.type !== "f"))
      await sql.unsafe(`alter table ${c.table} drop constraint ${c.name}`);
    for (const i of indexes) await sql.unsafe(`drop index ${i.name}`);

    const balances = new Map<string, number>(merchants.map((m) => [m.id, 0]));
    await sql`insert into merchants ${sql(merchants.map((m, i) => ({ id: m.id, company_name: `Large ${i}`, pix_key: "52998224725", pix_key_type: "cpf" })))}`;
    for (let i = 0; i < merchants.length; i += 500) {
      const rows = merchants.slice(i, i + 500).flatMap((m) =>
        m.keys.map((key, j) => ({
          merchant_id: m.id,
          name: `bench-${j}`,
          prefix: key.slice(0, 12),
          key_hash: hashOf(key),
          mode: "sandbox",
        })),
      );
      await sql`insert into api_keys ${sql(rows)}`;
    }

    // A year of orders, oldest first, each merchant's share about equal. Order n is a function of n
    // alone, so the ledger's and the events' passes make it again instead of holding ten million.
    const endMs = Date.now() - 3_600_000;
    const startMs = endMs - 365 * 86_400_000;
    const step = (endMs - startMs) / o.orders;
    const orderAt = (n: number) => {
      const random = rng(Math.imul(n + 1, 2654435761) ^ 0x5bd1e995);
      for (let i = 0; i < 3; i++) random();
      const hex = (k: number) => Array.from({ length: k }, () => Math.floor(random() * 16).toString(16)).join("");
      const created = startMs + n * step;
      const second = Math.floor(created / 1000);
      const id = `${hex(8)}-${hex(4)}-4${hex(3)}-${"89ab"[Math.floor(random() * 4)]}${hex(3)}-${hex(12)}`;
      const merchant = merchants[Math.floor(random() * merchants.length)].id;
      const lightning = random() < 0.1;
      const value = 100 + Math.floor(random() * 200_000);
      const roll = random();
      const status = roll < 0.65 ? "COMPLETED" : roll < 0.98 ? "CANCELLED" : "REFUND";
      const link = timeOrdered(second, 22, random);
      const referenced = !lightning && random() < 0.3;
      const name = `${FIRST[Math.floor(random() * 40)]} ${LAST[Math.floor(random() * 40)]}`;
      const cpf = String(Math.floor(random() * 1e11)).padStart(11, "0");
      return { n, id, merchant, lightning, value, status, link, second, created, referenced, name, cpf, random, hex };
    };
    const iso = (ms: number) => new Date(ms).toISOString();
    const brcodeTail = "5204000053039865802BR5920LOJA BENCH PAGAMENTOS6009SAO PAULO62290525";
    function* orderRows() {
      for (let n = 0; n < o.orders; n++) {
        const x = orderAt(n);
        const at = iso(x.created);
        const paidAt = x.status === "CANCELLED" ? "\\N" : iso(x.created + 60_000);
        const expires = iso(x.created + 3_600_000);
        const updated = x.status === "CANCELLED" ? expires : paidAt;
        const hash = x.second.toString(16).padStart(8, "0") + x.hex(24);
        const reference = x.referenced
          ? JSON.stringify({ orderId: `PED-${String(n).padStart(8, "0")}`, name: x.name, cpf: x.cpf })
          : "{}";
        const version = x.status === "CANCELLED" ? 1 : 2;
        let line: string;
        if (x.lightning) {
          const paymentHash = x.hex(64);
          const sats = Math.ceil(x.value / 3);
          line = [
            x.id,
            x.merchant,
            "lightning",
            x.link,
            hash,
            x.status,
            x.value,
            reference,
            "sandbox-lightning",
            paymentHash,
            "\\N",
            "\\N",
            `lnbc${sats}n1p${paymentHash}${paymentHash.slice(0, 40)}`,
            paymentHash,
            sats,
            "300000",
            "sandbox",
            at,
            expires,
            paidAt,
            version,
            at,
            updated,
          ].join("\t");
        } else {
          const txid = timeOrdered(x.second, 25, x.random);
          const brcode = `00020126580014br.gov.bcb.pix0136${x.hex(8)}-${x.hex(4)}-${x.hex(4)}-${x.hex(4)}-${x.hex(12)}${brcodeTail}${txid}6304ABCD`;
          line = [
            x.id,
            x.merchant,
            "pix",
            x.link,
            hash,
            x.status,
            x.value,
            reference,
            "sandbox-pix",
            txid,
            brcode,
            txid,
            "\\N",
            "\\N",
            "\\N",
            "\\N",
            "\\N",
            "\\N",
            expires,
            paidAt,
            version,
            at,
            updated,
          ].join("\t");
        }
        yield line + "\n";
      }
    }
    await copyInto(
      sql,
      "orders",
      [
        "id",
        "merchant_id",
        "kind",
        "payment_link_id",
        "hash",
        "status",
        "value_centavos",
        "reference",
        "provider",
        "provider_ref",
        "brcode",
        "txid",
        "invoice",
        "payment_hash",
        "satoshis",
        "rate",
        "rate_source",
        "rate_at",
        "expires_at",
        "paid_at",
        "version",
        "created_at",
        "updated_at",
      ],
      orderRows(),
    );
    log(`orders copied in ${((performance.now() - t) / 1000).toFixed(0)} s`);
    t = performance.now();
    // A paid order's credit, a minute after it was made; a refunded one's credit and the refund's debit.
    let entryId = 0;
    function* ledgerRows() {
      for (let n = 0; n < o.orders; n++) {
        const x = orderAt(n);
        if (x.status === "CANCELLED") continue;
        const at = iso(x.created + 60_000);
        balances.set(x.merchant, balances.get(x.merchant)! + x.value);
        yield `${++entryId}\t${x.merchant}\torder_credit\t${x.value}\torder\t${x.id}\t${x.lightning ? "lightning" : "pix"} order ${x.link}\t${at}\n`;
        if (x.status === "REFUND") {
          balances.set(x.merchant, balances.get(x.merchant)! - x.value);
          yield `${++entryId}\t${x.merchant}\trefund_debit\t${-x.value}\trefund\t${randomUUID()}\t\\N\t${at}\n`;
        }
      }
    }
    await copyInto(
      sql,
      "ledger_entries",
      ["id", "merchant_id", "kind", "amount_centavos", "ref_type", "ref_id", "description", "created_at"],
      ledgerRows(),
    );
    log(`ledger copied in ${((performance.now() - t) / 1000).toFixed(0)} s (${entryId.toLocaleString("en")} entries)`);
    t = performance.now();
    // One status change per order (paid, or cancelled at expiry), published.
    let seq = 0;
    function* eventRows() {
      for (let n = 0; n < o.orders; n++) {
        const x = orderAt(n);
        seq++;
        const at = iso(x.created + (x.status === "CANCELLED" ? 3_600_000 : 60_000));
        const data = JSON.stringify({
          _id: x.id,
          paymentLinkId: x.link,
          status: x.status,
          previousStatus: "PENDING",
          value: x.value / 100,
          createdAt: iso(x.created),
        });
        yield `${randomUUID()}\t${seq}\t${x.merchant}\torder.status_changed\torder\t${x.id}\t${data}\t${seq}\t${at}\n`;
      }
    }
    await copyInto(
      sql,
      "events",
      ["id", "seq", "merchant_id", "type", "subject_type", "subject_id", "data", "position", "created_at"],
      eventRows(),
    );
    log(`events copied in ${((performance.now() - t) / 1000).toFixed(0)} s (${seq.toLocaleString("en")} events)`);
    t = performance.now();
    await sql`select setval('ledger_entries_id_seq', ${entryId + 1}, false), setval('events_seq_seq', ${seq + 1}, false)`;
    for (const [id, balance] of balances)
      await sql`update merchants set balance_centavos = ${balance} where id = ${id}`;
    for (const c of constraints.filter((c) => c.type !== "f"))
      await sql.unsafe(`alter table ${c.table} add constraint ${c.name} ${c.def}`);
    for (const i of indexes) {
      const ti = performance.now();
      await sql.unsafe(i.def);
      log(`  ${i.name} in ${((performance.now() - ti) / 1000).toFixed(0)} s`);
    }
    for (const c of constraints.filter((c) => c.type === "f"))
      await sql.unsafe(`alter table ${c.table} add constraint ${c.name} ${c.def}`);
    await sql`checkpoint`;
    log(`indexes and constraints built again in ${((performance.now() - t) / 1000).toFixed(0)} s`);
    await sql`create table bench_large_seed (orders bigint not null, entries bigint not null, events bigint not null, merchants jsonb not null)`;
    await sql`insert into bench_large_seed values (${o.orders}, ${entryId}, ${seq}, ${sql.json(merchants)})`;
    return merchants;
  } finally {
    await sql.end();
  }
}

/** As the app stores a key: its hash. */
const hashOf = (key: string) => hashApiKey(key);

/** Merchants and their keys for an empty database: as seed() makes them, without orders. */
async function emptyMerchants(url: string, count: number): Promise<Merchant[]> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const merchants: Merchant[] = Array.from({ length: count }, () => ({
      id: randomUUID(),
      keys: [generateApiKey("sandbox"), generateApiKey("sandbox")].map((k) => k.key),
    }));
    await sql`insert into merchants ${sql(merchants.map((m, i) => ({ id: m.id, company_name: `Empty ${i}`, pix_key: "52998224725", pix_key_type: "cpf" })))}`;
    for (let i = 0; i < merchants.length; i += 500) {
      const rows = merchants.slice(i, i + 500).flatMap((m) =>
        m.keys.map((key, j) => ({
          merchant_id: m.id,
          name: `bench-${j}`,
          prefix: key.slice(0, 12),
          key_hash: hashOf(key),
          mode: "sandbox",
        })),
      );
      await sql`insert into api_keys ${sql(rows)}`;
    }
    return merchants;
  } finally {
    await sql.end();
  }
}

/** Measures one phase on the running app at `base` over `url`'s database. */
async function measurePhase(
  base: string,
  url: string,
  merchants: Merchant[],
  o: LargeOptions,
  log: (s: string) => void,
): Promise<Phase> {
  const phase: Phase = {};
  const probes = merchants.slice(0, PROBES);
  // The loads use the other merchants' keys: the probes' are kept for the one-at-a-time reads.
  const authorizations = merchants.slice(PROBES).flatMap((m) => m.keys.map((k) => `Bearer ${k}`));
  const keyOf = new Map(merchants.map((m) => [m.id, `Bearer ${m.keys[0]}`]));
  const keysOf = new Map(merchants.map((m) => [m.id, m.keys.map((k) => `Bearer ${k}`)]));
  const call = async (method: string, p: string, authorization: string, body?: unknown) => {
    const res = await fetch(base + p, {
      method,
      headers: { authorization, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${text.slice(0, 200)}`);
    return JSON.parse(text);
  };
  // Each probe merchant's own recent orders, with references to search, a page of statement entries.
  for (const [i, m] of probes.entries()) {
    const auth = keyOf.get(m.id)!;
    for (let n = 0; n < 60; n++) {
      const name = `${FIRST[(i + n) % 40]} ${LAST[(i * 7 + n) % 40]}`;
      const created = await call("POST", "/api/v1/order/create/pix", auth, {
        value: 10 + n,
        orderId: `NEW-${i}-${n}`,
        name,
        cpf: "52998224725",
      });
      if (n < 55) await call("POST", `/api/v1/sandbox/orders/${created.pixOrder._id}/pay`, auth);
    }
  }
  const cannon = async (
    name: string,
    method: "GET" | "POST",
    calls: { path: string; authorization: string }[],
    body?: string,
  ) => {
    const headerSets = calls.map((c) => ({ authorization: c.authorization, "content-type": "application/json" }));
    let next = 0;
    const run = (duration: number) =>
      autocannon({
        url: base + calls[0].path,
        connections: o.connections,
        duration,
        requests: [
          {
            method,
            body,
            setupRequest: (req) => {
              const k = next++ % calls.length;
              req.headers = headerSets[k];
              req.path = calls[k].path;
              return req;
            },
          },
        ],
      });
    await run(o.warmup);
    const r = await run(o.duration);
    phase[name] = {
      rps: Math.round(r.requests.average),
      p50: r.latency.p50,
      p99: r.latency.p99,
      count: r.requests.total,
      non2xx: r.non2xx,
    };
    log(
      `  ${name}: ${phase[name].rps} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms${r.non2xx ? `, non-2xx ${r.non2xx}` : ""}`,
    );
  };
  await cannon(
    "POST /order/create/pix",
    "POST",
    authorizations.map((authorization) => ({ path: "/api/v1/order/create/pix", authorization })),
    '{"value":10.5}',
  );
  // Lookups: the newest orders and as many paid ones from anywhere in the table (old orders are looked up too).
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  let lookups: { path: string; authorization: string }[];
  let probeOrders: { merchant: string; id: string; link: string; orderId: string; cpf: string; value: number }[];
  try {
    type Row = { id: string; payment_link_id: string; merchant_id: string };
    // Not the probe merchants' orders: the searches below use their keys, which the limiter (600 a
    // minute per key) would have spent on lookups.
    const probeIds = probes.map((m) => m.id);
    const newest = await sql<Row[]>`
      select id, payment_link_id, merchant_id from orders where status = 'PENDING' and merchant_id <> all(${probeIds}::uuid[])
      order by created_at desc limit 500`;
    // The other half: paid orders, in both phases. A paid order's lookup also reads its refunds (one
    // more statement), and the first runs compared the empty database's lookups (all of new, unpaid
    // orders) with the large one's (two in three of the old orders sampled were paid): different work,
    // not size. The large database's are sampled from anywhere in the table; the empty one has none
    // but the probes', so 500 of the create load's are paid first, through the API.
    const [{ rows }] = await sql<
      { rows: number }[]
    >`select reltuples::float8 as rows from pg_class where relname = 'orders'`;
    let paid: Row[];
    if (rows > 100_000) {
      paid = await sql<Row[]>`
        select id, payment_link_id, merchant_id from orders tablesample system (1)
        where status in ('COMPLETED', 'REFUND') and merchant_id <> all(${probeIds}::uuid[]) limit 500`;
    } else {
      const toPay = await sql<Row[]>`
        select id, payment_link_id, merchant_id from orders where status = 'PENDING' and merchant_id <> all(${probeIds}::uuid[])
        order by created_at desc offset 500 limit 500`;
      for (let i = 0; i < toPay.length; i += 10)
        await Promise.all(
          toPay
            .slice(i, i + 10)
            .map((r, j) => call("POST", `/api/v1/sandbox/orders/${r.id}/pay`, keysOf.get(r.merchant_id)![(i + j) % 2])),
        );
      paid = toPay;
    }
    // Each merchant's two keys in turn: one key's 600 a minute is 10 lookups a second.
    lookups = [...newest, ...paid].map((r, i) => {
      const keys = keysOf.get(r.merchant_id)!;
      return {
        path: `/api/v1/order/${i % 2 ? r.payment_link_id : r.id}`,
        authorization: keys[Math.floor(i / 2) % keys.length],
      };
    });
    probeOrders = [];
    for (const m of probes) {
      // One order with references per probe merchant, from its older ones when there are any.
      const [row] = await sql<
        { id: string; payment_link_id: string; order_id: string; cpf: string; value_centavos: string }[]
      >`
        select id, payment_link_id, reference->>'orderId' as order_id, reference->>'cpf' as cpf, value_centavos from orders
        where merchant_id = ${m.id} and reference <> '{}'::jsonb order by created_at limit 1`;
      probeOrders.push({
        merchant: m.id,
        id: row.id,
        link: row.payment_link_id,
        orderId: row.order_id,
        cpf: row.cpf,
        value: Number(row.value_centavos),
      });
    }
  } finally {
    await sql.end();
  }
  await cannon("GET /order/{id}", "GET", lookups);
  await cannon(
    "GET /account",
    "GET",
    authorizations.map((authorization) => ({ path: "/api/v1/account", authorization })),
  );
  // One at a time, each probe merchant in turn, three times: what a person waits for.
  const seq = async (name: string, f: (p: (typeof probeOrders)[number]) => Promise<unknown>) => {
    const ms: number[] = [];
    for (let rep = 0; rep < 3; rep++) {
      for (const p of probeOrders) {
        const t = performance.now();
        await f(p);
        ms.push(performance.now() - t);
      }
    }
    phase[name] = latencyFigures(ms);
    log(`  ${name}: p50 ${phase[name].p50} ms, p95 ${phase[name].p95} ms, max ${phase[name].max} ms`);
  };
  const { statementPage } = await import("@/lib/ledger/statement");
  const { balanceOf } = await import("@/lib/ledger/ledger");
  const { orderExportPages } = await import("@/lib/orders/export");
  const { db, closeDb } = await import("@/db");
  await closeDb();
  process.env.DATABASE_URL = url;
  try {
    // The statement page as the dashboard reads it unfiltered: a page of 50 with balances, and the closing balance.
    await seq("statement, first page", (p) =>
      Promise.all([statementPage(db(), { merchantId: p.merchant }, { limit: 50 }), balanceOf(db(), p.merchant)]),
    );
    const search = (q: (p: (typeof probeOrders)[number]) => string) => (p: (typeof probeOrders)[number]) =>
      call("GET", `/api/v1/orders?limit=20&q=${encodeURIComponent(q(p))}`, keyOf.get(p.merchant)!);
    await seq("orders, first page", (p) => call("GET", "/api/v1/orders?limit=20", keyOf.get(p.merchant)!));
    await seq(
      "search: orderId",
      search((p) => p.orderId),
    );
    await seq(
      "search: common name",
      search(() => "maria"),
    );
    await seq(
      "search: full name",
      search(() => "Maria Oliveira"),
    );
    await seq(
      "search: CPF",
      search((p) => `${p.cpf.slice(0, 3)}.${p.cpf.slice(3, 6)}.${p.cpf.slice(6, 9)}-${p.cpf.slice(9)}`),
    );
    await seq(
      "search: payment link id",
      search((p) => p.link),
    );
    await seq(
      "search: id prefix",
      search((p) => p.id.slice(0, 8)),
    );
    await seq(
      "search: amount",
      search((p) => `${Math.floor(p.value / 100)},${String(p.value % 100).padStart(2, "0")}`),
    );
    await seq(
      "search: no match",
      search(() => "zzqxw"),
    );
    await seq(
      "CSV export, first page (orders)",
      async (p) => (await orderExportPages(db(), { merchantId: p.merchant }, 1000).next()).value,
    );
    const { statementPages } = await import("@/lib/ledger/statement");
    await seq(
      "CSV export, first page (statement)",
      async (p) => (await statementPages(db(), { merchantId: p.merchant }, 1000).next()).value,
    );
  } finally {
    await closeDb();
  }
  return phase;
}

export async function runLarge(o: LargeOptions): Promise<LargeResult> {
  const log = (s: string) => console.log(`[large] ${s}`);
  const keep = process.env.BENCH_LARGE_DIR;
  const dataDir = keep ? path.resolve(keep) : path.join(o.dir, "large-pg");
  const pg = await startEmbeddedPostgres({
    dataDir,
    port: Number(process.env.BENCH_LARGE_PG_PORT ?? 54450),
    database: "large",
    persistent: Boolean(keep),
    settings: o.pgSettings,
  });
  const emptyUrl = pg.url.replace(/\/large$/, "/empty");
  const result: LargeResult = {
    orders: o.orders,
    merchants: o.merchants,
    seedSeconds: 0,
    seeded: { orders: 0, ledgerEntries: 0, events: 0, databaseMb: 0 },
    empty: {},
    large: {},
    table: [],
    appPeakRssMb: 0,
  };
  const admin = postgres(pg.url.replace(/\/large$/, "/postgres"), { max: 1, onnotice: () => {} });
  let app: ChildProcess | null = null;
  try {
    // The empty database: made anew every run.
    await admin.unsafe("drop database if exists empty with (force)");
    await admin.unsafe("create database empty");
    await runMigrations(emptyUrl);
    const startOn = async (url: string, name: string) => {
      const child = o.startApp(
        {
          DATABASE_URL: url,
          PORT: String(o.port),
          HOST: "127.0.0.1",
          NODE_ENV: "production",
          ADMIN_TOKEN: o.adminToken,
          SEED_DEMO_MERCHANT: "false",
          API_FAST_PATH: "true",
          DB_POOL_SIZE: o.poolSize,
        },
        path.join(o.dir, `large-${name}.log`),
      );
      o.rss.watch("app (large-data mode)", child.pid!);
      await o.waitFor(`http://127.0.0.1:${o.port}/`);
      return child;
    };
    log(`empty database: ${o.merchants} merchants`);
    const emptyMerchantList = await emptyMerchants(emptyUrl, o.merchants);
    app = await startOn(emptyUrl, "empty");
    result.empty = await measurePhase(`http://127.0.0.1:${o.port}`, emptyUrl, emptyMerchantList, o, log);
    await o.stop(app);
    app = null;

    const large = postgres(pg.url, { max: 1, onnotice: () => {} });
    let merchants: Merchant[];
    try {
      await runMigrations(pg.url);
      // Clusters seeded before the list was written with sql.json hold it as a JSON string: read either.
      const [seeded] = await large<{ orders: string; merchants: Merchant[] }[]>`
        select orders, case jsonb_typeof(merchants) when 'string' then (merchants #>> '{}')::jsonb else merchants end as merchants
        from bench_large_seed`.catch(() => [] as { orders: string; merchants: Merchant[] }[]);
      // A seeded cluster from an earlier run is reused only for the same size (BENCH_LARGE_DIR).
      if (seeded && Number(seeded.orders) === o.orders && seeded.merchants.length === o.merchants) {
        log(`reusing the seeded database in ${dataDir}`);
        merchants = seeded.merchants;
      } else {
        if (seeded)
          throw new Error(
            `BENCH_LARGE_DIR holds ${seeded.orders} orders over ${seeded.merchants.length} merchants: empty it to seed ${o.orders} over ${o.merchants}`,
          );
        const free = fs.statfsSync(path.dirname(dataDir));
        log(
          `seeding ${o.orders.toLocaleString("en")} orders over ${o.merchants} merchants (${Math.round((free.bavail * free.bsize) / 2 ** 30)} GB free)`,
        );
        const t = performance.now();
        merchants = await seed(pg.url, o, log);
        result.seedSeconds = Math.round((performance.now() - t) / 1000);
        log(`seeded in ${result.seedSeconds} s`);
      }
      const [counts] = await large<{ orders: string; entries: string; events: string; mb: string }[]>`
        select orders, entries, events, pg_database_size(current_database()) / 1048576 as mb from bench_large_seed`;
      result.seeded = {
        orders: Number(counts.orders),
        ledgerEntries: Number(counts.entries),
        events: Number(counts.events),
        databaseMb: Number(counts.mb),
      };
    } finally {
      await large.end();
    }
    app = await startOn(pg.url, "large");
    result.large = await measurePhase(`http://127.0.0.1:${o.port}`, pg.url, merchants, o, log);
    await o.stop(app);
    app = null;
  } finally {
    if (app) await o.stop(app);
    await admin.end();
    await pg.stop();
  }
  result.appPeakRssMb = o.rss.peak("app (large-data mode)");
  const row = (name: string) => {
    const e = result.empty[name];
    const l = result.large[name];
    if (!e || !l) return `${name.padEnd(36)} —`;
    if (e.rps !== undefined && l.rps !== undefined)
      return `${name.padEnd(36)} empty ${String(e.rps).padStart(6)} req/s (p99 ${e.p99} ms)   large ${String(l.rps).padStart(6)} req/s (p99 ${l.p99} ms)   ${(l.rps / e.rps).toFixed(2)}×`;
    return `${name.padEnd(36)} empty p50 ${e.p50} / p95 ${e.p95} ms   large p50 ${l.p50} / p95 ${l.p95} ms (max ${l.max})   p95 ${(l.p95! / Math.max(0.1, e.p95!)).toFixed(2)}×`;
  };
  result.table = [
    `seeded: ${result.seeded.orders.toLocaleString("en")} orders, ${result.seeded.ledgerEntries.toLocaleString("en")} ledger entries, ${result.seeded.events.toLocaleString("en")} events, ${result.seeded.databaseMb.toLocaleString("en")} MB`,
    ...[...new Set([...Object.keys(result.empty), ...Object.keys(result.large)])].map(row),
  ];
  return result;
}
