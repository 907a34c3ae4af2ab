import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";

// Webhook latency, from the commit of a status change to its receipt by the merchant's server.
//
//   npx tsx scripts/bench/webhooks.ts [events=200] [concurrency=8] [answerMs=0] [slowMs=0]
//
// Uses DATABASE_URL (a scratch database: it adds a merchant, orders and events) or, when unset, a
// throwaway embedded PostgreSQL. One dispatcher runs in this process, as in a jobs-enabled server;
// the receiver is a plain node:http server on 127.0.0.1 answering 200 after answerMs. With slowMs,
// the merchant has a second endpoint answering after slowMs: its deliveries must not delay the first's.

const EVENTS = Number(process.argv[2] ?? 200);
const CONCURRENCY = Number(process.argv[3] ?? 8);
const ANSWER_MS = Number(process.argv[4] ?? 0);
const SLOW_MS = Number(process.argv[5] ?? 0);

process.env.LOG_LEVEL ??= "warn";
process.env.PAYMENTS_MODE = "sandbox";
// Endpoint secrets are sealed with it; a bench-only value.
process.env.AUTH_SECRET ??= "bench-webhooks-auth-secret-0123456789abcdef";

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function main() {
  let stopEmbedded: (() => Promise<void>) | null = null;
  if (!process.env.DATABASE_URL) {
    const { startEmbeddedPostgres } = await import("@/db/embedded");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-webhooks-pg-"));
    fs.chmodSync(dir, 0o755);
    const pg = await startEmbeddedPostgres({
      dataDir: path.join(dir, "data"),
      port: 56000 + Math.floor(Math.random() * 3000),
      database: "bench",
      persistent: false,
    });
    process.env.DATABASE_URL = pg.url;
    stopEmbedded = pg.stop;
  }
  const { runMigrations } = await import("@/db/migrate");
  await runMigrations(process.env.DATABASE_URL);

  const { db, closeDb } = await import("@/db");
  const { merchants } = await import("@/db/schema");
  const { createPixOrder, completeOrder } = await import("@/lib/orders/service");
  const { createEndpoint } = await import("@/lib/webhooks/registry");
  const { startWebhookDispatcher, stopWebhookDispatcher } = await import("@/lib/webhooks/dispatcher");

  const calledAt = new Map<string, number>();
  const committedAt = new Map<string, number>();
  const latencies: number[] = [];
  const fromCall: number[] = [];
  let done: () => void = () => {};
  const allReceived = new Promise<void>((r) => (done = r));
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const at = performance.now();
      setTimeout(() => res.writeHead(200).end(), ANSWER_MS);
      const orderId = (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { data: { id: string } }).data.id;
      const t0 = committedAt.get(orderId);
      // "Commit" is when completeOrder returns (COMMIT acknowledged). Under load that continuation can
      // run late, so the figure from the call (which includes the transaction itself) is reported too,
      // as an upper bound.
      latencies.push(t0 === undefined ? 0 : at - t0);
      fromCall.push(at - (calledAt.get(orderId) ?? at));
      if (latencies.length === EVENTS) done();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;

  const [merchant] = await db()
    .insert(merchants)
    .values({ companyName: "Bench", pixKey: "52998224725", pixKeyType: "cpf" })
    .returning();
  await createEndpoint(merchant.id, { url: new URL(`http://127.0.0.1:${port}/hooks`) });
  const slow = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => setTimeout(() => res.writeHead(200).end(), SLOW_MS));
  });
  if (SLOW_MS > 0) {
    await new Promise<void>((r) => slow.listen(0, "127.0.0.1", r));
    const slowPort = (slow.address() as AddressInfo).port;
    await createEndpoint(merchant.id, { url: new URL(`http://127.0.0.1:${slowPort}/slow`) });
  }
  const orders: { id: string }[] = [];
  for (let i = 0; i < EVENTS; i++) orders.push(await createPixOrder(merchant, { value: 1000 + i }));
  await startWebhookDispatcher();

  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < orders.length) {
        const o = orders[next++];
        calledAt.set(o.id, performance.now());
        await completeOrder(o.id);
        committedAt.set(o.id, performance.now());
      }
    }),
  );
  const fired = performance.now() - started;
  await Promise.race([allReceived, new Promise((r) => setTimeout(r, 60_000))]);
  const summary = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const at = (p: number) => Number(percentile(sorted, p).toFixed(1));
    return { p50: at(50), p90: at(90), p99: at(99), max: at(100) };
  };
  console.log(
    JSON.stringify({
      events: EVENTS,
      received: latencies.length,
      concurrency: CONCURRENCY,
      answerMs: ANSWER_MS,
      slowMs: SLOW_MS,
      load: os.loadavg().map((l) => Number(l.toFixed(1))),
      firedInMs: Math.round(fired),
      commitToReceiptMs: summary(latencies),
      callToReceiptMs: summary(fromCall),
    }),
  );

  await stopWebhookDispatcher();
  server.closeAllConnections();
  server.close();
  slow.closeAllConnections();
  slow.close();
  await closeDb();
  await stopEmbedded?.();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
