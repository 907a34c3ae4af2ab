import fs from "node:fs";
import postgres from "postgres";

// The mixed load (docs/performance.md, "Mixed load"): 32 clients over a few merchants, each request a create-PIX, a
// sandbox payment of one of its merchant's PENDING orders, or a pix-out, for MIXED_DURATION seconds.
// Reports throughput and latency per kind, and for the pix-outs the time from request to COMPLETED
// (read from the database: created_at → completed_at) and how many were still PENDING when the load
// stopped. Before it, one merchant alone: create-PIX for a while, then sandbox payments of those
// orders, to compare the two rates (a merchant's payments must not queue behind each other).
//
// run.ts runs it against the fast-path server (BENCH_MIXED=false skips it). On its own, against a
// running server: BENCH_URL=http://127.0.0.1:3000 DATABASE_URL=… ADMIN_TOKEN=… tsx scripts/bench/mixed.ts
// (MIXED_PHASE=one-merchant runs only the one-merchant comparison, each half MIXED_DURATION / 3 s).

type Kind = "create-pix" | "sandbox-pay" | "pix-out";
/** The fields of the answers the load reads: a created order's id, a pix-out's id. */
type Answer = { status: number; json: { pixOrder?: { _id: string }; id?: string } | null };
type Timing = { kind: Kind; ms: number; status: number };

export type LatencyFigures = { count: number; p50: number; p99: number; max: number };
export type MixedResult = {
  clients: number;
  merchants: number;
  durationSeconds: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  perKind: Record<Kind, { rps: number; p50: number; p99: number; non2xx: number }>;
  pixOutCompletion: LatencyFigures & { pendingAtEnd: number; pendingAfterDrain: number; drainSeconds: number };
  oneMerchant: { createPixRps: number; sandboxPayRps: number; ratio: number };
};

export type MixedOptions = {
  base: string;
  databaseUrl: string;
  adminToken: string;
  clients?: number;
  merchants?: number;
  durationSeconds?: number;
  log?: (line: string) => void;
  /** Run before the one-merchant phase and before the mixed load (run.ts: VACUUM ANALYZE and a checkpoint), so neither meets the previous phase's cleanup. */
  settle?: () => Promise<void>;
};

const KINDS: Kind[] = ["create-pix", "sandbox-pay", "pix-out"];

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] * 10) / 10;
}

function latency(values: number[]): LatencyFigures {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: Math.round((sorted[sorted.length - 1] ?? 0) * 10) / 10,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function post(base: string, path: string, apiKey: string, body?: unknown): Promise<Answer> {
  const res = await fetch(base + path, {
    method: "POST",
    headers: {
      authorization: `Bearer ${apiKey}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: Answer["json"] = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: nothing the load reads
  }
  return { status: res.status, json };
}

async function createMerchant(base: string, adminToken: string, name: string): Promise<string> {
  const res = await fetch(`${base}/api/v1/admin/merchants`, {
    method: "POST",
    headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
    // A business account (R$ 100,000 a day) with a balance that covers every pix-out of the run.
    body: JSON.stringify({
      companyName: name,
      pixKey: "52998224725",
      accountType: "business",
      openingBalance: 5_000_000,
    }),
  });
  if (res.status !== 201) throw new Error(`creating a bench merchant: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()).apiKey;
}

/** Runs `clients` loops until `seconds` have passed (or `step` says there is nothing left to do). */
async function drive(
  clients: number,
  seconds: number,
  step: (client: number) => Promise<Timing | null>,
): Promise<{ timings: Timing[]; elapsed: number; errors: number }> {
  const timings: Timing[] = [];
  let errors = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      while (performance.now() < until) {
        try {
          const t = await step(client);
          if (!t) return;
          timings.push(t);
        } catch {
          errors++;
        }
      }
    }),
  );
  return { timings, elapsed: (performance.now() - started) / 1000, errors };
}

async function timed(kind: Kind, request: () => Promise<Answer>): Promise<Timing & Pick<Answer, "json">> {
  const t0 = performance.now();
  const { status, json } = await request();
  return { kind, ms: performance.now() - t0, status, json };
}

/** One merchant: create-PIX at full speed, then sandbox payments of the orders it made. */
async function oneMerchant(
  o: Required<Omit<MixedOptions, "log" | "settle">>,
  apiKey: string,
  seconds: number,
  settle: () => Promise<void>,
) {
  const orders: string[] = [];
  await settle();
  const created = await drive(o.clients, seconds, async () => {
    const t = await timed("create-pix", () => post(o.base, "/api/v1/order/create/pix", apiKey, { value: 10.5 }));
    if (t.status === 200 && t.json?.pixOrder) orders.push(t.json.pixOrder._id);
    return t;
  });
  // Straight after the creates, as in production: settling in between (VACUUM marks the new pages
  // all-visible, a checkpoint makes each first update of a page log it whole) cut the payment rate
  // to 0.43–0.50× the create rate, from 0.69–0.73× without it.
  const paid = await drive(o.clients, seconds, async () => {
    const id = orders.pop();
    if (!id) return null;
    return timed("sandbox-pay", () => post(o.base, `/api/v1/sandbox/orders/${id}/pay`, apiKey));
  });
  const ok = (ts: Timing[], status: number) => ts.filter((t) => t.status === status).length;
  const createPixRps = Math.round(ok(created.timings, 200) / created.elapsed);
  const sandboxPayRps = Math.round(ok(paid.timings, 200) / paid.elapsed);
  return { createPixRps, sandboxPayRps, ratio: Math.round((sandboxPayRps / Math.max(1, createPixRps)) * 100) / 100 };
}

/** The one-merchant comparison alone: a fresh merchant, create-PIX then sandbox payments, a third of the run each. */
export async function runOneMerchant(opts: MixedOptions): Promise<MixedResult["oneMerchant"]> {
  const o = { clients: 32, merchants: 4, durationSeconds: 30, ...opts };
  const log = opts.log ?? ((line: string) => console.log(line));
  const solo = await createMerchant(o.base, o.adminToken, "Bench mixed solo");
  const single = await oneMerchant(
    o,
    solo,
    Math.max(5, Math.round(o.durationSeconds / 3)),
    opts.settle ?? (async () => {}),
  );
  log(
    `mixed  one merchant: create-PIX ${single.createPixRps} req/s, sandbox pay ${single.sandboxPayRps} req/s (${single.ratio}×)`,
  );
  return single;
}

export async function runMixed(opts: MixedOptions): Promise<MixedResult> {
  const o = { clients: 32, merchants: 4, durationSeconds: 30, ...opts };
  const log = opts.log ?? ((line: string) => console.log(line));
  const sql = postgres(o.databaseUrl, { max: 2, onnotice: () => {} });
  try {
    const single = await runOneMerchant(opts);

    const keys = await Promise.all(
      Array.from({ length: o.merchants }, (_, i) => createMerchant(o.base, o.adminToken, `Bench mixed ${i + 1}`)),
    );
    await opts.settle?.();
    const pending: string[][] = keys.map(() => []);
    const pixOuts: string[] = [];
    const loadStarted = new Date();
    // 40% create-PIX, 40% sandbox pay of one of the merchant's PENDING orders (a create when it has
    // none yet), 20% pix-out of R$ 1.00 to the merchant's own key.
    const run = await drive(o.clients, o.durationSeconds, async (client) => {
      const m = client % o.merchants;
      const apiKey = keys[m];
      const roll = Math.random();
      if (roll < 0.2) {
        const t = await timed("pix-out", () => post(o.base, "/api/v1/order/pix-out", apiKey, { value: 100 }));
        if (t.status === 201 && t.json?.id) pixOuts.push(t.json.id);
        return t;
      }
      const id = roll < 0.6 ? pending[m].shift() : undefined;
      if (id) return timed("sandbox-pay", () => post(o.base, `/api/v1/sandbox/orders/${id}/pay`, apiKey));
      const t = await timed("create-pix", () => post(o.base, "/api/v1/order/create/pix", apiKey, { value: 10.5 }));
      if (t.status === 200 && t.json?.pixOrder) pending[m].push(t.json.pixOrder._id);
      return t;
    });
    const pendingAtEnd = await countPending(sql, pixOuts);

    // Then the pix-outs left are given up to 120 s to complete.
    const drainStarted = performance.now();
    let left = pendingAtEnd;
    while (left > 0 && performance.now() - drainStarted < 120_000) {
      await sleep(500);
      left = await countPending(sql, pixOuts);
    }
    const drainSeconds = Math.round((performance.now() - drainStarted) / 100) / 10;
    const completion = await sql<{ ms: number }[]>`
      select (extract(epoch from completed_at - created_at) * 1000)::float8 as ms
      from withdrawals where kind = 'pix_out' and status = 'COMPLETED' and created_at >= ${loadStarted}`;

    const all = run.timings;
    const sorted = all.map((t) => t.ms).sort((a, b) => a - b);
    const perKind = Object.fromEntries(
      KINDS.map((k) => {
        const ts = all.filter((t) => t.kind === k);
        const ms = ts.map((t) => t.ms).sort((a, b) => a - b);
        return [
          k,
          {
            rps: Math.round(ts.length / run.elapsed),
            p50: percentile(ms, 50),
            p99: percentile(ms, 99),
            non2xx: ts.filter((t) => t.status >= 300).length,
          },
        ];
      }),
    ) as MixedResult["perKind"];
    const result: MixedResult = {
      clients: o.clients,
      merchants: o.merchants,
      durationSeconds: o.durationSeconds,
      rps: Math.round(all.length / run.elapsed),
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      errors: run.errors,
      perKind,
      pixOutCompletion: {
        ...latency(completion.map((r) => r.ms)),
        pendingAtEnd,
        pendingAfterDrain: left,
        drainSeconds,
      },
      oneMerchant: single,
    };
    log(
      `mixed  ${result.clients} clients, ${result.merchants} merchants: ${result.rps} req/s  p50 ${result.p50} ms  p99 ${result.p99} ms  errors ${result.errors}`,
    );
    for (const k of KINDS)
      log(
        `         ${k.padEnd(12)} ${String(perKind[k].rps).padStart(5)} req/s  p50 ${perKind[k].p50} ms  p99 ${perKind[k].p99} ms  non2xx ${perKind[k].non2xx}`,
      );
    const c = result.pixOutCompletion;
    log(
      `         pix-out request → COMPLETED: p50 ${c.p50} ms  p99 ${c.p99} ms  max ${c.max} ms over ${c.count}; ${c.pendingAtEnd} PENDING when the load stopped, ${c.pendingAfterDrain} after ${c.drainSeconds} s more`,
    );
    return result;
  } finally {
    await sql.end();
  }
}

async function countPending(sql: postgres.Sql, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const [{ n }] = await sql<
    { n: number }[]
  >`select count(*)::int as n from withdrawals where id = any(${ids}::uuid[]) and status = 'PENDING'`;
  return n;
}

// On its own against a running server (see the header).
if (process.argv[1]?.endsWith("mixed.ts") && process.env.BENCH_URL) {
  const options: MixedOptions = {
    base: process.env.BENCH_URL,
    databaseUrl: process.env.DATABASE_URL!,
    adminToken: process.env.ADMIN_TOKEN!,
    durationSeconds: Number(process.env.MIXED_DURATION ?? 30),
    clients: Number(process.env.BENCH_CONNECTIONS ?? 32),
  };
  (process.env.MIXED_PHASE === "one-merchant" ? runOneMerchant(options) : runMixed(options))
    .then((r) => {
      if (process.env.MIXED_OUT) fs.writeFileSync(process.env.MIXED_OUT, JSON.stringify(r, null, 2) + "\n");
    })
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
